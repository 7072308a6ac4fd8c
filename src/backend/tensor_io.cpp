// Tensor data access: blocking set/get/memset (1-D and strided 2-D) and their asynchronous variants on a
// backend's stream. Every request is range-checked here, once; the buffer and backend implementations then
// assume valid input. Invalid requests are logged and dropped (the C functions return void).
#include "backend/tensor_io.h"

#include "ggml-backend-impl.h"

#include "base/log.h"

#include <cstddef>
#include <cstdint>

using namespace switchyard;

namespace switchyard::backend {

ggml_backend_buffer_t tensor_buffer(const ggml_tensor * tensor) {
    if (tensor == nullptr) {
        return nullptr;
    }
    return tensor->view_src != nullptr ? tensor->view_src->buffer : tensor->buffer;
}

bool same_layout(const ggml_tensor * a, const ggml_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

namespace {

bool check_allocated(const ggml_tensor * tensor, const char * caller) {
    if (tensor == nullptr) {
        log_error("[%s] tensor is NULL\n", caller);
        return false;
    }
    if (tensor_buffer(tensor) == nullptr) {
        log_error("[%s] tensor '%s' has no buffer\n", caller, tensor->name);
        return false;
    }
    if (tensor->data == nullptr) {
        log_error("[%s] tensor '%s' is not allocated (data is NULL)\n", caller, tensor->name);
        return false;
    }
    return true;
}

// The bytes [begin, end) of the tensor's data lie inside its buffer's memory: a view's data, or data set by hand,
// may not. Device buffers hand out addresses relative to their (possibly fake) base, so the comparison holds for
// them too. A buffer of 0 bytes (whose interface may be empty) holds no byte at all. Not checked: buffers without
// a base address (a multi-buffer, whose tensors live in its parts). Called with begin <= end.
bool check_in_buffer(const ggml_tensor * tensor, size_t begin, size_t end, const char * caller) {
    ggml_backend_buffer_t buf  = tensor_buffer(tensor);
    const size_t          size = ggml_backend_buffer_get_size(buf);
    uintptr_t             base = 0;
    if (size > 0) {
        base = buf->iface.get_base != nullptr ? reinterpret_cast<uintptr_t>(buf->iface.get_base(buf)) : 0;
        if (base == 0) {
            return true;
        }
    }
    // data + end <= base + size, without forming a sum that may wrap
    const auto data = reinterpret_cast<uintptr_t>(tensor->data);
    if (data < base || data - base > size || end > size - (data - base)) {
        log_error("[%s] out of range: bytes %zu to %zu of tensor '%s' (data at offset %td of its buffer) leave "
                  "buffer %s of %zu bytes\n",
                  caller, begin, end, tensor->name, static_cast<ptrdiff_t>(data - base),
                  ggml_backend_buffer_name(buf), size);
        return false;
    }
    return true;
}

bool check_host_pointer(const void * data, const char * caller) {
    if (data == nullptr) {
        log_error("[%s] host data pointer is NULL\n", caller);
        return false;
    }
    return true;
}

} // namespace

bool check_range(const ggml_tensor * tensor, size_t offset, size_t size, const char * caller) {
    if (!check_allocated(tensor, caller)) {
        return false;
    }
    const size_t nbytes = ggml_nbytes(tensor);
    if (offset > nbytes || size > nbytes - offset) {
        log_error("[%s] out of range: %zu bytes at offset %zu, tensor '%s' has %zu bytes\n", caller, size, offset,
                  tensor->name, nbytes);
        return false;
    }
    return check_in_buffer(tensor, offset, offset + size, caller);
}

bool check_range_2d(const ggml_tensor * tensor, size_t offset, size_t size, size_t n_copies, size_t stride_tensor,
                    const char * caller) {
    if (!check_allocated(tensor, caller)) {
        return false;
    }
    // the last block starts furthest: offset + (n_copies - 1) * stride_tensor
    size_t last = 0;
    size_t end  = 0;
    const bool overflow = __builtin_mul_overflow(n_copies - 1, stride_tensor, &last) ||
                          __builtin_add_overflow(last, offset, &last) || __builtin_add_overflow(last, size, &end);
    const size_t nbytes = ggml_nbytes(tensor);
    if (overflow || end > nbytes) {
        log_error("[%s] out of range: %zu blocks of %zu bytes, %zu apart, at offset %zu; tensor '%s' has %zu bytes\n",
                  caller, n_copies, size, stride_tensor, offset, tensor->name, nbytes);
        return false;
    }
    return check_in_buffer(tensor, offset, end, caller);
}

bool tensor_set(ggml_tensor * tensor, const void * data, size_t offset, size_t size, const char * caller) {
    if (size == 0 && tensor != nullptr) {
        return true;
    }
    if (!check_range(tensor, offset, size, caller) || !check_host_pointer(data, caller)) {
        return false;
    }
    ggml_backend_buffer_t buf = tensor_buffer(tensor);
    buf->iface.set_tensor(buf, tensor, data, offset, size);
    return true;
}

bool tensor_get(const ggml_tensor * tensor, void * data, size_t offset, size_t size, const char * caller) {
    if (size == 0 && tensor != nullptr) {
        return true;
    }
    if (!check_range(tensor, offset, size, caller) || !check_host_pointer(data, caller)) {
        return false;
    }
    ggml_backend_buffer_t buf = tensor_buffer(tensor);
    buf->iface.get_tensor(buf, tensor, data, offset, size);
    return true;
}

bool tensor_memset(ggml_tensor * tensor, uint8_t value, size_t offset, size_t size, const char * caller) {
    if (size == 0 && tensor != nullptr) {
        return true;
    }
    if (!check_range(tensor, offset, size, caller)) {
        return false;
    }
    ggml_backend_buffer_t buf = tensor_buffer(tensor);
    if (buf->iface.memset_tensor == nullptr) {
        log_error("[%s] buffer %s does not support memset\n", caller, ggml_backend_buffer_name(buf));
        return false;
    }
    buf->iface.memset_tensor(buf, tensor, value, offset, size);
    return true;
}

} // namespace switchyard::backend

using namespace switchyard::backend;

namespace {

// Validates a 2-D request; false (logged) if invalid, or if there is nothing to copy.
bool prepare_2d(const ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies,
                size_t stride_tensor, const char * caller) {
    if (tensor == nullptr) {
        log_error("[%s] tensor is NULL\n", caller);
        return false;
    }
    if (size == 0 || n_copies == 0) {
        return false;
    }
    return check_range_2d(tensor, offset, size, n_copies, stride_tensor, caller) && check_host_pointer(data, caller);
}

bool check_backend(ggml_backend_t backend, const char * caller) {
    if (backend == nullptr) {
        log_error("[%s] backend is NULL\n", caller);
        return false;
    }
    return true;
}

} // namespace

extern "C" {

void ggml_backend_tensor_set(ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    tensor_set(tensor, data, offset, size, "ggml_backend_tensor_set");
}

void ggml_backend_tensor_get(const ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    tensor_get(tensor, data, offset, size, "ggml_backend_tensor_get");
}

void ggml_backend_tensor_memset(ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    tensor_memset(tensor, value, offset, size, "ggml_backend_tensor_memset");
}

void ggml_backend_tensor_set_2d(ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies,
                                size_t stride_tensor, size_t stride_data) {
    if (!prepare_2d(tensor, data, offset, size, n_copies, stride_tensor, "ggml_backend_tensor_set_2d")) {
        return;
    }
    ggml_backend_buffer_t buf = tensor_buffer(tensor);
    if (n_copies > 1 && buf->iface.set_tensor_2d != nullptr) {
        buf->iface.set_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; ++i) {
        buf->iface.set_tensor(buf, tensor, static_cast<const char *>(data) + i * stride_data,
                              offset + i * stride_tensor, size);
    }
}

void ggml_backend_tensor_get_2d(const ggml_tensor * tensor, void * data, size_t offset, size_t size, size_t n_copies,
                                size_t stride_tensor, size_t stride_data) {
    if (!prepare_2d(tensor, data, offset, size, n_copies, stride_tensor, "ggml_backend_tensor_get_2d")) {
        return;
    }
    ggml_backend_buffer_t buf = tensor_buffer(tensor);
    if (n_copies > 1 && buf->iface.get_tensor_2d != nullptr) {
        buf->iface.get_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; ++i) {
        buf->iface.get_tensor(buf, tensor, static_cast<char *>(data) + i * stride_data, offset + i * stride_tensor,
                              size);
    }
}

void ggml_backend_tensor_set_async(ggml_backend_t backend, ggml_tensor * tensor, const void * data, size_t offset,
                                   size_t size) {
    constexpr const char * kCaller = "ggml_backend_tensor_set_async";
    if (!check_backend(backend, kCaller) || (size == 0 && tensor != nullptr)) {
        return;
    }
    if (backend->iface.set_tensor_async == nullptr) {
        // no asynchronous path: wait for queued work so the write lands after it, as it would on the stream
        ggml_backend_synchronize(backend);
        tensor_set(tensor, data, offset, size, kCaller);
        return;
    }
    if (check_range(tensor, offset, size, kCaller) && check_host_pointer(data, kCaller)) {
        backend->iface.set_tensor_async(backend, tensor, data, offset, size);
    }
}

void ggml_backend_tensor_get_async(ggml_backend_t backend, const ggml_tensor * tensor, void * data, size_t offset,
                                   size_t size) {
    constexpr const char * kCaller = "ggml_backend_tensor_get_async";
    if (!check_backend(backend, kCaller) || (size == 0 && tensor != nullptr)) {
        return;
    }
    if (backend->iface.get_tensor_async == nullptr) {
        ggml_backend_synchronize(backend);
        tensor_get(tensor, data, offset, size, kCaller);
        return;
    }
    if (check_range(tensor, offset, size, kCaller) && check_host_pointer(data, kCaller)) {
        backend->iface.get_tensor_async(backend, tensor, data, offset, size);
    }
}

void ggml_backend_tensor_set_2d_async(ggml_backend_t backend, ggml_tensor * tensor, const void * data, size_t offset,
                                      size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    constexpr const char * kCaller = "ggml_backend_tensor_set_2d_async";
    if (!check_backend(backend, kCaller) ||
        !prepare_2d(tensor, data, offset, size, n_copies, stride_tensor, kCaller)) {
        return;
    }
    if (n_copies > 1 && backend->iface.set_tensor_2d_async != nullptr) {
        backend->iface.set_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; ++i) {
        ggml_backend_tensor_set_async(backend, tensor, static_cast<const char *>(data) + i * stride_data,
                                      offset + i * stride_tensor, size);
    }
}

void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const ggml_tensor * tensor, void * data, size_t offset,
                                      size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    constexpr const char * kCaller = "ggml_backend_tensor_get_2d_async";
    if (!check_backend(backend, kCaller) ||
        !prepare_2d(tensor, data, offset, size, n_copies, stride_tensor, kCaller)) {
        return;
    }
    if (n_copies > 1 && backend->iface.get_tensor_2d_async != nullptr) {
        backend->iface.get_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; ++i) {
        ggml_backend_tensor_get_async(backend, tensor, static_cast<char *>(data) + i * stride_data,
                                      offset + i * stride_tensor, size);
    }
}

} // extern "C"
