#!/usr/bin/env bash
# llama.cpp on Switchyard: builds llama.cpp release v0.5.0 (the release whose ggml, 0.25.1, Switchyard implements)
# against an install of this tree, with llama.cpp's own ggml left out (LLAMA_USE_SYSTEM_GGML=ON, find_package(ggml)
# finding ours), and puts llama-cli, llama-completion, llama-bench, test-backend-ops and test-llama-archs into
# PREFIX/bin beside Switchyard's programs. test-llama-archs runs every model architecture llama.cpp knows (random
# weights, dense and MoE) on every device and the meta device, against the CPU, and saves and reloads each model.
#
#   scripts/llama-cpp.sh [--prefix DIR] [--build-dir DIR] [--jobs N]
#
#   --prefix DIR     where this tree is installed and the llama.cpp programs go (default: build/llama-prefix)
#   --build-dir DIR  llama.cpp's build folder (default: build/llama.cpp)
#   --jobs N         parallel compile jobs, for both builds (default: the number of CPUs)
#
# Steps: (1) the llama.cpp source, from the npm package node-llama-cpp@3.22.1 (its llama/gitRelease.bundle, a git
# bundle of the v0.5.0 tree), cloned once into SWITCHYARD_LLAMA_SRC (default ~/.cache/switchyard-llama-src) and
# reused from there: only this step needs the network, and only the first time; (2) this tree: build/release (made
# with `cmake --preset release` if it does not exist) is built and installed into PREFIX; (3) llama.cpp is
# configured against PREFIX and only the five programs are built, with no downloads (no OpenSSL, no prebuilt web
# UI, no examples, no app); llama.cpp's own libraries are linked in statically, so the programs need only
# Switchyard's libraries, which they find at ../lib beside their folder (RUNPATH $ORIGIN/../lib): run them from
# PREFIX/bin, not from the build folder. Exit status 1, naming the step, on a failure.
#
# llama-cli of this release is the chat program (it applies the model's chat template; -st: one turn); the plain
# prompt-continuation program is llama-completion (-no-cnv). llama-cli is part of llama.cpp's server tools, so the
# server option (LLAMA_BUILD_SERVER) stays on; only the targets named here are built, llama-server is not.
set -euo pipefail

version=3.22.1   # node-llama-cpp, whose bundle is llama.cpp v0.5.0
tag=v0.5.0
repo=$(cd "$(dirname "$0")/.." && pwd)
prefix=$repo/build/llama-prefix
build_dir=$repo/build/llama.cpp
jobs=$(nproc 2>/dev/null || echo 2)
src_cache=${SWITCHYARD_LLAMA_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/switchyard-llama-src}
targets=(llama-cli llama-completion llama-bench test-backend-ops test-llama-archs)

usage() { sed -n '7,11p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "llama-cpp.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case $1 in
        --prefix)    [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
        --build-dir) [ $# -ge 2 ] || die "--build-dir needs a folder"; build_dir=$2; shift 2 ;;
        --jobs)      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive number"; jobs=$2; shift 2 ;;
        -h|--help)   usage; exit 0 ;;
        *)           usage >&2; die "unknown argument '$1'" ;;
    esac
done
mkdir -p "$prefix" "$build_dir" || die "cannot create $prefix or $build_dir"
prefix=$(cd "$prefix" && pwd)
build_dir=$(cd "$build_dir" && pwd)
for tool in cmake git; do
    command -v "$tool" > /dev/null || die "$tool is not installed (scripts/install-deps.sh installs the build tools)"
done

step="starting"
trap 'echo "llama-cpp.sh: FAILED: $step (exit status $?)" >&2' ERR
begin() { step=$1; echo "== llama-cpp.sh: $step"; }

# (1) the source
src=$src_cache/llama.cpp
if [ -f "$src/CMakeLists.txt" ] && [ -f "$src_cache/tag" ] && [ "$(cat "$src_cache/tag")" = "$tag" ]; then
    echo "== llama-cpp.sh: llama.cpp $tag source: $src (cached)"
else
    begin "fetching llama.cpp $tag (npm package node-llama-cpp@$version) into $src_cache"
    command -v npm > /dev/null || die "npm is not installed; it fetches node-llama-cpp@$version, whose bundle is the source"
    rm -rf "$src_cache" && mkdir -p "$src_cache/npm"
    (cd "$src_cache/npm" && timeout 600 npm pack --silent "node-llama-cpp@$version" > /dev/null) ||
        die "npm pack node-llama-cpp@$version failed (is the npm registry reachable?)"
    tar xzf "$src_cache/npm/node-llama-cpp-$version.tgz" -C "$src_cache/npm" package/llama
    got=$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$src_cache/npm/package/llama/llama.cpp.info.json")
    [ "$got" = "$tag" ] || die "node-llama-cpp@$version bundles llama.cpp '$got', not $tag"
    git -c advice.detachedHead=false clone -q "$src_cache/npm/package/llama/gitRelease.bundle" "$src"
    rm -rf "$src_cache/npm"
    echo "$tag" > "$src_cache/tag"
fi

# (2) this tree, installed into the prefix
sy_build=$repo/build/release
if [ ! -f "$sy_build/CMakeCache.txt" ]; then
    begin "configuring Switchyard (cmake --preset release)"
    (cd "$repo" && cmake --preset release > /dev/null)
fi
begin "building Switchyard ($sy_build)"
cmake --build "$sy_build" -j "$jobs"
begin "installing Switchyard into $prefix"
cmake --install "$sy_build" --prefix "$prefix" > /dev/null
config=$(find "$prefix" -maxdepth 4 -path "$prefix/lib*/cmake/ggml/ggml-config.cmake" | head -n 1)
[ -n "$config" ] || die "no lib*/cmake/ggml/ggml-config.cmake under $prefix after the install"
libdir=$(dirname "$(dirname "$(dirname "$config")")")

# (3) llama.cpp against it
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
begin "configuring llama.cpp against $prefix (LLAMA_USE_SYSTEM_GGML=ON)"
cmake -S "$src" -B "$build_dir" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_USE_SYSTEM_GGML=ON \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -Dggml_DIR="$(dirname "$config")" \
    -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_LLGUIDANCE=OFF \
    -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH="\$ORIGIN/../${libdir##*/}" \
    > "$build_dir/configure.log" 2>&1 ||
    { tail -n 30 "$build_dir/configure.log" >&2; die "llama.cpp's configure failed (log: $build_dir/configure.log)"; }
begin "building llama.cpp: ${targets[*]}"
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"

begin "copying the programs into $prefix/bin"
for t in "${targets[@]}"; do
    install -m 755 "$build_dir/bin/$t" "$prefix/bin/$t"
done
# with shared libraries (BUILD_SHARED_LIBS, on by default), they must load the ones just installed, not some
# other libggml of the system
if [ -e "$libdir/libggml.so" ]; then
    linked=$(ldd "$prefix/bin/llama-bench" | sed -n 's/^[[:space:]]*libggml\.so[^ ]* => \([^ ]*\).*/\1/p')
    [ -z "$linked" ] || linked=$(readlink -f "$linked")
    case $linked in
        "$(readlink -f "$libdir")"/*) ;;
        *) die "$prefix/bin/llama-bench loads libggml from '${linked:-nowhere}', not from $libdir" ;;
    esac
fi
step="done"

cat <<EOF
== llama-cpp.sh: llama.cpp $tag on Switchyard, in $prefix/bin:
  $prefix/bin/llama-cli -m MODEL.gguf -p "hello" -n 16 -st        # chat, one turn
  $prefix/bin/llama-completion -m MODEL.gguf -p "hello" -n 16 -no-cnv
  $prefix/bin/llama-bench -m MODEL.gguf                              # pp512 / tg128
  $prefix/bin/test-backend-ops support -b CPU                        # the op cases the CPU computes
  $prefix/bin/test-backend-ops perf -o MUL_MAT -b CPU -p type_a=q4_K  # (without -b it skips the CPU)
  $prefix/bin/test-llama-archs -s 42                                 # every architecture on every device
(a model to try: $prefix/bin/switchyard-make-model --preset 1b --type q4_K -o MODEL.gguf)
EOF
