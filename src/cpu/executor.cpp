// The CPU graph executor: ggml_graph_compute, ggml_graph_compute_with_ctx and the CPU backend's one-pass
// compute_graph (executor.h).
//
// Before anything runs, every node to be computed is checked (op and types supported, data present and in host
// memory, scratch large enough); one bad node fails the whole graph with a log naming it, so a graph is either
// computed or left untouched. Then the threads of the pool walk the node list together: each node's kernel runs
// on its n_tasks threads (the others go straight to the barrier), and all threads meet at a barrier after every
// node. Thread 0 polls the abort callback after each node; when it fires, every thread stops at that barrier
// and the result is GGML_STATUS_ABORTED. A kernel that finds bad input data (an index out of range) reports it
// (report_data_error); every thread stops at the barrier after that node, the error is logged once with the
// node's name and op, and the result is GGML_STATUS_FAILED.
//
// Kernels allocate nothing while they run: what they need beyond their tensors is the plan's work memory, sized by
// their KernelInfo::work_size, so no allocation failure (and no exception) can arise on a worker thread. The only
// allocations of a computation are the step list and, without a thread pool in the plan, the pool kept for such
// computations (or a temporary one), both before anything runs; their failure is GGML_STATUS_ALLOC_FAILED (list) or a
// computation on fewer threads (pool).
// ggml_graph_compute_with_ctx takes work memory from the context only when the plan asks for some.
#include "cpu/data_error.h"
#include "cpu/executor.h"
#include "cpu/plan.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/thread_sync.h"
#include "cpu/threadpool.h"

#include "ggml-cpu.h"

#include "base/log.h"
#include "core/graph.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include <unistd.h>

namespace switchyard::cpu {

namespace {

struct Step {
    ggml_tensor * node;
    KernelFn      compute;
    int           n_tasks;
    int           index; // the node's position in the graph (for messages)
};

// "node 3 'ffn_out' (MUL_MAT f32 <- q4_0 'w', f32 'x')" for error messages
void describe_node(const ggml_tensor * node, int index, char * out, size_t size) {
    int n = std::snprintf(out, size, "node %d '%s' (%s %s", index, node->name, ggml_op_desc(node),
                          ggml_type_name(node->type));
    const char * sep = " <- ";
    for (int j = 0; j < GGML_MAX_SRC && n > 0 && static_cast<size_t>(n) < size; ++j) {
        const ggml_tensor * src = node->src[j];
        if (src != nullptr) {
            n += std::snprintf(out + n, size - static_cast<size_t>(n), "%s%s '%s'", sep,
                               ggml_type_name(src->type), src->name);
            sep = ", ";
        }
    }
    if (n > 0 && static_cast<size_t>(n) < size) {
        std::snprintf(out + n, size - static_cast<size_t>(n), ")");
    }
}

// Host buffers, and CPU_REPACK ones (host memory; supports_node admits their repacked tensors only where a kernel
// reads them, repack/buffer_type.h).
bool in_host_memory(const ggml_tensor * t) {
    return t->buffer == nullptr || ggml_backend_buffer_is_host(t->buffer) || repack::in_repack_buffer(t);
}

// Data problems of the node or its sources, or nullptr.
const char * data_problem(const ggml_tensor * node) {
    for (int j = -1; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * t = j < 0 ? node : node->src[j];
        if (t == nullptr || ggml_is_empty(t)) {
            continue;
        }
        if (t->data == nullptr) {
            return j < 0 ? "has no data (not allocated)" : "has a source without data (not allocated)";
        }
        if (!in_host_memory(t)) {
            return j < 0 ? "is not in host memory" : "has a source that is not in host memory";
        }
    }
    return nullptr;
}

// Room for a step per node, so that build_steps never allocates; false (logged) when there is no memory for it.
bool reserve_steps(std::vector<Step> & steps, int n_nodes) {
    try {
        steps.reserve(static_cast<size_t>(std::max(n_nodes, 0)));
    } catch (const std::bad_alloc &) {
        log_error("[ggml_graph_compute] out of memory for the list of %d nodes\n", n_nodes);
        return false;
    }
    return true;
}

// What the listed steps need at most: threads, and scratch bytes.
struct StepNeeds {
    int    max_tasks = 1;
    size_t most_work = 0;
};

// Checks every scheduled node and lists the ones with a kernel (steps: reserved for every node); false (logged) if
// any cannot be computed. *needs (when given) gathers what the steps need.
bool build_steps(ggml_cgraph * cgraph, int n_threads, size_t wsize, std::vector<Step> & steps,
                 StepNeeds * needs = nullptr) {
    char what[512];
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        ggml_tensor * node = cgraph->nodes[i];
        if (node == nullptr || !node_is_scheduled(node)) {
            continue;
        }
        if (!supports_node(node)) {
            describe_node(node, i, what, sizeof(what));
            log_error("[ggml_graph_compute] %s: op %s with these types/layout is not supported by the CPU backend\n",
                      what, ggml_op_desc(node));
            return false;
        }
        const KernelInfo & info = kernel_for(node->op);
        if (info.compute == nullptr) {
            continue; // the op only reinterprets memory
        }
        if (const char * problem = data_problem(node)) {
            describe_node(node, i, what, sizeof(what));
            log_error("[ggml_graph_compute] %s %s\n", what, problem);
            return false;
        }
        const int    n_tasks = node_n_tasks(info, node, n_threads);
        const size_t needed  = node_work_size(info, node, n_tasks);
        if (needed > wsize) {
            describe_node(node, i, what, sizeof(what));
            log_error("[ggml_graph_compute] %s needs %zu bytes of work memory, the plan has %zu (plan the graph "
                      "with ggml_graph_plan and the same thread count)\n", what, needed, wsize);
            return false;
        }
        if (needs != nullptr) {
            needs->max_tasks = std::max(needs->max_tasks, n_tasks);
            needs->most_work = std::max(needs->most_work, needed);
        }
        steps.push_back(Step{node, info.compute, n_tasks, i});
    }
    return true;
}

// One computation of a graph, shared by its threads.
class GraphRun {
public:
    GraphRun(const std::vector<Step> & steps, const ggml_cplan & cplan, int n_threads, void * wdata, size_t wsize)
        : steps_(steps), cplan_(cplan), n_threads_(n_threads), wdata_(wdata), wsize_(wsize) {}

    static void thread_entry(void * self, int ith) { static_cast<GraphRun *>(self)->thread_main(ith); }

    // Call after every thread has returned. A data error outranks an abort at the same node.
    ggml_status status() const {
        if (errors_.step() >= 0) {
            return GGML_STATUS_FAILED;
        }
        return abort_after_.load(std::memory_order_relaxed) >= 0 ? GGML_STATUS_ABORTED : GGML_STATUS_SUCCESS;
    }

    // Logs the data error that stopped the computation, if any. Call after every thread has returned.
    void log_data_error() const {
        const int s = errors_.step();
        if (s < 0) {
            return;
        }
        const Step & step = steps_[static_cast<size_t>(s)];
        char         what[512];
        describe_node(step.node, step.index, what, sizeof(what));
        log_error("[ggml_graph_compute] %s: %s; the computation stopped after this node\n", what, errors_.message());
    }

private:
    void thread_main(int ith) {
        const int n_steps = static_cast<int>(steps_.size());
        for (int s = 0; s < n_steps; ++s) {
            const Step & step = steps_[static_cast<size_t>(s)];
            if (ith < step.n_tasks) {
                const ComputeParams params{ith, step.n_tasks, wdata_, wsize_, &node_sync_, &errors_, s};
                step.compute(params, step.node);
            }
            if (ith == 0 && cplan_.abort_callback != nullptr && cplan_.abort_callback(cplan_.abort_callback_data)) {
                abort_after_.store(s, std::memory_order_relaxed);
            }
            // The barrier orders thread 0's store and every data-error report of this node before the loads
            // below. Step numbers (not flags) are compared: a thread slow to leave the barrier must not act on a
            // store or report made a step later by a thread that has gone on.
            graph_sync_.arrive_and_wait(n_threads_);
            if (abort_after_.load(std::memory_order_relaxed) == s || errors_.step() == s) {
                return;
            }
        }
    }

    const std::vector<Step> & steps_;
    const ggml_cplan &        cplan_;
    const int                 n_threads_;
    void * const              wdata_;
    const size_t              wsize_;
    ThreadSync                node_sync_;  // the threads of one node (kernel-internal barriers)
    ThreadSync                graph_sync_; // all threads, between nodes
    std::atomic<int>          abort_after_{-1}; // step after which the abort callback fired
    DataErrorSlot             errors_;          // the first data error a kernel reported
};

// The pool of the computations whose plan brings none, kept between them as upstream's OpenMP threads are:
// starting and joining the workers on every call cost about 80 us (a graph of a few small nodes took 40 times
// upstream's time). One computation at a time holds it; one that finds it busy (another thread computing) starts a
// pool of its own. A child process after fork() has none of its parent's workers: it leaves the parent's pool (never
// joined) and starts its own. Never destroyed: its idle workers sleep until the process ends.
struct KeptPool {
    std::mutex                       mutex;
    std::unique_ptr<ggml_threadpool> pool;
    pid_t                            owner = 0;
    std::vector<ggml_threadpool *>   inherited; // pools of parent processes: kept reachable, never joined
};

KeptPool & kept_pool() {
    static KeptPool * const kept = new KeptPool;
    return *kept;
}

// The kept pool for n_threads (held: its lock, kept until the computation ends), or nullptr when another
// computation holds it or no pool could be made.
ggml_threadpool * take_kept_pool(int n_threads, std::unique_lock<std::mutex> & held) {
    KeptPool &                   kept = kept_pool();
    std::unique_lock<std::mutex> lock(kept.mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
        return nullptr;
    }
    if (kept.pool != nullptr && kept.owner != ::getpid()) { // the parent's: its workers are not in this process
        try {
            kept.inherited.push_back(kept.pool.get());
        } catch (const std::bad_alloc &) { // then it is merely unreachable
        }
        static_cast<void>(kept.pool.release());
    }
    if (kept.pool == nullptr || kept.pool->n_threads() != n_threads) {
        kept.pool.reset(); // joins the idle workers of another thread count
        kept.pool  = ggml_threadpool::create(ggml_threadpool_params_default(n_threads), "ggml_graph_compute");
        kept.owner = ::getpid();
    }
    if (kept.pool == nullptr) {
        return nullptr;
    }
    held = std::move(lock);
    return kept.pool.get();
}

// The pool to run on: the plan's, the kept one (where `kept` allows it), or a temporary one (nullptr with n_threads
// 1, or if none can be made).
ggml_threadpool * pick_pool(const ggml_cplan & cplan, int & n_threads, bool kept,
                            std::unique_ptr<ggml_threadpool> & temporary, std::unique_lock<std::mutex> & held) {
    if (cplan.threadpool != nullptr) {
        if (n_threads > cplan.threadpool->n_threads()) {
            log_warn("[ggml_graph_compute] the plan asks for %d threads, its thread pool has %d; using %d\n",
                     n_threads, cplan.threadpool->n_threads(), cplan.threadpool->n_threads());
            n_threads = cplan.threadpool->n_threads();
        }
        return cplan.threadpool;
    }
    if (n_threads > 1) {
        if (ggml_threadpool * pool = kept ? take_kept_pool(n_threads, held) : nullptr) {
            return pool;
        }
        temporary = ggml_threadpool::create(ggml_threadpool_params_default(n_threads), "ggml_graph_compute");
        if (temporary == nullptr) {
            log_warn("[ggml_graph_compute] no thread pool of %d threads; computing on one thread\n", n_threads);
            n_threads = 1;
        }
    }
    return temporary.get();
}

bool check_cplan(const ggml_cgraph * cgraph, const ggml_cplan * cplan) {
    if (cgraph == nullptr || cplan == nullptr) {
        log_error("[ggml_graph_compute] %s is NULL\n", cgraph == nullptr ? "cgraph" : "cplan");
        return false;
    }
    if (cplan->n_threads < 1 || cplan->n_threads > GGML_MAX_N_THREADS) {
        log_error("[ggml_graph_compute] cplan->n_threads must be in [1, %d], got %d\n", GGML_MAX_N_THREADS,
                  cplan->n_threads);
        return false;
    }
    if (cplan->work_size > 0 && cplan->work_data == nullptr) {
        log_error("[ggml_graph_compute] cplan->work_size is %zu but cplan->work_data is NULL; point it at that many "
                  "bytes first\n", cplan->work_size);
        return false;
    }
    return true;
}

// The kernels' scratch: the plan's work memory from its first cache line on (the plan's padding pays for the
// skipped bytes).
struct Scratch {
    void * data;
    size_t size;
};

Scratch scratch_of(const ggml_cplan & cplan) {
    auto * const    base = cplan.work_data;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(base);
    const size_t    skip = base != nullptr ? (kCacheLine - addr % kCacheLine) % kCacheLine : 0;
    if (cplan.work_size <= skip) {
        return {nullptr, 0};
    }
    return {base + skip, cplan.work_size - skip};
}

// Computes checked steps on the plan's threads.
// kept: without a pool in the plan, take the kept pool (ggml_graph_compute); the CPU backend's compute, whose plan
// lacks one only when its own pool could not be made, takes a temporary one and leaves nothing behind.
ggml_status run_steps(ggml_cgraph * cgraph, const ggml_cplan & cplan, std::vector<Step> & steps, bool kept) {
    if (steps.empty()) {
        return GGML_STATUS_SUCCESS;
    }
    const Scratch                    scratch   = scratch_of(cplan);
    int                              n_threads = cplan.n_threads;
    std::unique_ptr<ggml_threadpool> temporary;
    std::unique_lock<std::mutex>     held; // the kept pool's, while this computation runs on it
    ggml_threadpool *                pool = pick_pool(cplan, n_threads, kept, temporary, held);
    if (n_threads != cplan.n_threads) {
        // fewer threads than planned (small pool, or no pool could be made): recount tasks and scratch
        steps.clear();
        if (!build_steps(cgraph, n_threads, scratch.size, steps)) {
            return GGML_STATUS_FAILED;
        }
    }
    GraphRun run(steps, cplan, n_threads, scratch.data, scratch.size);
    if (pool != nullptr && n_threads > 1) {
        pool->run(n_threads, &GraphRun::thread_entry, &run);
    } else {
        GraphRun::thread_entry(&run, 0);
    }
    run.log_data_error();
    return run.status();
}

} // namespace

ggml_status compute_graph(ggml_cgraph * cgraph, int n_threads, PreparePlan prepare, void * user) {
    if (cgraph == nullptr) {
        log_error("[ggml_backend_graph_compute] cgraph is NULL\n");
        return GGML_STATUS_FAILED;
    }
    std::vector<Step> steps;
    if (!reserve_steps(steps, cgraph->n_nodes)) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    StepNeeds needs;
    if (!build_steps(cgraph, n_threads, SIZE_MAX, steps, &needs)) {
        return GGML_STATUS_FAILED;
    }
    ggml_cplan cplan{}; // the plan ggml_graph_plan makes (plan.h finish_plan)
    cplan.n_threads = n_threads;
    finish_plan(cplan, needs.max_tasks, needs.most_work);
    if (!prepare(user, cplan)) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    return run_steps(cgraph, cplan, steps, false);
}

} // namespace switchyard::cpu

using namespace switchyard;
using namespace switchyard::cpu;

extern "C" {

enum ggml_status ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan) {
    if (!check_cplan(cgraph, cplan)) {
        return GGML_STATUS_FAILED;
    }
    std::vector<Step> steps;
    if (!reserve_steps(steps, cgraph->n_nodes)) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    if (!build_steps(cgraph, cplan->n_threads, scratch_of(*cplan).size, steps)) {
        return GGML_STATUS_FAILED;
    }
    return run_steps(cgraph, *cplan, steps, true);
}

enum ggml_status ggml_graph_compute_with_ctx(struct ggml_context * ctx, struct ggml_cgraph * cgraph, int n_threads) {
    if (ctx == nullptr || cgraph == nullptr) {
        log_error("[ggml_graph_compute_with_ctx] %s is NULL\n", ctx == nullptr ? "ctx" : "cgraph");
        return GGML_STATUS_FAILED;
    }
    ggml_cplan cplan = ggml_graph_plan(cgraph, n_threads, nullptr);
    if (cplan.work_size > 0) {
        cplan.work_data = static_cast<uint8_t *>(ggml_new_buffer(ctx, cplan.work_size));
        if (cplan.work_data == nullptr) {
            log_error("[ggml_graph_compute_with_ctx] the context has no room for %zu bytes of work memory\n",
                      cplan.work_size);
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    return ggml_graph_compute(cgraph, &cplan);
}

} // extern "C"
