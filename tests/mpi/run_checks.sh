#!/usr/bin/env bash
# switchyard-run under mpirun (tests/mpi/CMakeLists.txt runs each check as a test):
#
#   run_checks.sh CHECK BIN_DIR WORK_DIR
#
#   tokens TYPE     models of TYPE (f16, q4_K) from switchyard-make-model: the greedy tokens of 2 and 3 ranks,
#                   tensor and layer split, equal one process's
#   memory          2 ranks, tensor split: each rank holds less than 0.6 x the single process's weights
#   missing-file    the model missing on rank 1 only: every rank ends, non-zero, naming rank 1, within 10 s
#   other-args      rank 1 started with other arguments: the same
#   killed-rank     rank 1 killed mid-run: the job ends, non-zero, within 10 s
#   vulkan          ranks with their local devices: a layer split over rank 0's Vulkan device and rank 1's CPU, and
#                   a tensor split over both devices of both ranks, give one process's tokens (GGML_VK_VISIBLE_DEVICES
#                   0, lavapipe on a machine without a GPU; skipped without a Vulkan device)
set -euo pipefail
check=${1:?usage: run_checks.sh CHECK BIN_DIR WORK_DIR}
bin=${2:?}
work=${3:?}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared memory without the kernel's cross-memory attach, which containers often forbid
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun_n() { local n=$1; shift; mpirun -np "$n" --oversubscribe --bind-to none "$@"; }

fail() { echo "FAILED: $*"; exit 1; }

# make_model NAME ARGS..: a model in WORK_DIR, written once
make_model() {
    local file=$work/$1.gguf; shift
    [ -f "$file" ] || "$bin/switchyard-make-model" --no-progress -o "$file" "$@" > /dev/null
    echo "$file"
}

generated() { sed -n 's/^generated: //p' <<< "$1"; }

# a model whose layers hold most of the weights (4 layers of 256 x 768), 4 KV heads: divisible among 2 and 3 ranks
model_args=(--dim 256 --ff 768 --layers 4 --heads 4 --kv-heads 4 --vocab 320)
run_args=(--tokens 1,2,3,4,5,6,7,8 -n 24 --temp 0 -t 1)

case "$check" in
tokens)
    type=${4:-f16}
    model=$(make_model "mpi-$type" "${model_args[@]}" --type "$type")
    one=$("$bin/switchyard-run" -m "$model" "${run_args[@]}")
    want=$(generated "$one")
    [ -n "$want" ] || fail "one process printed no tokens: $one"
    echo "one process: $want"
    for n in 2 3; do
        for mode in layer tensor; do
            out=$(mpirun_n "$n" "$bin/switchyard-run" -m "$model" "${run_args[@]}" --split-mode "$mode" 2>&1) ||
                fail "$n ranks, $mode split: exit status $?: $out"
            got=$(generated "$out")
            echo "$n ranks, $mode split: $got"
            [ "$got" = "$want" ] || fail "$n ranks, $mode split: other tokens than one process: $out"
            grep -q "ranks, generation" <<< "$out" || fail "$n ranks, $mode split: no per-rank table: $out"
        done
    done
    ;;
memory)
    model=$(make_model mpi-f16 "${model_args[@]}" --type f16)
    one=$("$bin/switchyard-run" -m "$model" "${run_args[@]}" -nr)
    total=$(stat -c %s "$model")
    out=$(mpirun_n 2 "$bin/switchyard-run" -m "$model" "${run_args[@]}" --split-mode tensor 2>&1) || fail "exit status $?: $out"
    echo "$out" | sed -n '/^ranks, generation/,/^$/p'
    # the table's rows: rank, weights MiB, ...
    rows=$(sed -n '/^ranks, generation/,/^$/p' <<< "$out" | awk '$1 ~ /^[0-9]+$/ {print $1, $2}')
    [ "$(wc -l <<< "$rows")" -eq 2 ] || fail "expected two ranks in the table: $out"
    while read -r r mib; do
        awk -v r="$r" -v mib="$mib" -v total="$total" 'BEGIN {
            ratio = mib * 1048576 / total
            printf "rank %d holds %.2f MiB of weights: %.3f of the file'\''s %.2f MiB\n", r, mib, ratio, total / 1048576
            exit !(ratio > 0.3 && ratio < 0.6) }' || fail "rank $r holds too much (or too little)"
    done <<< "$rows"
    ;;
missing-file | other-args | killed-rank)
    model=$(make_model mpi-f16 "${model_args[@]}" --type f16)
    case "$check" in
    missing-file) rank1=(-m "$work/absent.gguf" "${run_args[@]}"); expect="rank 1 failed: cannot open '$work/absent.gguf'" ;;
    other-args)   rank1=(-m "$model" "${run_args[@]}" -n 25); expect="rank 1 was started with other arguments than rank 0" ;;
    killed-rank)  rank1=(-m "$model" --tokens 1 -n -1 -c 20000 --temp 0 -t 1); expect="" ;;
    esac
    # rank 0 runs long (the whole context), so only a failure ends the job early
    rank0=(-m "$model" --tokens 1 -n -1 -c 20000 --temp 0 -t 1)
    [ "$check" = killed-rank ] || rank0=(-m "$model" "${run_args[@]}")
    script=$work/rank-$check.sh
    {
        echo '#!/usr/bin/env bash'
        echo "if [ \"\$OMPI_COMM_WORLD_RANK\" = 1 ]; then"
        [ "$check" = killed-rank ] && echo '  (sleep 3; kill -9 $$) &'
        printf '  exec %q' "$bin/switchyard-run"; printf ' %q' "${rank1[@]}"; echo
        echo 'fi'
        printf 'exec %q' "$bin/switchyard-run"; printf ' %q' "${rank0[@]}"; echo
    } > "$script"
    chmod +x "$script"
    start=$SECONDS
    status=0
    out=$(timeout 60 mpirun -np 2 --oversubscribe --bind-to none "$script" 2>&1) || status=$?
    took=$((SECONDS - start))
    echo "$out" | tail -n 15
    echo "exit status $status after $took s"
    [ "$status" -ne 0 ] || fail "the job succeeded"
    [ "$status" -ne 124 ] || fail "the job hung (stopped by timeout after 60 s)"
    if [ "$check" = killed-rank ]; then
        [ "$took" -le 13 ] || fail "the job took $took s to end (3 s before the kill, at most 10 s after)"
    else
        [ "$took" -le 10 ] || fail "the job took $took s to end"
        grep -qF "$expect" <<< "$out" || fail "no message '$expect'"
    fi
    ;;
vulkan)
    export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
    if ! mpirun_n 2 -x GGML_VK_VISIBLE_DEVICES "$bin/switchyard-run" --list-devices 2>/dev/null | grep -q 'MPI1:Vulkan0'; then
        echo "PASSED: vulkan (skipped: no Vulkan device)"
        exit 0
    fi
    model=$(make_model mpi-f16 "${model_args[@]}" --type f16)
    want=$(generated "$("$bin/switchyard-run" -m "$model" "${run_args[@]}")")
    for setup in "layer MPI0:Vulkan0,MPI1:CPU" "tensor MPI0:CPU,MPI1:Vulkan0" "tensor MPI0:CPU,MPI0:Vulkan0,MPI1:CPU,MPI1:Vulkan0"; do
        read -r mode devices <<< "$setup"
        out=$(mpirun_n 2 -x GGML_VK_VISIBLE_DEVICES "$bin/switchyard-run" -m "$model" "${run_args[@]}" --split-mode "$mode" \
              --device "$devices" 2>&1) || fail "$mode split over $devices: exit status $?: $out"
        got=$(generated "$out")
        echo "$mode split over $devices: $got"
        [ "$got" = "$want" ] || fail "$mode split over $devices: other tokens than one process ($want): $out"
    done
    ;;
*) echo "unknown check $check"; exit 2 ;;
esac
echo "PASSED: $check"
