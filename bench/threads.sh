#!/usr/bin/env bash
# Issue 26 item 7: how switchyard-run scales with threads on one machine. pp512 and tg128 at 1, 2, 4, 8 and 16
# threads (those up to the CPUs this process may use, or the list given), in interleaved rounds; the table gives
# medians, pp as the speedup over the first thread count and its efficiency (speedup / threads), tg as tokens/s
# and the fraction of the DRAM bound that the runner measures beside each run with the same thread count (its
# "tgN bound" line: DRAM read GB/s over the weight bytes a token reads).
#
#   bench/threads.sh BIN_DIR [MODEL] [ROUNDS=3] ["THREADS" = "1 2 4 8 16"]
#
# BIN_DIR: a built tree's bin/ (switchyard-run; switchyard-make-model where MODEL is not given). A build for this
# alone: cmake --preset release -DGGML_VULKAN=OFF && cmake --build --preset release --target switchyard-run
# switchyard-make-model. MODEL: a GGUF file; default the 1b preset (q4_K / q6_K, about 0.7 GB), written once to
# BIN_DIR/1b.gguf. Runs of more threads than CPUs are left out unless THREADS names them.
#
# On a lent device machine (x86-64, as here; it has neither the Vulkan nor the MPI library), build here without them
# (15 MB, every kernel chosen at run time, so the build runs there):
#   cmake -S . -B build/threads -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_VULKAN=OFF -DGGML_MPI=OFF \
#       -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_BENCHMARKS=OFF -DGGML_BUILD_EXAMPLES=OFF
#   cmake --build build/threads --target switchyard-run switchyard-make-model
# and run, carrying build/threads (about 3 minutes on 16 cores, the model written there first):
#   (cd build/threads/src && for f in *.so.*.*.*; do ln -sf "$f" "${f%.*.*}"; done)
#   LD_LIBRARY_PATH=$PWD/build/threads/src bench/threads.sh build/threads/bin
set -euo pipefail
bin=$(cd "${1:?usage: threads.sh BIN_DIR [MODEL] [ROUNDS] [\"THREADS\"]}" && pwd)
model=${2:-$bin/1b.gguf}
rounds=${3:-3}
if [ -n "${4:-}" ]; then
    threads=$4
else
    cpus=$(nproc)
    threads=""
    for t in 1 2 4 8 16; do
        if ((t <= cpus)); then threads="${threads:+$threads }$t"; fi
    done
fi
if [ ! -f "$model" ]; then
    "$bin/switchyard-make-model" --preset 1b -o "$model" > /dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for ((i = 1; i <= rounds; ++i)); do
    for t in $threads; do
        "$bin/switchyard-run" --bench -m "$model" -p 512 -n 128 -r 2 -t "$t" -o csv > "$work/out.csv" 2> "$work/err.txt" ||
            { cat "$work/err.txt"; exit 1; }
        # "pp512 RATE", "tg128 RATE" from the records; "bound RATE" from the report's bound line
        awk -F'","' -v t="$t" 'NR > 1 { test = ($8 == "0") ? "tg" $9 : "pp" $8; print t, test, $10 }' "$work/out.csv" \
            >> "$work/rates.txt"
        sed -n 's/^tg[0-9]* bound: .* = \([0-9.]*\) t\/s;.*/\1/p' "$work/err.txt" | awk -v t="$t" '{ print t, "bound", $1 }' \
            >> "$work/rates.txt"
    done
    echo "threads.sh: round $i of $rounds done" >&2
done

echo "model: $model; $(nproc) CPUs; threads: $threads; $rounds interleaved rounds, medians"
awk -v list="$threads" '
    { key = $1 " " $2; v[key, ++n[key]] = $3 + 0 }
    function median(key,    i, j, m, a, s) {
        m = n[key]; if (m == 0) return 0
        for (i = 1; i <= m; ++i) a[i] = v[key, i]
        for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) { s = a[i]; a[i] = a[j]; a[j] = s }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        k = split(list, ts, " ")
        base = median(ts[1] " pp512")
        printf "| threads | pp512 t/s | speedup | efficiency | tg128 t/s | DRAM bound t/s | of the bound |\n"
        printf "| ------: | --------: | ------: | ---------: | --------: | -------------: | -----------: |\n"
        for (i = 1; i <= k; ++i) {
            t = ts[i]; pp = median(t " pp512"); tg = median(t " tg128"); bd = median(t " bound")
            sp = base > 0 ? pp / base : 0
            of = bd > 0 ? tg / bd : 0
            printf "| %7d | %9.1f | %7.2f | %10.2f | %9.1f | %14.1f | %12.2f |\n", t, pp, sp, sp * ts[1] / t, tg, bd, of
        }
    }' "$work/rates.txt"
echo "raw (threads test tokens/s):"
cat "$work/rates.txt"
