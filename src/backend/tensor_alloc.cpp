// Placing tensors in buffers: ggml_backend_tensor_alloc gives a tensor its own memory at a given address of a
// buffer; ggml_backend_view_init derives a view's memory from its view source. Both then let the buffer
// initialize the tensor (init_tensor). Invalid placements are logged and return GGML_STATUS_FAILED.
#include "ggml-backend-impl.h"

#include "base/log.h"

#include <cstdint>

using namespace switchyard;

namespace {

// addr .. addr + alloc_size lies inside the buffer's memory.
bool fits(ggml_backend_buffer_t buffer, const ggml_tensor * tensor, const void * addr) {
    const auto   base       = reinterpret_cast<uintptr_t>(ggml_backend_buffer_get_base(buffer));
    const auto   at         = reinterpret_cast<uintptr_t>(addr);
    const size_t size       = ggml_backend_buffer_get_size(buffer);
    const size_t alloc_size = ggml_backend_buffer_get_alloc_size(buffer, tensor);
    if (at < base || at - base > size || alloc_size > size - (at - base)) {
        log_error("[ggml_backend_tensor_alloc] tensor '%s' (%zu bytes) at offset %td does not fit in buffer %s of "
                  "%zu bytes\n",
                  tensor->name, alloc_size, static_cast<ptrdiff_t>(at - base), ggml_backend_buffer_name(buffer), size);
        return false;
    }
    return true;
}

} // namespace

extern "C" {

enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, ggml_tensor * tensor, void * addr) {
    constexpr const char * kCaller = "ggml_backend_tensor_alloc";
    if (buffer == nullptr || tensor == nullptr) {
        log_error("[%s] %s is NULL\n", kCaller, buffer == nullptr ? "buffer" : "tensor");
        return GGML_STATUS_FAILED;
    }
    if (tensor->view_src != nullptr) {
        log_error("[%s] tensor '%s' is a view: use ggml_backend_view_init\n", kCaller, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (tensor->buffer != nullptr || tensor->data != nullptr) {
        log_error("[%s] tensor '%s' is already allocated\n", kCaller, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (!fits(buffer, tensor, addr)) {
        return GGML_STATUS_FAILED;
    }
    tensor->buffer = buffer;
    tensor->data   = addr;
    return ggml_backend_buffer_init_tensor(buffer, tensor);
}

enum ggml_status ggml_backend_view_init(ggml_tensor * tensor) {
    constexpr const char * kCaller = "ggml_backend_view_init";
    if (tensor == nullptr) {
        log_error("[%s] tensor is NULL\n", kCaller);
        return GGML_STATUS_FAILED;
    }
    const ggml_tensor * src = tensor->view_src;
    if (src == nullptr) {
        log_error("[%s] tensor '%s' is not a view\n", kCaller, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (src->buffer == nullptr || src->data == nullptr) {
        log_error("[%s] the source '%s' of view '%s' is not allocated\n", kCaller, src->name, tensor->name);
        return GGML_STATUS_FAILED;
    }
    // a view created after its source was allocated already carries the source's buffer; initializing it
    // (again) is fine, moving it to another buffer is not
    if (tensor->buffer != nullptr && tensor->buffer != src->buffer) {
        log_error("[%s] view '%s' is in buffer %s, its source '%s' in %s\n", kCaller, tensor->name,
                  ggml_backend_buffer_name(tensor->buffer), src->name, ggml_backend_buffer_name(src->buffer));
        return GGML_STATUS_FAILED;
    }
    tensor->buffer = src->buffer;
    tensor->data   = static_cast<char *>(src->data) + tensor->view_offs;
    return ggml_backend_buffer_init_tensor(tensor->buffer, tensor);
}

} // extern "C"
