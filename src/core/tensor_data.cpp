// Operations on tensor data that belong to the core API.
#include "ggml-backend.h"
#include "ggml.h"

#include <cstring>

extern "C" struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor) {
    if (ggml_is_empty(tensor)) {
        return tensor;
    }
    if (tensor->buffer) {
        ggml_backend_tensor_memset(tensor, 0, 0, ggml_nbytes(tensor));
    } else if (tensor->data) {
        std::memset(tensor->data, 0, ggml_nbytes(tensor));
    }
    return tensor;
}
