// MPI backends (streams) and the meta device's all-reduce over ranks. A backend on the device of another rank
// does nothing: that rank computes. On its own rank it hands graphs to the local device's backend, with the
// tensors' MPI buffers swapped for the local buffers behind them while it runs, so that the local backend finds
// its own buffers (the addresses are the same).
#include "mpi/comm.h"
#include "mpi/mpi.h"

#include "base/log.h"

#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace switchyard::mpi {

namespace {

struct Backend {
    Device *       dev   = nullptr;
    ggml_backend_t inner = nullptr; // on the owner only
    ggml_backend   backend{};
};

Backend & ctx(ggml_backend_t backend) { return *static_cast<Backend *>(backend->context); }

const char * backend_get_name(ggml_backend_t backend) { return ctx(backend).dev->name.c_str(); }

void backend_free(ggml_backend_t backend) {
    Backend * b = &ctx(backend);
    if (b->inner != nullptr) {
        ggml_backend_free(b->inner);
    }
    delete b;
}

void backend_synchronize(ggml_backend_t backend) {
    if (Backend & b = ctx(backend); b.inner != nullptr) {
        ggml_backend_synchronize(b.inner);
    }
}

// Points every tensor of the graph that lives in an MPI buffer of this rank at the local buffer behind it;
// restore() puts the MPI buffers back.
class LocalView {
public:
    explicit LocalView(ggml_cgraph * graph) {
        // the leaves a node reads are among its sources
        for (int i = 0; i < ggml_graph_n_nodes(graph); ++i) {
            take(ggml_graph_node(graph, i));
        }
    }
    ~LocalView() {
        for (auto it = swapped_.rbegin(); it != swapped_.rend(); ++it) {
            it->first->buffer = it->second;
        }
    }
    LocalView(const LocalView &)             = delete;
    LocalView & operator=(const LocalView &) = delete;

private:
    void take(ggml_tensor * t) {
        if (t == nullptr) {
            return;
        }
        swap(t);
        swap(t->view_src);
        for (ggml_tensor * src : t->src) {
            if (src != nullptr) {
                swap(src);
                swap(src->view_src);
            }
        }
    }
    void swap(ggml_tensor * t) {
        if (t != nullptr && is_mpi_buffer(t->buffer) && inner_of(t->buffer) != nullptr) {
            swapped_.emplace_back(t, t->buffer);
            t->buffer = inner_of(t->buffer);
        }
    }
    std::vector<std::pair<ggml_tensor *, ggml_backend_buffer_t>> swapped_;
};

ggml_status backend_graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    Backend & b = ctx(backend);
    if (b.inner == nullptr) {
        return GGML_STATUS_SUCCESS; // the owner computes
    }
    LocalView   local(cgraph);
    ggml_status status = ggml_backend_graph_compute(b.inner, cgraph);
    if (status != GGML_STATUS_SUCCESS) {
        log_error("[ggml_backend_mpi] %s: computation failed: %s\n", b.dev->name.c_str(), ggml_status_to_string(status));
    }
    return status;
}

constexpr ggml_backend_i kInterface = {
    .get_name            = backend_get_name,
    .free                = backend_free,
    .set_tensor_async    = nullptr,
    .get_tensor_async    = nullptr,
    .set_tensor_2d_async = nullptr,
    .get_tensor_2d_async = nullptr,
    .cpy_tensor_async    = nullptr,
    .synchronize         = backend_synchronize,
    .graph_plan_create   = nullptr,
    .graph_plan_free     = nullptr,
    .graph_plan_update   = nullptr,
    .graph_plan_compute  = nullptr,
    .graph_compute       = backend_graph_compute,
    .event_record        = nullptr,
    .event_wait          = nullptr,
    .graph_optimize      = nullptr,
};

// ---- the meta device's all-reduce (ggml_backend_comm_*), when its devices are one of each rank ----

struct Comm {
    size_t self = 0; // which of the meta device's tensors is this rank's
};

void * comm_init(ggml_backend_t * backends, size_t n_backends) {
    if (n_backends != static_cast<size_t>(size())) {
        return nullptr;
    }
    std::vector<bool> seen(n_backends, false);
    Comm              comm;
    for (size_t i = 0; i < n_backends; ++i) {
        if (backends[i] == nullptr || backends[i]->iface.get_name != backend_get_name) {
            return nullptr;
        }
        const int r = ctx(backends[i]).dev->rank;
        if (seen[static_cast<size_t>(r)]) {
            return nullptr; // two devices of one rank: the copies of the built-in path do it
        }
        seen[static_cast<size_t>(r)] = true;
        if (r == rank()) {
            comm.self = i;
        }
    }
    return new (std::nothrow) Comm(comm);
}

void comm_free(void * comm) { delete static_cast<Comm *>(comm); }

bool comm_allreduce_tensor(void * comm, ggml_tensor ** tensors) {
    ggml_tensor * t = tensors[static_cast<Comm *>(comm)->self];
    // the same answer on every rank: the tensors have one type and shape
    if (t->type != GGML_TYPE_F32 || !ggml_is_contiguous(t) || !is_mpi_buffer(root_buffer(t))) {
        return false;
    }
    ggml_backend_buffer_t local = inner_of(root_buffer(t));
    const size_t          n     = static_cast<size_t>(ggml_nelements(t));
    if (local != nullptr && ggml_backend_buffer_is_host(local)) {
        allreduce_sum(static_cast<float *>(t->data), n);
        return true;
    }
    std::vector<float> staging(n);
    local->iface.get_tensor(local, t, staging.data(), 0, n * sizeof(float));
    allreduce_sum(staging.data(), n);
    local->iface.set_tensor(local, t, staging.data(), 0, n * sizeof(float));
    return true;
}

} // namespace

ggml_backend_t new_backend(Device & dev, const char * params) {
    auto * b = new (std::nothrow) Backend();
    if (b == nullptr) {
        return nullptr;
    }
    b->dev = &dev;
    if (dev.owned()) {
        b->inner = ggml_backend_dev_init(dev.inner, params);
        if (b->inner == nullptr) {
            log_error("[ggml_backend_mpi] %s: cannot start a backend on the local device\n", dev.name.c_str());
            delete b;
            return nullptr;
        }
    }
    static ggml_guid guid = {0x6d, 0x70, 0x69, 0x2d, 0x73, 0x77, 0x69, 0x74, 0x63, 0x68, 0x79, 0x61, 0x72, 0x64, 0x00, 0x01};
    b->backend = {.guid = &guid, .iface = kInterface, .device = &dev.device, .context = b};
    return &b->backend;
}

void * comm_proc_address(const char * name) {
    if (std::strcmp(name, "ggml_backend_comm_init") == 0) {
        return reinterpret_cast<void *>(&comm_init);
    }
    if (std::strcmp(name, "ggml_backend_comm_free") == 0) {
        return reinterpret_cast<void *>(&comm_free);
    }
    if (std::strcmp(name, "ggml_backend_comm_allreduce_tensor") == 0) {
        return reinterpret_cast<void *>(&comm_allreduce_tensor);
    }
    return nullptr;
}

void set_n_threads(ggml_backend_t backend, int n_threads) {
    if (backend == nullptr || backend->iface.get_name != backend_get_name) {
        return;
    }
    Backend & b = ctx(backend);
    if (b.inner == nullptr) {
        return;
    }
    auto fn = reinterpret_cast<ggml_backend_set_n_threads_t>(
        ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(b.dev->inner), "ggml_backend_set_n_threads"));
    if (fn != nullptr) {
        fn(b.inner, n_threads);
    }
}

} // namespace switchyard::mpi
