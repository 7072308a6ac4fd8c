// Layout predicates of the C API that complement the ggml_is_contiguous family (src/core/tensor.cpp):
//
// ggml_is_view             t aliases another tensor's memory (t->view_src is set): the view ops, `_inplace`
//                          results, ggml_cpy's result.
// ggml_is_contiguous_to_n  (n = 1, 2, 3) the dimensions below n are packed: element 0 adjacent (or a single
//                          block in the row), and each dimension 1 <= i < n follows the one before without gaps
//                          (dimensions of extent 1 may have any stride). Dimensions >= n may have any strides, so a
//                          tensor can be walked as ne[n] * ... separate packed pieces. The counterpart of
//                          ggml_is_contiguous_n, which checks the dimensions from n on.
#include "ggml.h"

#include <cstddef>

namespace {

bool is_contiguous_below(const ggml_tensor * t, int n) {
    const int64_t blck    = ggml_blck_size(t->type);
    size_t        next_nb = ggml_type_size(t->type);
    if (t->ne[0] != blck && t->nb[0] != next_nb) {
        return false;
    }
    next_nb *= static_cast<size_t>(t->ne[0] / blck);
    for (int i = 1; i < n; ++i) {
        if (t->ne[i] != 1 && t->nb[i] != next_nb) {
            return false;
        }
        next_nb *= static_cast<size_t>(t->ne[i]);
    }
    return true;
}

} // namespace

extern "C" {

bool ggml_is_view(const struct ggml_tensor * t) { return t->view_src != nullptr; }

bool ggml_is_contiguous_to_1(const struct ggml_tensor * t) { return is_contiguous_below(t, 1); }
bool ggml_is_contiguous_to_2(const struct ggml_tensor * t) { return is_contiguous_below(t, 2); }
bool ggml_is_contiguous_to_3(const struct ggml_tensor * t) { return is_contiguous_below(t, 3); }

} // extern "C"
