// Backend (stream) wrappers: identity, buffers through the device's default buffer type, synchronization,
// graph plans and graph computation, and the op/buffer-type queries that forward to the device.
// A NULL backend, or a backend lacking an optional capability it is asked to use, is logged and answered
// with NULL / false / GGML_STATUS_FAILED.
#include "ggml-backend-impl.h"

#include "base/guard.h"
#include "base/log.h"

using namespace switchyard;

namespace {

bool check_backend(ggml_backend_t backend, const char * caller) {
    if (backend == nullptr) {
        log_error("[%s] backend is NULL\n", caller);
        return false;
    }
    return true;
}

} // namespace

extern "C" {

ggml_guid_t ggml_backend_guid(ggml_backend_t backend) {
    return backend != nullptr ? backend->guid : nullptr;
}

const char * ggml_backend_name(ggml_backend_t backend) {
    if (backend == nullptr) {
        return "NULL";
    }
    return backend->iface.get_name(backend);
}

void ggml_backend_free(ggml_backend_t backend) {
    if (backend != nullptr) {
        backend->iface.free(backend);
    }
}

ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend) {
    if (!check_backend(backend, "ggml_backend_get_default_buffer_type")) {
        return nullptr;
    }
    if (backend->device == nullptr) {
        log_error("[ggml_backend_get_default_buffer_type] backend %s has no device\n", ggml_backend_name(backend));
        return nullptr;
    }
    return ggml_backend_dev_buffer_type(backend->device);
}

ggml_backend_buffer_t ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size) {
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend);
    if (buft == nullptr) {
        return nullptr;
    }
    return ggml_backend_buft_alloc_buffer(buft, size);
}

size_t ggml_backend_get_alignment(ggml_backend_t backend) {
    return ggml_backend_buft_get_alignment(ggml_backend_get_default_buffer_type(backend));
}

size_t ggml_backend_get_max_size(ggml_backend_t backend) {
    return ggml_backend_buft_get_max_size(ggml_backend_get_default_buffer_type(backend));
}

void ggml_backend_synchronize(ggml_backend_t backend) {
    if (backend != nullptr && backend->iface.synchronize != nullptr) {
        backend->iface.synchronize(backend);
    }
}

ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, ggml_cgraph * cgraph) {
    if (!check_backend(backend, "ggml_backend_graph_plan_create")) {
        return nullptr;
    }
    if (backend->iface.graph_plan_create == nullptr) {
        log_error("[ggml_backend_graph_plan_create] backend %s does not support graph plans\n",
                  ggml_backend_name(backend));
        return nullptr;
    }
    if (cgraph == nullptr) {
        log_error("[ggml_backend_graph_plan_create] graph is NULL\n");
        return nullptr;
    }
    return guard("ggml_backend_graph_plan_create", nullptr,
                 [&] { return backend->iface.graph_plan_create(backend, cgraph); });
}

void ggml_backend_graph_plan_free(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    if (backend == nullptr || plan == nullptr) {
        return;
    }
    if (backend->iface.graph_plan_free == nullptr) {
        log_error("[ggml_backend_graph_plan_free] backend %s does not support graph plans\n",
                  ggml_backend_name(backend));
        return;
    }
    backend->iface.graph_plan_free(backend, plan);
}

enum ggml_status ggml_backend_graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    if (!check_backend(backend, "ggml_backend_graph_plan_compute")) {
        return GGML_STATUS_FAILED;
    }
    if (backend->iface.graph_plan_compute == nullptr || plan == nullptr) {
        log_error("[ggml_backend_graph_plan_compute] %s\n",
                  plan == nullptr ? "plan is NULL" : "the backend does not support graph plans");
        return GGML_STATUS_FAILED;
    }
    return guard_status("ggml_backend_graph_plan_compute",
                        [&] { return backend->iface.graph_plan_compute(backend, plan); });
}

enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    const enum ggml_status status = ggml_backend_graph_compute_async(backend, cgraph);
    ggml_backend_synchronize(backend);
    return status;
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, ggml_cgraph * cgraph) {
    if (!check_backend(backend, "ggml_backend_graph_compute_async")) {
        return GGML_STATUS_FAILED;
    }
    if (cgraph == nullptr) {
        log_error("[ggml_backend_graph_compute_async] graph is NULL\n");
        return GGML_STATUS_FAILED;
    }
    return guard_status("ggml_backend_graph_compute", [&] { return backend->iface.graph_compute(backend, cgraph); });
}

bool ggml_backend_supports_op(ggml_backend_t backend, const ggml_tensor * op) {
    return backend != nullptr && ggml_backend_dev_supports_op(backend->device, op);
}

bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft) {
    return backend != nullptr && ggml_backend_dev_supports_buft(backend->device, buft);
}

bool ggml_backend_offload_op(ggml_backend_t backend, const ggml_tensor * op) {
    return backend != nullptr && ggml_backend_dev_offload_op(backend->device, op);
}

ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend) {
    return backend != nullptr ? backend->device : nullptr;
}

} // extern "C"
