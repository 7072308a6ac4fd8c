#!/usr/bin/env bash
# llama.cpp's own library on Switchyard's: the prebuilt libllama of llama.cpp release v0.5.0 (npm package
# @node-llama-cpp/linux-x64@3.22.1, ggml 0.25.1), run with our libggml / libggml-base in place of its own, must
# generate switchyard-run's greedy tokens on models from switchyard-make-model (f16, q8_0, q4_K, iq4_xs, tq1_0, tq2_0,
# iq2_xxs, iq3_s, iq1_m, ggml 0.25.1's q1_0, q2_0 and nvfp4, and q6_K with a tied output, which GET_ROWS and MUL_MAT
# both read; weights in the CPU's repacked buffer type and not).
#
#   tests/llama_cpp/run.sh BUILD_DIR [WORK_DIR]
#
# BUILD_DIR: a build of this tree (bin/switchyard-run, bin/switchyard-make-model; installed into WORK_DIR). The packages
# come from the npm registry (node-llama-cpp@3.22.1 for llama.h, from its llama.cpp bundle; the prebuilt
# libraries from @node-llama-cpp/linux-x64@3.22.1) and are kept in WORK_DIR (default ~/.cache/switchyard-llama).
# Where npm or the registry cannot be reached, or on a machine that is not x86-64 Linux, it says so and exits 0
# (skipped). Exit status 1 when a model's tokens differ or a step fails.
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD_DIR [WORK_DIR]}" && pwd)
work=${2:-${HOME}/.cache/switchyard-llama}
here=$(cd "$(dirname "$0")" && pwd)
version=3.22.1
mkdir -p "$work"
cd "$work"

skip() { echo "llama.cpp check: SKIPPED: $*"; exit 0; }
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || skip "the prebuilt libllama is for x86-64 Linux"
command -v npm >/dev/null || skip "npm is not installed"

fetch() { # package tarball -> unpacked folder
    local pkg=$1 dir=$2
    [ -d "$dir" ] && return 0
    local tgz
    tgz=$(timeout 300 npm pack --silent "$pkg" 2>/dev/null | tail -n 1) || return 1
    [ -f "$tgz" ] || return 1
    mkdir -p "$dir.tmp" && tar xzf "$tgz" -C "$dir.tmp" && rm -f "$tgz" && mv "$dir.tmp" "$dir"
}
fetch "@node-llama-cpp/linux-x64@$version" prebuilt || skip "cannot fetch @node-llama-cpp/linux-x64@$version from npm"
if [ ! -f include/llama.h ]; then
    fetch "node-llama-cpp@$version" source || skip "cannot fetch node-llama-cpp@$version from npm"
    rm -rf bundle.git && git clone -q --bare source/package/llama/gitRelease.bundle bundle.git
    mkdir -p include && git --git-dir=bundle.git show HEAD:include/llama.h > include/llama.h
    rm -rf bundle.git source
fi

# one folder: the prebuilt libllama, and our installed libraries under the names it was linked against. No
# LD_LIBRARY_PATH: libllama finds libggml beside itself, and our libggml must find libggml-cpu and libggml-base
# beside itself too (its RUNPATH), as a program that ships the libraries in one folder needs.
rm -rf install && cmake --install "$build" --prefix "$work/install" > /dev/null
bins=prebuilt/package/bins/linux-x64
lib=$work/lib
rm -rf "$lib" && mkdir -p "$lib"
cp "$bins/libllama.v0.5.0.so" "$lib/"
installed=$(ls -d install/lib*/ | head -n 1)
cp -P "$installed"libggml*.so* "$lib/"
cp "$lib/libggml.so" "$lib/libggml.v0.5.0.so"
[ -e "$lib/libggml-base.so" ] || skip "the build has no shared libggml-base (BUILD_SHARED_LIBS=OFF)"
unset LD_LIBRARY_PATH

# the driver, against llama.h and our installed-form headers (the ggml headers llama.h includes)
cc -std=c11 -O1 -Wall -Wextra -I include -I "$here/../../include" "$here/greedy.c" -o greedy \
    -L "$lib" -l:libllama.v0.5.0.so -Wl,-rpath,'$ORIGIN/lib'

status=0
for spec in f16 q8_0 q4_K iq4_xs tq1_0 tq2_0 iq2_xxs iq3_s iq1_m q1_0 q2_0 nvfp4 q6_K+tied; do
    type=${spec%+tied}
    tied=()
    [ "$type" = "$spec" ] || tied=(--tied-output)
    model=$work/model-$spec.gguf
    "$build/bin/switchyard-make-model" -o "$model" --type "$type" "${tied[@]}" > /dev/null
    for repack in "" "--no-repack"; do
        flag=${repack:+-nr}
        want=$("$build/bin/switchyard-run" -m "$model" --tokens 1,2,3,4,5 -n 32 --temp 0 $flag 2>/dev/null |
               grep -o 'generated: [0-9,]*' || true)
        got=$(./greedy "$model" 1,2,3,4,5 32 $repack 2>greedy.err | grep -o 'generated: [0-9,]*' || true)
        if [ -n "$want" ] && [ "$want" = "$got" ]; then
            echo "llama.cpp check: $spec ${repack:-(repacked)}: same 32 tokens"
        else
            echo "llama.cpp check: $spec ${repack:-(repacked)}: DIFFERENT"
            echo "  switchyard-run: ${want:-(none)}"
            echo "  libllama:       ${got:-(none)}"
            sed 's/^/  libllama: /' greedy.err | tail -n 20
            status=1
        fi
    done
done
exit $status
