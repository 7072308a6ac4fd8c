// ggml_graph_plan: the thread count and scratch size for computing a graph on the CPU.
#include "cpu/plan.h"

#include "cpu/threadpool.h"

#include "ggml-cpu.h"

#include "base/log.h"
#include "core/graph.h"

#include <algorithm>

namespace switchyard::cpu {

bool node_is_scheduled(const ggml_tensor * node) {
    return (node->flags & GGML_TENSOR_FLAG_COMPUTE) != 0 && !ggml_is_empty(node);
}

int node_n_tasks(const KernelInfo & info, const ggml_tensor * node, int n_threads) {
    const int n_tasks = info.n_tasks != nullptr ? info.n_tasks(node, n_threads) : n_threads;
    return std::clamp(n_tasks, 1, std::max(n_threads, 1));
}

size_t node_work_size(const KernelInfo & info, const ggml_tensor * node, int n_tasks) {
    return info.work_size != nullptr ? info.work_size(node, n_tasks) : 0;
}

int effective_n_threads(int n_threads, const ggml_threadpool * threadpool) {
    if (n_threads <= 0) {
        n_threads = threadpool != nullptr ? threadpool->n_threads() : GGML_DEFAULT_N_THREADS;
    }
    return std::min(n_threads, GGML_MAX_N_THREADS);
}

} // namespace switchyard::cpu

using namespace switchyard;
using namespace switchyard::cpu;

// Unsupported nodes are left out here (they have no work size to ask for); ggml_graph_compute reports them.
struct ggml_cplan ggml_graph_plan(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * threadpool) {
    ggml_cplan plan{};
    plan.n_threads  = effective_n_threads(n_threads, threadpool);
    plan.threadpool = threadpool;
    if (cgraph == nullptr) {
        log_error("[ggml_graph_plan] cgraph is NULL\n");
        return plan;
    }
    int    max_tasks = 1;
    size_t work_size = 0;
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        const ggml_tensor * node = cgraph->nodes[i];
        if (!node_is_scheduled(node) || !supports_node(node)) {
            continue;
        }
        const KernelInfo & info = kernel_for(node->op);
        if (info.compute == nullptr) {
            continue;
        }
        const int n_tasks = node_n_tasks(info, node, plan.n_threads);
        max_tasks         = std::max(max_tasks, n_tasks);
        work_size         = std::max(work_size, node_work_size(info, node, n_tasks));
    }
    finish_plan(plan, max_tasks, work_size);
    return plan;
}
