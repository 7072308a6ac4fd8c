// Device wrappers: properties, backend (stream) creation, buffer types and op support. Optional members
// default as documented in ggml-backend-impl.h (no host buffer type, no buffers from host pointers, no
// offload). A NULL device is logged where a result is expected and answered with NULL / false.
#include "ggml-backend-impl.h"

#include "base/guard.h"
#include "base/log.h"

#include <cstring>

using namespace switchyard;

namespace {

bool check_device(ggml_backend_dev_t device, const char * caller) {
    if (device == nullptr) {
        log_error("[%s] device is NULL\n", caller);
        return false;
    }
    return true;
}

} // namespace

extern "C" {

const char * ggml_backend_dev_name(ggml_backend_dev_t device) {
    if (device == nullptr) {
        return "NULL";
    }
    return device->iface.get_name(device);
}

const char * ggml_backend_dev_description(ggml_backend_dev_t device) {
    if (device == nullptr) {
        return "NULL";
    }
    return device->iface.get_description(device);
}

void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total) {
    size_t free_bytes  = 0;
    size_t total_bytes = 0;
    if (check_device(device, "ggml_backend_dev_memory")) {
        device->iface.get_memory(device, &free_bytes, &total_bytes);
    }
    if (free != nullptr) {
        *free = free_bytes;
    }
    if (total != nullptr) {
        *total = total_bytes;
    }
}

enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device) {
    if (!check_device(device, "ggml_backend_dev_type")) {
        return GGML_BACKEND_DEVICE_TYPE_CPU;
    }
    return device->iface.get_type(device);
}

void ggml_backend_dev_get_props(ggml_backend_dev_t device, ggml_backend_dev_props * props) {
    if (props == nullptr) {
        log_error("[ggml_backend_dev_get_props] props is NULL\n");
        return;
    }
    std::memset(props, 0, sizeof(*props));
    if (check_device(device, "ggml_backend_dev_get_props")) {
        device->iface.get_props(device, props);
    }
}

ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device) {
    return device != nullptr ? device->reg : nullptr;
}

ggml_backend_t ggml_backend_dev_init(ggml_backend_dev_t device, const char * params) {
    if (!check_device(device, "ggml_backend_dev_init")) {
        return nullptr;
    }
    ggml_backend_t backend =
        guard("ggml_backend_dev_init", nullptr, [&] { return device->iface.init_backend(device, params); });
    if (backend == nullptr) {
        log_error("[ggml_backend_dev_init] device %s could not create a backend (params: %s)\n",
                  ggml_backend_dev_name(device), params != nullptr ? params : "none");
    }
    return backend;
}

ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device) {
    if (!check_device(device, "ggml_backend_dev_buffer_type")) {
        return nullptr;
    }
    return guard("ggml_backend_dev_buffer_type", nullptr, [&] { return device->iface.get_buffer_type(device); });
}

ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device) {
    if (device == nullptr || device->iface.get_host_buffer_type == nullptr) {
        return nullptr;
    }
    return guard("ggml_backend_dev_host_buffer_type", nullptr,
                 [&] { return device->iface.get_host_buffer_type(device); });
}

ggml_backend_buffer_t ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size,
                                                            size_t max_tensor_size) {
    if (!check_device(device, "ggml_backend_dev_buffer_from_host_ptr")) {
        return nullptr;
    }
    if (device->iface.buffer_from_host_ptr == nullptr) {
        log_error("[ggml_backend_dev_buffer_from_host_ptr] device %s cannot use host memory as a buffer\n",
                  ggml_backend_dev_name(device));
        return nullptr;
    }
    return guard("ggml_backend_dev_buffer_from_host_ptr", nullptr,
                 [&] { return device->iface.buffer_from_host_ptr(device, ptr, size, max_tensor_size); });
}

bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const ggml_tensor * op) {
    if (device == nullptr || op == nullptr) {
        return false;
    }
    return guard("ggml_backend_dev_supports_op", false, [&] { return device->iface.supports_op(device, op); });
}

bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft) {
    if (device == nullptr || buft == nullptr) {
        return false;
    }
    return device->iface.supports_buft(device, buft);
}

bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const ggml_tensor * op) {
    if (device == nullptr || op == nullptr || device->iface.offload_op == nullptr) {
        return false;
    }
    return device->iface.offload_op(device, op);
}

} // extern "C"
