// The CPU backend (stream): graph computation on the host, synchronous. Each backend keeps its thread count,
// an optional caller-owned thread pool (else a pool of its own, made on first use and reused), a work buffer
// that grows as graphs need, the abort callback and the use_ref flag. Graph plans carry their own copy of the
// node list and their own work buffer, so one plan can be computed any number of times.
//
// Thread safety: one backend computes one graph at a time; its setters must not race with a computation.
#include "cpu/backend.h"

#include "cpu/executor.h"
#include "cpu/plan.h"
#include "cpu/threadpool.h"

#include "ggml-cpu.h"

#include "base/host_memory.h"
#include "base/log.h"
#include "core/graph.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace switchyard::cpu {

namespace {

// Scratch memory that only grows. Contents are not kept when it grows.
class WorkBuffer {
public:
    WorkBuffer() = default;
    WorkBuffer(const WorkBuffer &)             = delete;
    WorkBuffer & operator=(const WorkBuffer &) = delete;
    ~WorkBuffer() { std::free(data_); }

    // false when the memory cannot be had (the buffer is then empty)
    bool reserve(size_t size) {
        if (size <= size_) {
            return true;
        }
        std::free(data_);
        data_ = static_cast<uint8_t *>(host_alloc(size, 64)); // large ones on transparent huge pages
        size_ = data_ != nullptr ? size : 0;
        return data_ != nullptr;
    }

    uint8_t * data() const { return data_; }

private:
    uint8_t * data_ = nullptr;
    size_t    size_ = 0;
};

struct CpuBackend {
    int                              n_threads = GGML_DEFAULT_N_THREADS;
    ggml_threadpool *                user_pool = nullptr; // caller's (ggml_backend_cpu_set_threadpool)
    std::unique_ptr<ggml_threadpool> own_pool;            // used when user_pool is NULL
    WorkBuffer                       work;
    ggml_abort_callback              abort_callback      = nullptr;
    void *                           abort_callback_data = nullptr;
    bool                             use_ref             = false;

    // The pool for a computation on `threads` threads: the caller's, else our own of n_threads (remade when
    // n_threads changes, or larger for a plan made before); nullptr for one thread or when no pool can be made
    // (ggml_graph_compute then copes on its own).
    ggml_threadpool * pool_for(int threads) {
        if (user_pool != nullptr) {
            return user_pool;
        }
        if (threads <= 1) {
            return nullptr;
        }
        const int size = std::max(threads, n_threads);
        if (own_pool == nullptr || own_pool->n_threads() != size) {
            own_pool.reset();
            own_pool = ggml_threadpool::create(ggml_threadpool_params_default(size), "ggml_backend_cpu");
        }
        return own_pool.get();
    }

    // Fills in what the backend decides at compute time.
    void complete(ggml_cplan & cplan) {
        cplan.threadpool          = pool_for(cplan.n_threads);
        cplan.abort_callback      = abort_callback;
        cplan.abort_callback_data = abort_callback_data;
        cplan.use_ref             = use_ref;
    }
};

// A plan: the graph's node list copied (the graph object may go away; its tensors must stay), the cplan, and
// the scratch memory it was sized for.
struct CpuPlan {
    std::vector<ggml_tensor *> nodes;
    ggml_cgraph                cgraph{};
    ggml_cplan                 cplan{};
    WorkBuffer                 work;
};

CpuBackend * backend_ctx(ggml_backend_t backend) { return static_cast<CpuBackend *>(backend->context); }

const char * backend_get_name(ggml_backend_t) { return "CPU"; }

void backend_free(ggml_backend_t backend) {
    delete backend_ctx(backend);
    delete backend;
}

ggml_backend_graph_plan_t graph_plan_create(ggml_backend_t backend, const ggml_cgraph * cgraph) {
    CpuBackend * ctx  = backend_ctx(backend);
    auto *       plan = new (std::nothrow) CpuPlan;
    if (plan == nullptr) {
        log_error("[ggml_backend_graph_plan_create] out of memory\n");
        return nullptr;
    }
    plan->nodes.assign(cgraph->nodes, cgraph->nodes + cgraph->n_nodes);
    plan->cgraph.size    = cgraph->n_nodes;
    plan->cgraph.n_nodes = cgraph->n_nodes;
    plan->cgraph.nodes   = plan->nodes.data();
    plan->cgraph.order   = cgraph->order;
    plan->cplan          = ggml_graph_plan(cgraph, ctx->n_threads, ctx->user_pool);
    if (!plan->work.reserve(plan->cplan.work_size)) {
        log_error("[ggml_backend_graph_plan_create] cannot allocate %zu bytes of work memory\n", plan->cplan.work_size);
        delete plan;
        return nullptr;
    }
    plan->cplan.work_data = plan->work.data();
    return plan;
}

void graph_plan_free(ggml_backend_t, ggml_backend_graph_plan_t plan) { delete static_cast<CpuPlan *>(plan); }

enum ggml_status graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    auto * cpu_plan = static_cast<CpuPlan *>(plan);
    backend_ctx(backend)->complete(cpu_plan->cplan);
    return ggml_graph_compute(&cpu_plan->cgraph, &cpu_plan->cplan);
}

enum ggml_status graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    CpuBackend * ctx = backend_ctx(backend);
    // plan and compute in one pass over the nodes (executor.h), the work memory taken once the plan is known
    auto prepare = [](void * user, ggml_cplan & cplan) {
        auto * c = static_cast<CpuBackend *>(user);
        if (!c->work.reserve(cplan.work_size)) {
            log_error("[ggml_backend_graph_compute] cannot allocate %zu bytes of work memory\n", cplan.work_size);
            return false;
        }
        cplan.work_data = c->work.data();
        c->complete(cplan);
        return true;
    };
    return compute_graph(cgraph, effective_n_threads(ctx->n_threads, ctx->user_pool), prepare, ctx);
}

constexpr ggml_backend_i kInterface = {
    /* .get_name            = */ backend_get_name,
    /* .free                = */ backend_free,
    /* .set_tensor_async    = */ nullptr,
    /* .get_tensor_async    = */ nullptr,
    /* .set_tensor_2d_async = */ nullptr,
    /* .get_tensor_2d_async = */ nullptr,
    /* .cpy_tensor_async    = */ nullptr,
    /* .synchronize         = */ nullptr,
    /* .graph_plan_create   = */ graph_plan_create,
    /* .graph_plan_free     = */ graph_plan_free,
    /* .graph_plan_update   = */ nullptr,
    /* .graph_plan_compute  = */ graph_plan_compute,
    /* .graph_compute       = */ graph_compute,
    /* .event_record        = */ nullptr,
    /* .event_wait          = */ nullptr,
    /* .graph_optimize      = */ nullptr,
};

ggml_guid_t cpu_guid() {
    static ggml_guid guid = {0x5b, 0x1e, 0x7a, 0x90, 0x2c, 0xd4, 0x4f, 0x63, 0x8e, 0x01, 0xc7, 0x3a, 0x66, 0xf2, 0x19, 0xb8};
    return &guid;
}

// The context of a CPU backend, or nullptr (logged, naming caller) if backend is not one.
CpuBackend * checked_ctx(ggml_backend_t backend, const char * caller) {
    if (!ggml_backend_is_cpu(backend)) {
        log_error("[%s] not a CPU backend\n", caller);
        return nullptr;
    }
    return backend_ctx(backend);
}

} // namespace

} // namespace switchyard::cpu

using namespace switchyard;
using namespace switchyard::cpu;

extern "C" {

ggml_backend_t ggml_backend_cpu_init(void) {
    ggml_cpu_init();
    auto * ctx = new (std::nothrow) CpuBackend;
    auto * backend =
        ctx != nullptr ? new (std::nothrow) ggml_backend{cpu_guid(), kInterface, cpu_device(), ctx} : nullptr;
    if (backend == nullptr) {
        log_error("[ggml_backend_cpu_init] out of memory\n");
        delete ctx;
        return nullptr;
    }
    return backend;
}

bool ggml_backend_is_cpu(ggml_backend_t backend) {
    return backend != nullptr && ggml_guid_matches(backend->guid, cpu_guid());
}

void ggml_backend_cpu_set_n_threads(ggml_backend_t backend_cpu, int n_threads) {
    CpuBackend * ctx = checked_ctx(backend_cpu, "ggml_backend_cpu_set_n_threads");
    if (ctx == nullptr) {
        return;
    }
    if (n_threads < 1 || n_threads > GGML_MAX_N_THREADS) {
        log_error("[ggml_backend_cpu_set_n_threads] n_threads must be in [1, %d], got %d; keeping %d\n",
                  GGML_MAX_N_THREADS, n_threads, ctx->n_threads);
        return;
    }
    ctx->n_threads = n_threads;
}

void ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool) {
    CpuBackend * ctx = checked_ctx(backend_cpu, "ggml_backend_cpu_set_threadpool");
    if (ctx == nullptr) {
        return;
    }
    if (ctx->user_pool != nullptr && ctx->user_pool != threadpool) {
        ggml_threadpool_pause(ctx->user_pool); // the previous pool is idle from now on, as upstream
    }
    ctx->user_pool = threadpool;
    if (threadpool != nullptr) {
        ctx->own_pool.reset();
    }
}

void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback,
                                         void * abort_callback_data) {
    if (CpuBackend * ctx = checked_ctx(backend_cpu, "ggml_backend_cpu_set_abort_callback")) {
        ctx->abort_callback      = abort_callback;
        ctx->abort_callback_data = abort_callback_data;
    }
}

void ggml_backend_cpu_set_use_ref(ggml_backend_t backend_cpu, bool use_ref) {
    if (CpuBackend * ctx = checked_ctx(backend_cpu, "ggml_backend_cpu_set_use_ref")) {
        ctx->use_ref = use_ref;
    }
}

} // extern "C"
