// The meta backend object: creation (one simple backend per device, the communicator, worker threads), the
// vtable, and the private accessors of ggml-backend-impl.h.
//
// graph_compute first waits for the previous run (its temporaries and per-device graphs are reused), then
// builds and runs the new Program. It returns with work possibly still queued on asynchronous devices;
// synchronize waits for all of them. The meta backend has no events, no graph plans and no asynchronous
// tensor I/O of its own (the wrappers fall back to synchronize + blocking access).
#include "backend/meta/backend.h"
#include "backend/meta/plan_json.h"
#include "backend/sched/plan_hook.h"

#include "base/log.h"

namespace switchyard::meta {

namespace {

MetaBackend * ctx_of(ggml_backend_t backend) { return static_cast<MetaBackend *>(backend->context); }

const char * backend_get_name(ggml_backend_t backend) { return ctx_of(backend)->dev->name.c_str(); }

void release(MetaBackend * mb) {
    synchronize_all(*mb);
    mb->program.reset();
    ggml_free(mb->graph_ctx);
    for (ggml_backend_buffer_t scratch : mb->scratch) {
        ggml_backend_buffer_free(scratch);
    }
    ggml_backend_buffer_free(mb->reduce_scratch);
    if (mb->comm.ctx != nullptr && mb->comm.free != nullptr) {
        mb->comm.free(mb->comm.ctx);
    }
    mb->workers.reset();
    for (ggml_backend_t simple : mb->simple) {
        ggml_backend_free(simple);
    }
    delete mb;
}

void backend_free(ggml_backend_t backend) {
    release(ctx_of(backend));
    delete backend;
}

void backend_synchronize(ggml_backend_t backend) { synchronize_all(*ctx_of(backend)); }

ggml_status backend_graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    MetaBackend & mb = *ctx_of(backend);
    synchronize_all(mb);
    auto              prog   = std::make_unique<Program>();
    const ggml_status status = build_program(mb, cgraph, *prog);
    if (status != GGML_STATUS_SUCCESS) {
        return status;
    }
    mb.program = std::move(prog);
    return run_program(mb, *mb.program);
}

constexpr ggml_backend_i kInterface = {
    /* .get_name            = */ backend_get_name,
    /* .free                = */ backend_free,
    /* .set_tensor_async    = */ nullptr,
    /* .get_tensor_async    = */ nullptr,
    /* .set_tensor_2d_async = */ nullptr,
    /* .get_tensor_2d_async = */ nullptr,
    /* .cpy_tensor_async    = */ nullptr,
    /* .synchronize         = */ backend_synchronize,
    /* .graph_plan_create   = */ nullptr,
    /* .graph_plan_free     = */ nullptr,
    /* .graph_plan_update   = */ nullptr,
    /* .graph_plan_compute  = */ nullptr,
    /* .graph_compute       = */ backend_graph_compute,
    /* .event_record        = */ nullptr,
    /* .event_wait          = */ nullptr,
    /* .graph_optimize      = */ nullptr,
};

ggml_guid_t meta_guid() {
    static ggml_guid guid = {0x6d, 0x65, 0x74, 0x61, 0x2d, 0x73, 0x77, 0x69, 0x74, 0x63, 0x68, 0x79, 0x61, 0x72, 0x64, 0x01};
    return &guid;
}

MetaBackend * checked(ggml_backend_t backend, const char * caller) {
    MetaBackend * mb = meta_backend(backend);
    if (mb == nullptr) {
        log_error("[%s] %s is not a meta backend\n", caller, ggml_backend_name(backend));
    }
    return mb;
}

} // namespace

MetaBackend * meta_backend(ggml_backend_t backend) {
    return backend != nullptr && backend->iface.get_name == backend_get_name ? ctx_of(backend) : nullptr;
}

// Every path out, exceptions included (out of memory, a worker thread that cannot start), releases what was made.
ggml_backend_t new_meta_backend(MetaDevice & dev) {
    struct Releaser {
        void operator()(MetaBackend * mb) const { release(mb); }
    };
    std::unique_ptr<MetaBackend, Releaser> mb(new MetaBackend());
    mb->dev = &dev;
    mb->simple.reserve(dev.devs.size());
    for (ggml_backend_dev_t simple : dev.devs) {
        ggml_backend_t backend = ggml_backend_dev_init(simple, nullptr);
        if (backend == nullptr) {
            log_error("[ggml_backend_meta] cannot create a backend on %s for %s\n", ggml_backend_dev_name(simple),
                      dev.name.c_str());
            return nullptr;
        }
        mb->simple.push_back(backend); // cannot throw: reserved
    }
    mb->scratch.assign(dev.devs.size(), nullptr);
    mb->workers = std::make_unique<Workers>(mb->n());
    mb->comm    = comm_init(*mb);
    auto * backend = new ggml_backend{meta_guid(), kInterface, &dev.device, mb.get()};
    mb.release();
    // the scheduler's plan export shows how this backend runs a split (sched sits below meta: the hook)
    sched::set_backend_plan_json(&plan_json);
    return backend;
}

} // namespace switchyard::meta

using namespace switchyard;
using namespace switchyard::meta;

extern "C" {

bool ggml_backend_is_meta(ggml_backend_t backend) { return meta_backend(backend) != nullptr; }

size_t ggml_backend_meta_n_backends(ggml_backend_t meta_backend) {
    MetaBackend * mb = checked(meta_backend, "ggml_backend_meta_n_backends");
    return mb != nullptr ? mb->simple.size() : 0;
}

ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index) {
    MetaBackend * mb = checked(meta_backend, "ggml_backend_meta_simple_backend");
    if (mb == nullptr || index >= mb->simple.size()) {
        if (mb != nullptr) {
            log_error("[ggml_backend_meta_simple_backend] index %zu out of range (%zu backends)\n", index, mb->simple.size());
        }
        return nullptr;
    }
    return mb->simple[index];
}

} // extern "C"
