// Operations on tensor data that belong to the core API.
#include "ggml-backend.h"
#include "ggml.h"

#include "base/log.h"

#include <cstring>

// Tensors in a backend buffer may live in device memory (tensor->data is then not a host pointer): they are
// cleared through the buffer interface. Tensors allocated in a context are cleared in place.
extern "C" struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor) {
    if (!tensor || ggml_is_empty(tensor)) {
        return tensor;
    }
    if (tensor->buffer) {
        ggml_backend_tensor_memset(tensor, 0, 0, ggml_nbytes(tensor));
    } else if (tensor->data) {
        std::memset(tensor->data, 0, ggml_nbytes(tensor));
    } else {
        switchyard::log_error("[ggml_set_zero] tensor '%s' has no data (no_alloc context, not allocated yet)\n",
                              tensor->name);
    }
    return tensor;
}
