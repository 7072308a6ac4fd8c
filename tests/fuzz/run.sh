#!/usr/bin/env bash
# Builds the GGUF fuzzers with clang (the whole library instrumented: libFuzzer coverage, AddressSanitizer and
# UndefinedBehaviorSanitizer) in build/fuzz, then runs each harness for a bounded time on a scratch copy of the
# seed corpus (tests/fuzz/corpus/gguf stays as committed). A crash, leak or sanitizer report fails the script
# and leaves the input that caused it in build/fuzz/artifacts/.
#
#   tests/fuzz/run.sh [seconds per harness, default 60]
#
# Reproduce a failure: build/fuzz/bin/gguf_fuzz_buffer build/fuzz/artifacts/crash-<hash>
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
if ! [[ $seconds =~ ^[0-9]+$ ]] || (( seconds < 1 )); then
    echo "usage: tests/fuzz/run.sh [seconds per harness, at least 1]" >&2 # (libFuzzer takes 0 as "no limit")
    exit 2
fi
build=${SWITCHYARD_FUZZ_BUILD:-build/fuzz}
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DSWITCHYARD_FUZZ=ON -DGGML_BUILD_EXAMPLES=OFF -DGGML_BUILD_BENCHMARKS=OFF -DGGML_VULKAN=OFF -DGGML_MPI=OFF -DGGML_CUDA=OFF \
    >/dev/null
cmake --build "$build" --target gguf_fuzz_buffer gguf_fuzz_file

mkdir -p "$build/artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for harness in buffer file; do
    echo "== gguf_fuzz_$harness: $seconds s"
    rm -rf "${scratch:?}"/* && mkdir -p "$scratch/new"
    # new inputs go to the first directory (scratch); the committed corpus is only read
    set +e
    "$build/bin/gguf_fuzz_$harness" -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/" "$scratch/new" tests/fuzz/corpus/gguf \
        >"$scratch/log" 2>&1
    status=$?
    set -e
    grep -E "^(INFO: seed corpus|#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)" \
        "$scratch/log" || true
    if [[ $status -ne 0 ]]; then
        tail -n 60 "$scratch/log" >&2
        echo "gguf_fuzz_$harness failed (exit $status): the input is in $build/artifacts/" >&2
        exit 1
    fi
done
