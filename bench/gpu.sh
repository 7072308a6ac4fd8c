#!/usr/bin/env bash
# Issue 26 item 8: GPU figures on one Vulkan device, in one table. Builds the release preset (GGML_VULKAN on) unless
# given a built tree, then measures with the existing tools:
#   - matrix-vector (decode, 1 column) per weight type, 4096 x 4096 and 14336 x 4096: GB/s (weights, activations
#     and output bytes), and the fraction of the memory bandwidth reference;
#   - GEMM (512 columns) per weight type, 4096 x 4096: TFLOP/s and the fraction of the fp16 reference;
#   - FLASH_ATTN_EXT 512 x 512 (head size 128, 32/8 heads): TFLOP/s; and decode (1 query, 4096 keys): GB/s;
#   - switchyard-run --bench on the 1B preset (switchyard-make-model --preset 1b, q4_K / q6_K), every layer on
#     the device (-ngl 99 --device DEV): pp512 and tg128 in tokens/s.
# The op cases run through `switchyard-ops perf --case` (tools/ops/case_spec.h), one process per case so that a
# failing case costs only its row. Each case stacks copies of its op in one dispatch (`copies=`, or `mib=` for
# 1 GiB of weights), so a run moves enough data to hide the submit-and-wait cost of a GPU and to keep the weights
# out of its 50 MiB L2; the table shows that cost ("per-run floor", a 1 MiB copy).
#
# References, measured in the same run unless given:
#   memory: a 1 GiB f32 copy (DUP, read + write), or --hbm-gbs N (the H200's data sheet says 4800 GB/s);
#   fp16:   an 8192^3 f16 x f16 GEMM of our own shaders, or --fp16-peak T in TFLOP/s (the H200's dense fp16
#           tensor peak is 989). Vulkan reports no peak: a driver's cooperative-matrix properties give shapes,
#           not rates, and our Vulkan backend does not use cooperative matrices yet, so the measured reference is
#           our own best f16 GEMM and the fraction of it says how even the types are, not how close to the chip.
#
#   bench/gpu.sh [--quick] [--build-dir DIR] [--device NAME] [--hbm-gbs N] [--fp16-peak T] [--first N]
#                [--only REGEX] [--no-model] [--model FILE] [--max-time S] [--budget S] [--pack DIR]
#
#   --quick          small sizes and short timings, for lavapipe (Mesa's CPU driver); minutes there
#   --build-dir DIR  a built tree (bin/switchyard-ops, -run, -make-model; src/*.so): no build
#   --device NAME    the Vulkan device (default $SY_GPU_DEVICE, else the first Vulkan device listed)
#   --first N        only the first N op cases (and then no model unless --model)
#   --only REGEX     only the op cases whose label matches REGEX (grep -E; and then no model unless --model)
#   --no-model       no switchyard-run --bench
#   --model FILE     bench this GGUF instead of writing the 1B preset
#   --max-time S     seconds per op case for switchyard-ops perf (default 2, --quick 0.3)
#   --budget S       stop starting op cases after S seconds (default 360), so a pathologically slow kernel
#                    cannot push the run past the 8 minutes a lent machine gives it; skipped rows say so
#   --pack DIR       build without MPI (build/gpu-pack: the device image has no Open MPI), copy the programs and
#                    libraries into DIR (about 5 MiB, no links) and stop: DIR is what --build-dir takes elsewhere
# Lavapipe is used only when GGML_VK_VISIBLE_DEVICES names it (it never shadows a GPU):
#   GGML_VK_VISIBLE_DEVICES=0 bench/gpu.sh --quick
#
# On a lent device machine (see /work/.library/device/README.md), the build happens here, the run there:
#   1. here, once, in the repository root (the checkout the session was started in: only it travels; .gpu-build
#      and .gl are git-ignored, so they travel only when carry names them):
#        bench/gpu.sh --pack .gpu-build
#        mkdir -p .gl /tmp/amd64/partial; o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#        apt-get $o update; (cd .gl && apt-get $o download libvulkan1)
#   2. one `run` call with carry [".gpu-build", ".gl"] and timeout_s 540:
#        for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#        set -o pipefail; bench/gpu.sh --build-dir .gpu-build --hbm-gbs 4800 --fp16-peak 989 2>&1 | tee $OUT/gpu.txt
#      The script sets VK_DRIVER_FILES to /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json when the loader
#      finds no device without it. The H200 run should take 3-5 minutes (about 30 op cases of a few seconds
#      each, most of it making and uploading inputs, then writing the 1B model and its bench); --budget keeps
#      the op cases under 6. A second call to rerun some rows: --only 'GEMM|FA' --no-model.
set -euo pipefail

quick=0 build_dir="" device="${SY_GPU_DEVICE:-}" hbm_ref="" fp16_ref="" first=0 only="" run_model=1 model="" max_time="" pack="" budget=360
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
        --device) device=${2:?--device needs a name}; shift ;;
        --hbm-gbs) hbm_ref=${2:?--hbm-gbs needs GB/s}; shift ;;
        --fp16-peak) fp16_ref=${2:?--fp16-peak needs TFLOP/s}; shift ;;
        --first) first=${2:?--first needs a count}; shift ;;
        --only) only=${2:?--only needs a pattern}; shift ;;
        --no-model) run_model=0 ;;
        --model) model=${2:?--model needs a file}; shift ;;
        --max-time) max_time=${2:?--max-time needs seconds}; shift ;;
        --pack) pack=${2:?--pack needs a folder}; shift ;;
        --budget) budget=${2:?--budget needs seconds}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$max_time" ] || max_time=$([ $quick = 1 ] && echo 0.3 || echo 2)
root=$(cd "$(dirname "$0")/.." && pwd)
t_start=$(date +%s)

# --- build (or take a built tree) -------------------------------------------------------------------------
build() { # DIR [cmake -D..]: configures the release preset into DIR and builds the three programs
    local dir=$1; shift
    (cd "$root" && cmake --preset release -B "$dir" "$@" > /dev/null &&
        cmake --build "$dir" --target switchyard-ops switchyard-run switchyard-make-model > /dev/null) ||
        { echo "gpu.sh: the build failed (cd $root && cmake --build $dir)" >&2; exit 1; }
    if ! grep -q '^GGML_VULKAN:BOOL=ON' "$dir/CMakeCache.txt"; then
        echo "gpu.sh: $dir is built without GGML_VULKAN (it needs libvulkan-dev and glslc)" >&2; exit 1
    fi
}
if [ -z "$build_dir" ]; then
    build_dir=$root/build/$([ -n "$pack" ] && echo gpu-pack || echo release)
    if [ -n "$pack" ]; then build "$build_dir" -DGGML_MPI=OFF; else build "$build_dir"; fi
fi
build_dir=$(cd "$build_dir" && pwd)
for p in switchyard-ops switchyard-run switchyard-make-model; do
    [ -x "$build_dir/bin/$p" ] || { echo "gpu.sh: $build_dir/bin/$p is missing" >&2; exit 1; }
done
if [ -n "$pack" ]; then
    mkdir -p "$pack/bin" "$pack/src"
    cp "$build_dir"/bin/switchyard-{ops,run,make-model} "$pack/bin/"
    cp -L "$build_dir"/src/lib*.so.0 "$pack/src/" # the names the programs ask for, as plain files
    echo "gpu.sh: packed $(du -sh "$pack" | cut -f1) into $pack (use --build-dir $pack)"
    exit 0
fi
# the programs' RUNPATH names the folder they were built in; a carried tree lies elsewhere
export LD_LIBRARY_PATH=$build_dir/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ops=$build_dir/bin/switchyard-ops run=$build_dir/bin/switchyard-run make_model=$build_dir/bin/switchyard-make-model
if missing=$(ldd "$ops" "$run" 2>/dev/null | grep 'not found'); then
    echo "gpu.sh: libraries missing here: $(echo "$missing" | awk '{ printf "%s ", $1 }')" >&2
    echo "  (libvulkan.so.1: unpack the libvulkan1 .deb (header); libmpi: pack with --pack, which builds without MPI)" >&2
    exit 1
fi

devices=$("$run" --list-devices 2>&1 || true)
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json # where the lent machines keep it
if ! echo "$devices" | grep -q '^ *Vulkan[0-9]' && [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ]; then
    export VK_DRIVER_FILES=$nvidia_icd
    devices=$("$run" --list-devices 2>&1 || true)
fi
[ -n "$device" ] || device=$(echo "$devices" | awk '$1 ~ /^Vulkan[0-9]+$/ { print $1; exit }')
if [ -z "$device" ] || ! echo "$devices" | awk -v d="$device" '$1 == d { f = 1 } END { exit !f }'; then
    echo "gpu.sh: no Vulkan device${device:+ named $device}. $devices" >&2
    echo "  (lavapipe: GGML_VK_VISIBLE_DEVICES=0; NVIDIA: VK_DRIVER_FILES=.../nvidia_icd.json and libvulkan1)" >&2
    exit 1
fi
device_desc=$(echo "$devices" | awk -v d="$device" '$1 == d { $1 = ""; sub(/^ +/, ""); print }')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- the op cases ----------------------------------------------------------------------------------------
# label | kind (bw: GB/s against the memory reference, fl: TFLOP/s against fp16, ref-*: a reference) | spec
if [ $quick = 1 ]; then
    d_m=1024 d_m2=3584 d_k=1024 g_m=1024 g_n=64 g_k=1024 mib=8 g_copies=2 fa_q=64 fa_kv=128 fa_h=8/2 fa_copies=2
    dec_kv=512 dec_copies=2 ref_n=512 copy_mib=32
else
    d_m=4096 d_m2=14336 d_k=4096 g_m=4096 g_n=512 g_k=4096 mib=1024 g_copies=8 fa_q=512 fa_kv=512 fa_h=32/8 fa_copies=16
    dec_kv=4096 dec_copies=64 ref_n=8192 copy_mib=1024
fi
types="f32 f16 bf16 q4_0 q8_0 q4_K q6_K iq4_nl"
# cheap cases first (--first N on a slow driver), the table reads by section: matrix-vector, GEMM, attention
cases=("per-run floor (1 MiB copy)|floor|dup:mib=1"
       "memory copy ${copy_mib} MiB|ref-bw|dup:mib=$copy_mib")
for t in $types; do
    cases+=("matvec $t ${d_m}x${d_k}|bw|mul_mat:type=$t,m=$d_m,n=1,k=$d_k,mib=$mib"
            "matvec $t ${d_m2}x${d_k}|bw|mul_mat:type=$t,m=$d_m2,n=1,k=$d_k,mib=$mib")
done
cases+=("FA decode 1x${dec_kv} hs128 ${fa_h}|bw|flash_attn:d=128,n_q=1,n_kv=$dec_kv,heads=$fa_h,copies=$dec_copies")
for t in $types; do
    cases+=("GEMM $t ${g_m}x${g_k} n=$g_n|fl|mul_mat:type=$t,m=$g_m,n=$g_n,k=$g_k,copies=$g_copies")
done
cases+=("FA ${fa_q}x${fa_kv} hs128 ${fa_h}|fl|flash_attn:d=128,n_q=$fa_q,n_kv=$fa_kv,heads=$fa_h,copies=$fa_copies"
        "f16 x f16 GEMM ${ref_n}^3|ref-fl|mul_mat:type=f16,type_b=f16,m=$ref_n,n=$ref_n,k=$ref_n")
if [ "$first" -gt 0 ]; then
    cases=("${cases[@]:0:$first}")
    [ -n "$model" ] || run_model=0
fi
if [ -n "$only" ]; then
    kept=()
    for c in "${cases[@]}"; do echo "${c%%|*}" | grep -qE -- "$only" && kept+=("$c"); done
    cases=("${kept[@]}")
    [ -n "$model" ] || run_model=0
fi

# Runs one spec; prints its row "label|kind|median_ms|rate|unit|spread|stable". The device may refuse a case
# whose tensors exceed what one descriptor binds (maxStorageBufferRange: 128 MiB on lavapipe) in an op the
# backend does not split (FLASH_ATTN_EXT): then it is run once more with an eighth of the copies.
measure() {
    local label=$1 kind=$2 spec=$3 left out row n
    left=$((budget - ($(date +%s) - t_start)))
    if [ "$left" -le 0 ]; then
        echo "$label|$kind|-|-|skipped (--budget)|-|-"
        return
    fi
    echo "gpu.sh: $label ($spec)" >&2
    out=$(timeout "$left" "$ops" perf -b "$device" --no-progress --max-time "$max_time" --case "$spec" 2>&1) || true
    row=$(echo "$out" | awk -v d="$device" -v l="$label" -v k="$kind" '
        $1 == d && $3 == "unsupported" { print l "|" k "|-|-|unsupported|-|-"; f = 1 }
        $1 == d && $3 == "compute"     { print l "|" k "|-|-|compute failed|-|-"; f = 1 }
        $1 == d && $4 == "ms"          { print l "|" k "|" $3 "|" $5 "|" $6 "|" $7 "|" $NF; f = 1 }
        END { if (!f) print l "|" k "|-|-|no result|-|-" }')
    echo "$out" | grep -qE "^$device " || echo "$out" | tail -5 >&2
    n=$(echo "$spec" | sed -n 's/.*copies=\([0-9]*\).*/\1/p')
    if [[ "$row" == *"|unsupported|"* ]] && [ "${n:-1}" -ge 8 ]; then
        measure "$label, copies=$((n / 8))" "$kind" "${spec/copies=$n/copies=$((n / 8))}"
        return
    fi
    echo "$row"
}

# one perf process per case (a failing case costs only its row)
: > "$work/rows"
for c in "${cases[@]}"; do
    IFS='|' read -r label kind spec <<< "$c"
    measure "$label" "$kind" "$spec" >> "$work/rows"
done

# --- the model -------------------------------------------------------------------------------------------
if [ $run_model = 1 ]; then
    if [ -z "$model" ]; then
        preset=$([ $quick = 1 ] && echo tiny || echo 1b)
        model=$work/$preset.gguf
        echo "gpu.sh: writing the $preset preset" >&2
        "$make_model" --preset "$preset" -o "$model" --no-progress > /dev/null
    fi
    pp=$([ $quick = 1 ] && echo 64 || echo 512) tg=$([ $quick = 1 ] && echo 16 || echo 128) reps=$([ $quick = 1 ] && echo 1 || echo 3)
    echo "gpu.sh: switchyard-run --bench -m $(basename "$model") --device $device -ngl 99 -p $pp -n $tg -r $reps" >&2
    if "$run" --bench -m "$model" --device "$device" -ngl 99 -p "$pp" -n "$tg" -r "$reps" > "$work/bench.txt" 2>&1; then
        awk -F'|' '$7 ~ /^ *(pp|tg)[0-9]+ *$/ { gsub(/ /, "", $7); split($8, a, "±"); gsub(/ /, "", a[1]); gsub(/ /, "", $5)
                     print "switchyard-run " $7 " on " $5 "|tps|-|" a[1] "|t/s|-|-" }' "$work/bench.txt" >> "$work/rows"
    else
        echo "switchyard-run --bench|tps|-|-|failed|-|-" >> "$work/rows"
        tail -5 "$work/bench.txt" >&2
    fi
fi

# --- the table -------------------------------------------------------------------------------------------
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo
echo "Switchyard GPU figures: $device ($device_desc), $([ $quick = 1 ] && echo quick || echo full) mode, commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC')"
awk -F'|' -v hbm="$hbm_ref" -v fp16="$fp16_ref" '
    { label[NR] = $1; kind[NR] = $2; ms[NR] = $3; rate[NR] = $4; unit[NR] = $5; spread[NR] = $6; stab[NR] = $7
      if ($2 == "ref-bw" && $4 != "-") mbw = $4
      if ($2 == "ref-fl" && $4 != "-") mfl = $4 / 1000 }
    END {
        bw = hbm != "" ? hbm : mbw; fl = fp16 != "" ? fp16 : mfl
        printf "memory reference: %s (%s); fp16 reference: %s (%s)\n",
            bw == "" ? "none" : sprintf("%.4g GB/s", bw), hbm != "" ? "--hbm-gbs, measured copy " (mbw == "" ? "-" : sprintf("%.4g", mbw)) : "measured copy",
            fl == "" ? "none" : sprintf("%.4g TFLOP/s", fl), fp16 != "" ? "--fp16-peak, measured f16 GEMM " (mfl == "" ? "-" : sprintf("%.4g", mfl)) : "measured f16 GEMM of our shaders"
        printf "| %-38s | %11s | %16s | %-14s | %6s |\n", "case", "median ms", "rate", "fraction", "spread"
        printf "| %s | %s | %s | %s | %s |\n", "--------------------------------------", "----------:", "---------------:", "--------------", "-----:"
        for (i = 1; i <= NR; ++i) {
            r = "-"; f = "-"
            if (unit[i] == "GB/s") {
                r = sprintf("%.4g GB/s", rate[i])
                if (kind[i] == "bw" && bw > 0) f = sprintf("%.2f of memory", rate[i] / bw)
            } else if (unit[i] == "GFLOP/s") {
                r = sprintf("%.4g TFLOP/s", rate[i] / 1000)
                if ((kind[i] == "fl" || kind[i] == "ref-fl") && fl > 0) f = sprintf("%.2f of fp16", rate[i] / 1000 / fl)
            } else if (unit[i] == "t/s") {
                r = sprintf("%.4g t/s", rate[i])
            } else r = unit[i]
            if (kind[i] == "floor") { r = "-"; f = "submit + wait" }
            s = spread[i] == "-" ? "-" : spread[i] (stab[i] == "UNSTABLE" ? "!" : "")
            printf "| %-38s | %11s | %16s | %-14s | %6s |\n", label[i], ms[i], r, f, s
        }
    }' "$work/rows"
echo "(spread: (max - min) / median of the last 5 timed batches; '!' = not within 5% before --max-time $max_time s)"
echo "gpu.sh: $(($(date +%s) - t_start)) s in all"
