#!/usr/bin/env bash
# Issue 24's measurement: one model over 2 MPI ranks x T threads against one process x 2T threads on the same
# machine, prompt (ppP) and generation (tgN) speed, tensor and layer split; plus each rank's bytes and MPI time
# per token. Runs interleave (one process, tensor, layer, then again) so that the machine's noise falls on all
# alike; the table gives medians and the ratios to one process.
#
#   bench/mpi_scaling.sh BIN_DIR MODEL [ROUNDS=3] [P=512] [N=128] [T=1]
#
# MODEL: a GGUF file (switchyard-make-model --preset 1b -o 1b.gguf for the 1B-class model).
set -euo pipefail
bin=${1:?usage: mpi_scaling.sh BIN_DIR MODEL [ROUNDS] [P] [N] [T]}
model=${2:?}
rounds=${3:-3}
p=${4:-512}
n=${5:-128}
t=${6:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() { # NAME CMD...: appends "name test rate" lines, keeps the last per-rank table
    local name=$1; shift
    "$@" --bench -r 1 -p "$p" -n "$n" -o csv > "$work/out.csv" 2> "$work/err.txt" || { cat "$work/err.txt"; exit 1; }
    python3 -c '
import csv, sys
for row in csv.DictReader(open(sys.argv[2])):
    test = "tg" + row["n_gen"] if row["n_prompt"] == "0" else "pp" + row["n_prompt"]
    print(sys.argv[1], test, row["avg_ts"])' "$name" "$work/out.csv" >> "$work/rates.txt"
    if grep -q '^ranks' "$work/err.txt"; then
        { echo "$name:"; sed -n '/^ranks/,/^$/p' "$work/err.txt"; } > "$work/traffic-$name.txt"
    fi
}

for ((i = 0; i < rounds; ++i)); do
    bench one "$bin/switchyard-run" -m "$model" -t $((2 * t))
    bench tensor mpirun -np 2 --oversubscribe --bind-to none "$bin/switchyard-run" -m "$model" -t "$t" --split-mode tensor
    bench layer mpirun -np 2 --oversubscribe --bind-to none "$bin/switchyard-run" -m "$model" -t "$t" --split-mode layer
done

echo "model: $model; one process x $((2 * t)) threads against 2 ranks x $t threads; $rounds rounds, medians (tokens/s)"
awk '
    { key = $1 " " $2; v[key, ++n[key]] = $3; tests[$2] = 1; names[$1] = 1 }
    function median(key,    i, j, m, a, t) {
        m = n[key]; for (i = 1; i <= m; ++i) a[i] = v[key, i]
        for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        printf "| test | one process | 2 ranks, tensor | ratio | 2 ranks, layer | ratio |\n|---|---|---|---|---|---|\n"
        for (test in tests) {
            one = median("one " test); ten = median("tensor " test); lay = median("layer " test)
            printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", test, one, ten, ten / one, lay, lay / one
        }
    }' "$work/rates.txt"
cat "$work"/traffic-*.txt 2> /dev/null || true
echo "raw (name test tokens/s):"
cat "$work/rates.txt"
