#!/usr/bin/env bash
# llama.cpp's test-llama-archs on Switchyard: every model architecture llama.cpp v0.5.0 knows (random weights, dense
# and MoE, 128 tokens) is built by llama.cpp's own graph code, run on each device of our libraries and on the meta
# device over the non-CPU ones, and compared with our CPU backend (logits NMSE at most 1e-4); each model is also
# saved and reloaded, and must give the same logits bit for bit. It found the constructor checks stricter than
# upstream's (rope_freqs, f16 fill, rope_multi, RWKV6's time_first), the meta device refusing its own tensors, and
# a split input's copy whose memory was reused before its last reader (gemma3n). Then, on the models it writes,
# llama.cpp's state save / load, recurrent state rollback and fragmented state restore tests, and ggml-opt's test;
# last, the tests of ggml's CPU backend that llama.cpp's CTest runs (test-quantize-fns, test-rope, test-col2im-1d,
# test-barrier; GGML_CPU=ON defines them against a system ggml) and ggml's allocator test (test-alloc).
#
#   tests/llama_cpp/archs.sh BUILD_DIR [ci|full] [WORK_DIR]
#
# Both modes first run every architecture on the CPU alone (llama.cpp's graphs and loader on our constructors and
# kernels; 12 seconds on two cores). Then, where the build has a Vulkan device (GGML_VK_VISIBLE_DEVICES, default 0:
# lavapipe on a machine without a GPU):
#   ci   (the default) a set of architectures that covers the different graph shapes (ARCHS_CI below), half a
#        minute with lavapipe on two cores;
#   full every architecture, 366 configurations (four minutes there; what CI runs).
# The source is llama.cpp v0.5.0 from the npm package node-llama-cpp@3.22.1 (its git bundle), kept in WORK_DIR
# (default ~/.cache/switchyard-archs) with the build; only libllama, its common library and the test are built
# (about two minutes the first time on two cores, seconds afterwards), against an install of BUILD_DIR
# (LLAMA_USE_SYSTEM_GGML). Where npm cannot be reached it says so and exits 0. Exit status 1 on any failure.
set -euo pipefail
build=$(cd "${1:?usage: archs.sh BUILD_DIR [ci|full] [WORK_DIR]}" && pwd)
mode=${2:-ci}
work=${3:-${HOME}/.cache/switchyard-archs}
version=3.22.1
# dense and MoE transformers, sliding-window and shared-KV attention (gemma3n: a CPU op per layer, so many splits),
# state-space, short-convolution and linear-attention recurrences, encoder-decoder and encoder-only, top-k masks,
# multi-section rope, attention sinks
ARCHS_CI='^(llama|qwen2moe|qwen3next|qwen4exp|gemma3|gemma3n|mamba2|granitehybrid|t5|deepseek2|qwen2vl|lfm2|kimi-linear|gpt-oss|bert)$'
case "$mode" in ci|full) ;; *) echo "usage: archs.sh BUILD_DIR [ci|full] [WORK_DIR]" >&2; exit 2 ;; esac
mkdir -p "$work"
cd "$work"

skip() { echo "test-llama-archs: SKIPPED: $*"; exit 0; }
for tool in cmake git c++; do
    command -v "$tool" > /dev/null || skip "$tool is not installed"
done

# llama.cpp v0.5.0, from the git bundle in node-llama-cpp
if [ ! -f src/CMakeLists.txt ]; then
    command -v npm > /dev/null || skip "npm is not installed"
    rm -rf src npm && mkdir npm
    (cd npm && timeout 600 npm pack --silent "node-llama-cpp@$version" > /dev/null 2>&1) ||
        skip "cannot fetch node-llama-cpp@$version from npm"
    tar xzf "npm/node-llama-cpp-$version.tgz" -C npm package/llama
    git -c advice.detachedHead=false clone -q npm/package/llama/gitRelease.bundle src.tmp
    mv src.tmp src && rm -rf npm
fi

# our libraries, installed; llama.cpp built against them (its own ggml left out)
rm -rf install
cmake --install "$build" --prefix "$work/install" > /dev/null
config=$(find "$work/install" -maxdepth 4 -path "*/cmake/ggml/ggml-config.cmake" | head -n 1)
[ -n "$config" ] || { echo "test-llama-archs: FAILED: no ggml-config.cmake in the install of $build"; exit 1; }
lib=$(dirname "$(dirname "$(dirname "$config")")")
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if ! cmake -S src -B llama-build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLLAMA_USE_SYSTEM_GGML=ON \
        -DCMAKE_PREFIX_PATH="$work/install" -Dggml_DIR="$(dirname "$config")" -DLLAMA_BUILD_TESTS=ON \
        -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
        -DLLAMA_OPENSSL=OFF -DLLAMA_LLGUIDANCE=OFF -DGGML_CPU=ON > configure.log 2>&1; then
    tail -n 20 configure.log
    echo "test-llama-archs: FAILED: llama.cpp's configure"
    exit 1
fi
if ! cmake --build llama-build --target test-llama-archs test-save-load-state test-recurrent-state-rollback \
        test-state-restore-fragmented test-opt test-quantize-fns test-rope test-col2im-1d test-barrier > build.log 2>&1; then
    tail -n 30 build.log
    echo "test-llama-archs: FAILED: building llama.cpp's test against our headers"
    exit 1
fi
export LD_LIBRARY_PATH="$lib"
tool=$work/llama-build/bin/test-llama-archs
strip() { sed 's/\x1b\[[0-9;]*m//g'; }

# one run: its table rows that failed, and its summary; false on a failure or an early end
run() {
    local label=$1 log=$2
    shift 2
    local start=$SECONDS status=0
    "$@" > "$log" 2>&1 || status=$?
    local summary
    summary=$(strip < "$log" | grep '^Summary:' | tail -n 1 || true)
    echo "test-llama-archs ($label): ${summary:-no summary} in $((SECONDS - start)) s"
    strip < "$log" | grep -E '^\|.*FAIL' || true
    if [ -z "$summary" ]; then
        strip < "$log" | tail -n 12
    fi
    [ "$status" -eq 0 ] && [[ $summary == *"passed"* ]]
}

ok=0
run "CPU, every architecture" cpu.log env GGML_VK_VISIBLE_DEVICES= "$tool" -s 42 || ok=1
if [ -e "$lib/libggml-vulkan.so" ]; then
    export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
    filter=()
    [ "$mode" = ci ] && filter=(-a "$ARCHS_CI")
    run "Vulkan$([ "$mode" = ci ] && echo ", $ARCHS_CI")" vulkan.log "$tool" -s 42 "${filter[@]}" || ok=1
else
    echo "test-llama-archs: the build has no Vulkan backend: devices other than the CPU not run"
fi

# llama.cpp's tests on the models test-llama-archs writes (as its CTest does): state save / load on every
# architecture, the recurrent state rolled back (qwen35, nemotron_h, deepseek4, kimi-k3), a state restored into a
# fragmented KV cache; and ggml-opt's test on every device (seconds in all)
rm -rf models && mkdir models
env GGML_VK_VISIBLE_DEVICES= "$tool" -s 42 -o models > models.log 2>&1 || { tail -n 5 models.log; ok=1; }
bin=$work/llama-build/bin
check() {
    local label=$1 log=$2
    shift 2
    if "$@" > "$log" 2>&1; then
        echo "llama.cpp $label: passed"
    else
        strip < "$log" | tail -n 5
        echo "llama.cpp $label: FAILED (log: $work/$log)"
        ok=1
    fi
}
# on the CPU: with lavapipe as well it takes six minutes
check "test-save-load-state (every architecture, CPU)" save-load.log env GGML_VK_VISIBLE_DEVICES= "$bin/test-save-load-state" --models models
for m in qwen35-dense nemotron_h-dense deepseek4-moe kimi-k3-moe; do
    check "test-recurrent-state-rollback ($m)" "rollback-$m.log" "$bin/test-recurrent-state-rollback" -m "models/$m.gguf"
done
check "test-state-restore-fragmented" state-restore.log "$bin/test-state-restore-fragmented" -m models/llama-dense.gguf
check "test-opt (every device)" opt.log "$bin/test-opt"
# the tests of ggml's CPU backend in llama.cpp's CTest (its CPU helpers and kernels through ggml-cpu.h): every
# type's conversions and dot products against its float reference, rope against its own rotations, col2im_1d, and
# the CPU thread pool's barrier
for t in test-quantize-fns test-rope test-col2im-1d test-barrier; do
    check "$t" "$t.log" "$bin/$t"
done
# ggml's graph allocator test (tests/test-alloc.cpp, with upstream's private ggml-impl.h and ggml-backend-impl.h from
# the same tree: a dummy backend built as an out-of-tree one would be), against our allocator. Two cases are left
# out, where our allocator differs on purpose: test_view_inplace (a result in place of src[1]: our kernels promise
# to tolerate aliasing of src[0] only) and test_multiple_buffer_types (a node placed in place of a parent that lives
# in another buffer type's memory).
sed -e '/run("test_view_inplace"/d' -e '/run("test_multiple_buffer_types"/d' src/tests/test-alloc.cpp > src/tests/test-alloc-switchyard.cpp
if c++ -std=c++17 -O1 -w -I "$work/install/include" src/tests/test-alloc-switchyard.cpp -o test-alloc \
        -L "$lib" -lggml -lggml-base > test-alloc-build.log 2>&1; then
    check "test-alloc (12 of its 14 cases)" test-alloc.log ./test-alloc
else
    tail -n 10 test-alloc-build.log
    echo "llama.cpp test-alloc: FAILED to build"
    ok=1
fi
exit $ok
