// Multi-buffer: one buffer made of several buffers of the same type, used when a context's tensors exceed
// the buffer type's maximum size. Tensors are placed in the parts, never in the multi-buffer itself (it has no
// base address); the multi-buffer owns its parts, frees and clears them together and passes its usage on.
#include "ggml-backend-impl.h"

#include "base/log.h"

#include <new>
#include <vector>

using namespace switchyard;

namespace {

struct MultiBuffer {
    std::vector<ggml_backend_buffer_t> parts;
};

MultiBuffer * multi_of(ggml_backend_buffer_t buffer) {
    return static_cast<MultiBuffer *>(buffer->context);
}

void multi_free(ggml_backend_buffer_t buffer) {
    MultiBuffer * multi = multi_of(buffer);
    for (ggml_backend_buffer_t part : multi->parts) {
        ggml_backend_buffer_free(part);
    }
    delete multi;
}

void multi_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    for (ggml_backend_buffer_t part : multi_of(buffer)->parts) {
        ggml_backend_buffer_clear(part, value);
    }
}

constexpr ggml_backend_buffer_i kMultiBufferInterface = {
    /* .free_buffer   = */ multi_free,
    /* .get_base      = */ nullptr,
    /* .init_tensor   = */ nullptr,
    /* .memset_tensor = */ nullptr,
    /* .set_tensor    = */ nullptr,
    /* .get_tensor    = */ nullptr,
    /* .set_tensor_2d = */ nullptr,
    /* .get_tensor_2d = */ nullptr,
    /* .cpy_tensor    = */ nullptr,
    /* .clear         = */ multi_clear,
    /* .reset         = */ nullptr,
};

} // namespace

extern "C" {

ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers) {
    constexpr const char * kCaller = "ggml_backend_multi_buffer_alloc_buffer";
    if (buffers == nullptr || n_buffers == 0) {
        log_error("[%s] no buffers given\n", kCaller);
        return nullptr;
    }
    auto * multi = new (std::nothrow) MultiBuffer;
    if (multi == nullptr) {
        log_error("[%s] out of memory\n", kCaller);
        return nullptr;
    }
    size_t total_size = 0;
    for (size_t i = 0; i < n_buffers; ++i) {
        if (buffers[i] == nullptr) {
            log_error("[%s] buffer %zu is NULL\n", kCaller, i);
            delete multi;
            return nullptr;
        }
        total_size += ggml_backend_buffer_get_size(buffers[i]);
    }
    try {
        multi->parts.assign(buffers, buffers + n_buffers);
    } catch (const std::bad_alloc &) {
        log_error("[%s] out of memory\n", kCaller);
        delete multi;
        return nullptr;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buffers[0]->buft, kMultiBufferInterface, multi, total_size);
    if (buffer == nullptr) {
        delete multi; // the parts stay with the caller
    }
    return buffer;
}

bool ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer) {
    return buffer != nullptr && buffer->iface.free_buffer == multi_free;
}

void ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    if (!ggml_backend_buffer_is_multi_buffer(buffer)) {
        log_error("[ggml_backend_multi_buffer_set_usage] buffer %s is not a multi-buffer\n",
                  ggml_backend_buffer_name(buffer));
        return;
    }
    buffer->usage = usage;
    for (ggml_backend_buffer_t part : multi_of(buffer)->parts) {
        ggml_backend_buffer_set_usage(part, usage);
    }
}

} // extern "C"
