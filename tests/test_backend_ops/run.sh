#!/usr/bin/env bash
# Upstream's differential op test on our libraries: test-backend-ops of llama.cpp release v0.5.0 (ggml 0.25.1),
# its tests/test-backend-ops.cpp taken from node-llama-cpp@3.22.1's llama.cpp bundle (as tests/llama_cpp/run.sh
# takes llama.h) and compiled against an install of BUILD_DIR, runs every op case on the Vulkan device and on our
# CPU backend and compares them.
#
#   tests/test_backend_ops/run.sh BUILD_DIR [ci|full] [WORK_DIR]
#
# ci (the default): `test -b Vulkan0` on a subset that reaches every op the device supports: the cases
#   `support -b Vulkan0` lists as supported, grouped by op and by the types they name (type*=, prec=), the
#   smallest and the median case of each group by the product of the integers in their parameters; about 420
#   cases, a few minutes with lavapipe on two cores.
# full: every case (about 30 minutes there).
# Both print the pass / fail counts and the failing cases, and exit 1 on any failure (or if the tool crashes).
#
# The Vulkan device is GGML_VK_VISIBLE_DEVICES (default 0, lavapipe on a machine without a GPU). The source comes
# from the npm registry and is kept, with the compiled tool, in WORK_DIR (default ~/.cache/switchyard-tbo);
# nothing of upstream's is committed here. Where npm or the registry cannot be reached, or the build has no
# Vulkan backend or no device, it says so and exits 0 (skipped).
#
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD_DIR [ci|full] [WORK_DIR]}" && pwd)
mode=${2:-ci}
work=${3:-${HOME}/.cache/switchyard-tbo}
version=3.22.1
case "$mode" in ci|full) ;; *) echo "usage: run.sh BUILD_DIR [ci|full] [WORK_DIR]" >&2; exit 2 ;; esac
mkdir -p "$work"
cd "$work"

skip() { echo "test-backend-ops: SKIPPED: $*"; exit 0; }
command -v g++ >/dev/null || skip "g++ is not installed"

# upstream's source, from the llama.cpp bundle of node-llama-cpp
if [ ! -f test-backend-ops.cpp ]; then
    command -v npm >/dev/null || skip "npm is not installed"
    rm -rf source bundle.git
    tgz=$(timeout 300 npm pack --silent "node-llama-cpp@$version" 2>/dev/null | tail -n 1) || skip "cannot fetch node-llama-cpp@$version from npm"
    [ -f "$tgz" ] || skip "cannot fetch node-llama-cpp@$version from npm"
    mkdir source && tar xzf "$tgz" -C source && rm -f "$tgz"
    git clone -q --bare source/package/llama/gitRelease.bundle bundle.git
    git --git-dir=bundle.git show HEAD:tests/test-backend-ops.cpp > test-backend-ops.cpp.tmp
    mv test-backend-ops.cpp.tmp test-backend-ops.cpp
    rm -rf source bundle.git
fi

# our headers and libraries as installed (the libraries only: the tools need not be built)
rm -rf install
cmake -DCMAKE_INSTALL_LOCAL_ONLY=ON -DCMAKE_INSTALL_PREFIX="$work/install" -P "$build/cmake_install.cmake" > /dev/null
lib=$(ls -d install/lib*/ | head -n 1)
[ -e "$lib/libggml-vulkan.so" ] || skip "the build has no Vulkan backend (or no shared libraries)"

# the tool, rebuilt when its source or our headers change (it links our libraries dynamically)
stamp=$(cat test-backend-ops.cpp install/include/*.h | sha256sum | cut -c1-16)
tool=$work/bin/test-backend-ops-$stamp
if [ ! -x "$tool" ]; then
    rm -rf bin && mkdir bin
    echo "test-backend-ops: compiling upstream's tests/test-backend-ops.cpp (a minute or two)"
    g++ -std=c++17 -O1 -w -I install/include test-backend-ops.cpp -o "$tool.tmp" -L "$lib" -lggml -lggml-base -pthread
    mv "$tool.tmp" "$tool"
fi
export LD_LIBRARY_PATH="$work/$lib"
export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
"$tool" support -b Vulkan0 > support.log 2>&1 || { tail -n 20 support.log; echo "test-backend-ops: support mode FAILED"; exit 1; }
grep -q "Backend .*: Vulkan0" support.log || skip "no Vulkan0 device (GGML_VK_VISIBLE_DEVICES=$GGML_VK_VISIBLE_DEVICES)"
strip() { sed 's/\x1b\[[0-9;]*m//g'; }

filter=()
if [ "$mode" = ci ]; then
    # per op and named types, the smallest case and the median one by the product of the integers in their
    # parameters (a rough size)
    picked=$(strip < support.log | sed -n 's/^  \(.*(.*)\): SUPPORTED$/\1/p' | awk '
        {
            op = substr($0, 1, index($0, "(") - 1); vars = substr($0, index($0, "(") + 1); sub(/\)$/, "", vars)
            key = op; rest = vars
            while (match(rest, /(type[A-Za-z_]*|prec)=[A-Za-z0-9_]+/)) {
                key = key " " substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
            }
            nums = vars; gsub(/[0-9]+\.[0-9]+/, "", nums); size = 1
            while (match(nums, /[0-9]+/)) {
                n = substr(nums, RSTART, RLENGTH) + 0; if (n > 1) size *= n; nums = substr(nums, RSTART + RLENGTH)
            }
            printf "%s\t%.0f\t%s\n", key, size, $0
        }' | sort -t "$(printf '\t')" -k1,1 -k2,2n -s | awk -F '\t' '
        { n[$1]++; line[$1, n[$1]] = $3; if (n[$1] == 1) order[++keys] = $1 }
        END {
            for (i = 1; i <= keys; ++i) {
                k = order[i]; mid = int((n[k] + 1) / 2)
                print line[k, 1]
                if (mid > 1) print line[k, mid]
            }
        }')
    [ -n "$picked" ] || { echo "test-backend-ops: no supported case found"; exit 1; }
    echo "test-backend-ops: $(echo "$picked" | wc -l) cases of $(echo "$picked" | cut -d'(' -f1 | sort -u | wc -l) ops"
    filter=(-o "$(echo "$picked" | paste -sd, -)")
fi

start=$SECONDS
status=0
"$tool" test -b Vulkan0 "${filter[@]}" > test.log 2>&1 || status=$?
log=$(strip < test.log)
summary=$(echo "$log" | sed -n 's/^ *\([0-9]*\)\/\([0-9]*\) tests passed$/\1 \2/p' | head -n 1)
if [ -z "$summary" ]; then
    echo "$log" | tail -n 20
    echo "test-backend-ops ($mode): FAILED: the tool ended early (status $status) after $((SECONDS - start)) s"
    exit 1
fi
read -r passed total <<< "$summary"
echo "test-backend-ops ($mode): $passed passed, $((total - passed)) failed of $total on Vulkan0 in $((SECONDS - start)) s" \
     "($(echo "$log" | grep -c ': not supported') not supported)"
if [ "$status" -ne 0 ] || [ "$passed" -ne "$total" ]; then
    echo "$log" | sed -n '/^Failing tests:/,/^$/p'
    echo "$log" | grep -E 'FAIL|ERR = ' | grep -v '^  *[0-9]*/' | head -n 40
    exit 1
fi
