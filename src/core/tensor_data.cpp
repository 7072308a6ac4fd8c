// Operations on tensor data in host memory that belong to the core API.
#include "ggml.h"

#include <cstring>

extern "C" struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor) {
    if (ggml_is_empty(tensor) || !tensor->data) {
        return tensor;
    }
    std::memset(tensor->data, 0, ggml_nbytes(tensor));
    return tensor;
}
