// Buffer wrappers. A buffer is one allocation of a buffer type; tensors are placed in it. Zero-size buffers
// are legal everywhere: they have no vtable, their base is NULL and clear does nothing.
#include "ggml-backend-impl.h"

#include "base/guard.h"
#include "base/log.h"

#include <new>

using namespace switchyard;

extern "C" {

ggml_backend_buffer_t ggml_backend_buffer_init(ggml_backend_buffer_type_t buft, ggml_backend_buffer_i iface,
                                               void * context, size_t size) {
    auto * buffer = new (std::nothrow) ggml_backend_buffer{iface, buft, context, size, GGML_BACKEND_BUFFER_USAGE_ANY};
    if (buffer == nullptr) {
        log_error("[ggml_backend_buffer_init] out of memory\n");
    }
    return buffer;
}

const char * ggml_backend_buffer_name(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_name(ggml_backend_buffer_get_type(buffer));
}

void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (buffer == nullptr) {
        return;
    }
    if (buffer->iface.free_buffer != nullptr) {
        buffer->iface.free_buffer(buffer);
    }
    delete buffer;
}

void * ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer) {
    if (buffer == nullptr || buffer->size == 0) {
        return nullptr;
    }
    if (buffer->iface.get_base == nullptr) {
        // e.g. a multi-buffer: its tensors live in the buffers it is made of
        return nullptr;
    }
    void * base = buffer->iface.get_base(buffer);
    if (base == nullptr) {
        log_error("[ggml_backend_buffer_get_base] buffer %s of %zu bytes has a NULL base\n",
                  ggml_backend_buffer_name(buffer), buffer->size);
    }
    return base;
}

size_t ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer) {
    return buffer != nullptr ? buffer->size : 0;
}

enum ggml_status ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer, ggml_tensor * tensor) {
    if (buffer == nullptr || tensor == nullptr) {
        log_error("[ggml_backend_buffer_init_tensor] %s is NULL\n", buffer == nullptr ? "buffer" : "tensor");
        return GGML_STATUS_FAILED;
    }
    if (buffer->iface.init_tensor == nullptr) {
        return GGML_STATUS_SUCCESS;
    }
    return buffer->iface.init_tensor(buffer, tensor);
}

size_t ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_alignment(ggml_backend_buffer_get_type(buffer));
}

size_t ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_max_size(ggml_backend_buffer_get_type(buffer));
}

size_t ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const ggml_tensor * tensor) {
    return ggml_backend_buft_get_alloc_size(ggml_backend_buffer_get_type(buffer), tensor);
}

void ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    if (buffer == nullptr || buffer->size == 0) {
        return;
    }
    if (buffer->iface.clear == nullptr) {
        log_error("[ggml_backend_buffer_clear] buffer %s cannot be cleared\n", ggml_backend_buffer_name(buffer));
        return;
    }
    buffer->iface.clear(buffer, value);
}

bool ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_is_host(ggml_backend_buffer_get_type(buffer));
}

void ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    if (buffer == nullptr) {
        return;
    }
    buffer->usage = usage;
    if (ggml_backend_buffer_is_multi_buffer(buffer)) {
        ggml_backend_multi_buffer_set_usage(buffer, usage);
    } else if (ggml_backend_buffer_is_meta(buffer)) {
        ggml_backend_meta_buffer_set_usage(buffer, usage);
    }
}

enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer) {
    return buffer != nullptr ? buffer->usage : GGML_BACKEND_BUFFER_USAGE_ANY;
}

ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer) {
    return buffer != nullptr ? buffer->buft : nullptr;
}

void ggml_backend_buffer_reset(ggml_backend_buffer_t buffer) {
    if (buffer != nullptr && buffer->iface.reset != nullptr) {
        buffer->iface.reset(buffer);
    }
}

bool ggml_backend_buffer_copy_tensor(const ggml_tensor * src, ggml_tensor * dst) {
    if (src == nullptr || dst == nullptr) {
        log_error("[ggml_backend_buffer_copy_tensor] %s tensor is NULL\n", src == nullptr ? "source" : "destination");
        return false;
    }
    ggml_backend_buffer_t dst_buf = dst->view_src != nullptr ? dst->view_src->buffer : dst->buffer;
    if (dst_buf == nullptr || dst_buf->iface.cpy_tensor == nullptr) {
        return false;
    }
    return guard("ggml_backend_buffer_copy_tensor", false, [&] { return dst_buf->iface.cpy_tensor(dst_buf, src, dst); });
}

} // extern "C"
