// Buffer type wrappers: validate the handle, supply the defaults of the optional vtable members
// (get_max_size: SIZE_MAX, get_alloc_size: ggml_nbytes, is_host: false) and turn allocation failures into a
// logged NULL.
#include "ggml-backend-impl.h"

#include "base/guard.h"
#include "base/log.h"

#include <cstdint>

using namespace switchyard;

extern "C" {

const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft) {
    if (buft == nullptr) {
        return "NULL";
    }
    return buft->iface.get_name(buft);
}

ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (buft == nullptr) {
        log_error("[ggml_backend_buft_alloc_buffer] buffer type is NULL\n");
        return nullptr;
    }
    if (size == 0) {
        // a valid, empty buffer: no vtable, NULL base; the backend is not involved
        return ggml_backend_buffer_init(buft, {}, nullptr, 0);
    }
    ggml_backend_buffer_t buffer =
        guard("ggml_backend_buft_alloc_buffer", nullptr, [&] { return buft->iface.alloc_buffer(buft, size); });
    if (buffer == nullptr) {
        log_error("[ggml_backend_buft_alloc_buffer] cannot allocate %zu bytes in buffer type %s\n", size,
                  ggml_backend_buft_name(buft));
    }
    return buffer;
}

size_t ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    if (buft == nullptr) {
        log_error("[ggml_backend_buft_get_alignment] buffer type is NULL\n");
        return 1;
    }
    return buft->iface.get_alignment(buft);
}

size_t ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    if (buft == nullptr || buft->iface.get_max_size == nullptr) {
        return SIZE_MAX;
    }
    return buft->iface.get_max_size(buft);
}

size_t ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * tensor) {
    const size_t nbytes = ggml_nbytes(tensor);
    if (buft == nullptr || buft->iface.get_alloc_size == nullptr) {
        return nbytes;
    }
    const size_t size = buft->iface.get_alloc_size(buft, tensor);
    if (size < nbytes) {
        // a backend bug; never hand out less than the tensor needs
        log_error("[ggml_backend_buft_get_alloc_size] buffer type %s reports %zu bytes for tensor '%s' of %zu bytes\n",
                  ggml_backend_buft_name(buft), size, tensor->name, nbytes);
        return nbytes;
    }
    return size;
}

bool ggml_op_alloc_size_may_expand(enum ggml_op op) {
    switch (op) {
        case GGML_OP_FLASH_ATTN_EXT:
        case GGML_OP_MUL_MAT:
        case GGML_OP_MUL_MAT_ID:
        case GGML_OP_CUMSUM:
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K:    return true;
        default:               return false;
    }
}

bool ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft) {
    if (buft == nullptr || buft->iface.is_host == nullptr) {
        return false;
    }
    return buft->iface.is_host(buft);
}

ggml_backend_dev_t ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft) {
    return buft != nullptr ? buft->device : nullptr;
}

} // extern "C"
