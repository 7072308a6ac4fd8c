// The ggml device of a Vulkan device: properties, memory, backends, buffer types, events, and which ops it
// computes (the op table, after checking that every operand lives in this device's memory).
#include "vulkan/backend.h"

#include "vulkan/buffer.h"
#include "vulkan/ops.h"

namespace switchyard::vulkan {

namespace {

const char * dev_get_name(ggml_backend_dev_t dev) { return device_of(dev)->name().c_str(); }
const char * dev_get_description(ggml_backend_dev_t dev) { return device_of(dev)->description().c_str(); }

void dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) { device_of(dev)->memory_info(free, total); }

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t dev) {
    return device_of(dev)->physical().props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU
               ? GGML_BACKEND_DEVICE_TYPE_IGPU
               : GGML_BACKEND_DEVICE_TYPE_GPU;
}

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(dev);
    props->description = dev_get_description(dev);
    props->type        = dev_get_type(dev);
    props->device_id   = nullptr;
    dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = true;
    props->caps.host_buffer          = true;
    props->caps.buffer_from_host_ptr = device_of(dev)->physical().external_memory_host;
    props->caps.events               = true;
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char *) { return make_backend(*device_of(dev)); }

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t dev) { return &device_of(dev)->buffer_type; }

ggml_backend_buffer_type_t dev_get_host_buffer_type(ggml_backend_dev_t dev) { return &device_of(dev)->host_buffer_type; }

ggml_backend_buffer_t dev_buffer_from_host_ptr(ggml_backend_dev_t dev, void * ptr, size_t size, size_t) {
    return buffer_from_host_ptr(*device_of(dev), ptr, size);
}

// true when t is not allocated yet (the scheduler asks before allocating) or lives in this device's memory. A
// buffer of this device's type that is not one of our buffers stands for memory on this device: the meta device
// asks with such stand-ins for its slices (buffer type only, no storage).
bool in_device_memory(const Device * device, const ggml_tensor * t) {
    const ggml_backend_buffer * buffer = storage_of(t);
    if (buffer == nullptr) {
        return true;
    }
    if (!is_vk_buffer(buffer)) {
        return buffer->buft == &device->buffer_type;
    }
    TensorRef ref;
    return tensor_ref(t, ref) && ref.device == device;
}

bool dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    const Device * device = device_of(dev);
    if (is_empty_op(op->op)) {
        return true;
    }
    const OpInfo & info = op_info(op->op);
    if (info.supports == nullptr || !in_device_memory(device, op)) {
        return false;
    }
    for (const ggml_tensor * src : op->src) {
        if (src != nullptr && !in_device_memory(device, src)) {
            return false;
        }
    }
    return info.supports(*device, op) && fits_device(*device, op);
}

bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return buft == &device_of(dev)->buffer_type;
}

// Worth copying weights over for: matrix products and the like over a batch of at least 32 rows.
bool dev_offload_op(ggml_backend_dev_t, const ggml_tensor * op) {
    return op->op != GGML_OP_GET_ROWS && op->ne[1] >= 32;
}

} // namespace

ggml_backend_device_i device_interface() {
    return {
        .get_name             = dev_get_name,
        .get_description      = dev_get_description,
        .get_memory           = dev_get_memory,
        .get_type             = dev_get_type,
        .get_props            = dev_get_props,
        .init_backend         = dev_init_backend,
        .get_buffer_type      = dev_get_buffer_type,
        .get_host_buffer_type = dev_get_host_buffer_type,
        .buffer_from_host_ptr = dev_buffer_from_host_ptr,
        .supports_op          = dev_supports_op,
        .supports_buft        = dev_supports_buft,
        .offload_op           = dev_offload_op,
        .event_new            = event_new,
        .event_free           = event_free,
        .event_synchronize    = event_synchronize,
    };
}

} // namespace switchyard::vulkan
