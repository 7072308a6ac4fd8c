// Tensor creation and the helpers op constructors share: allocation in a context, views, op parameters.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace switchyard {

// Creates a tensor of `type` with n_dims extents ne[] in ctx (contiguous strides). When view_src is given the
// tensor aliases view_src's memory at view_offs (view_src itself may be a view: the root is used). Returns
// NULL, with a logged message naming `caller`, when the context is full or the arguments are invalid
// (unknown type, negative extent, view out of range).
ggml_tensor * new_tensor_impl(ggml_context * ctx, ggml_type type, int n_dims, const int64_t * ne,
                              ggml_tensor * view_src, size_t view_offs, const char * caller);

// A tensor with a's metadata aliasing a's memory (op NONE, name "<a> (view)").
ggml_tensor * view_of(ggml_context * ctx, ggml_tensor * a, const char * caller);

// Op parameters are raw bytes in tensor->op_params (GGML_MAX_OP_PARAMS bytes).
inline void set_op_params(ggml_tensor * t, const void * params, size_t size) {
    std::memcpy(t->op_params, params, size);
}

inline int32_t get_op_param_i32(const ggml_tensor * t, int i) {
    return t->op_params[i];
}

inline void set_op_param_i32(ggml_tensor * t, int i, int32_t v) {
    t->op_params[i] = v;
}

inline float get_op_param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

inline void set_op_param_f32(ggml_tensor * t, int i, float v) {
    std::memcpy(&t->op_params[i], &v, sizeof(v));
}

} // namespace switchyard
