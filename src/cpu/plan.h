// Graph planning for the CPU executor: which nodes are computed, on how many threads, with how much scratch.
// ggml_graph_plan (plan.cpp) and ggml_graph_compute (executor.cpp) both go through these, so the plan and the
// execution agree on every number.
#pragma once

#include "cpu/kernel.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <cstddef>

namespace switchyard::cpu {

// Scratch is handed to kernels aligned to a cache line; ggml_graph_plan adds one line per thread to
// work_size for that alignment and for kernels that keep per-thread slots apart.
inline constexpr size_t kCacheLine = 64;

// true when the executor runs a kernel for this node: GGML_TENSOR_FLAG_COMPUTE is set and it has elements.
// (Nodes whose op only reinterprets memory pass this test but have no compute function.)
bool node_is_scheduled(const ggml_tensor * node);

// Threads the node's kernel uses when n_threads are available: in [1, n_threads].
int node_n_tasks(const KernelInfo & info, const ggml_tensor * node, int n_threads);

// Scratch bytes the node's kernel needs with n_tasks threads (0 if none).
size_t node_work_size(const KernelInfo & info, const ggml_tensor * node, int n_tasks);

// Fills in plan.n_threads and plan.work_size from what the graph's computed nodes need, planned for plan.n_threads
// threads (the count asked for): at most max_tasks threads (a graph of single-threaded nodes runs on the caller's
// thread alone, without waking any worker), and the largest scratch, most_work, plus a cache line per thread asked
// for (kCacheLine above), or 0 when no kernel needs scratch. ggml_graph_plan and the executor's one-pass plan
// both end here, so they agree.
inline void finish_plan(ggml_cplan & plan, int max_tasks, size_t most_work) {
    plan.work_size = most_work > 0 ? most_work + kCacheLine * static_cast<size_t>(plan.n_threads) : 0;
    plan.n_threads = max_tasks < plan.n_threads ? max_tasks : plan.n_threads;
}

// Clamps a requested thread count: <= 0 means the pool's size, else GGML_DEFAULT_N_THREADS; at most
// GGML_MAX_N_THREADS.
int effective_n_threads(int n_threads, const ggml_threadpool * threadpool);

} // namespace switchyard::cpu
