#!/usr/bin/env bash
# Prompt speed side by side: the prebuilt llama.cpp release v0.5.0 (npm @node-llama-cpp/linux-x64@3.22.1, its own
# ggml with its CPU variants and AMX buffer type), the same libllama on this build's libraries, and
# switchyard-run --bench, on one model, interleaved (bench/llama_pp.c is the driver for the first two).
#
#   bench/llama_cpp_pp.sh BUILD_DIR [MODEL.gguf] [ROUNDS]
#
# MODEL: default the 1b preset of switchyard-make-model, written once to WORK_DIR/1b.gguf. The prebuilt packages
# and our libraries in libllama's folder come from tests/llama_cpp/run.sh, which runs first (it fetches from npm
# into WORK_DIR, default ~/.cache/switchyard-llama, and skips where npm cannot be reached). 2 threads, pp512.
set -euo pipefail
build=$(cd "${1:?usage: llama_cpp_pp.sh BUILD_DIR [MODEL.gguf] [ROUNDS]}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK_DIR:-${HOME}/.cache/switchyard-llama}
rounds=${3:-2}
"$here/../tests/llama_cpp/run.sh" "$build" "$work" | tail -n 1
bins=$work/prebuilt/package/bins/linux-x64
if [ ! -f "$work/lib/libllama.v0.5.0.so" ] || [ ! -d "$bins" ]; then
    echo "llama_cpp_pp: no prebuilt llama.cpp (see above)"
    exit 0
fi
model=${2:-$work/1b.gguf}
[ -f "$model" ] || "$build/bin/switchyard-make-model" --preset 1b -o "$model" > /dev/null
unset LD_LIBRARY_PATH
flags=(-std=c11 -O2 -Wall -Wextra -I "$work/include" -I "$here/../include")
# one driver beside the prebuilt libraries (their ggml loads its CPU variant from the program's folder), one
# beside ours; $ORIGIN is for the dynamic linker, not the shell
# shellcheck disable=SC2016
cc "${flags[@]}" "$here/llama_pp.c" -o "$bins/llama_pp" -L "$bins" -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so \
    -Wl,-rpath,'$ORIGIN'
# shellcheck disable=SC2016
cc "${flags[@]}" "$here/llama_pp.c" -o "$work/llama_pp" -L "$work/lib" -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so \
    -Wl,-rpath,'$ORIGIN/lib'
for ((i = 1; i <= rounds; ++i)); do
    echo "round $i"
    echo "  prebuilt llama.cpp:        $("$bins/llama_pp" "$model" 512 3 2)"
    echo "  its libllama on ours:      $("$work/llama_pp" "$model" 512 3 2)"
    echo "  switchyard-run --bench:    $("$build/bin/switchyard-run" --bench -m "$model" -p 512 -n 0 -r 3 2>&1 |
        awk -F'|' '/pp512/ { print $8 }')"
done
