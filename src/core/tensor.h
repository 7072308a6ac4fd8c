// Tensor creation and the helpers op constructors share: allocation in a context, views, op parameters.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace switchyard {

// The largest byte size of a tensor, and of the memory a view spans. Anything larger counts as an overflow, so
// that a pointer plus a size (or the difference of two pointers into a tensor) stays representable.
constexpr size_t kMaxTensorBytes = PTRDIFF_MAX;

struct PackedSize {
    int64_t nelements; // product of the extents
    size_t  nbytes;    // bytes of the contiguous layout (whole blocks of the type)
};

// Element count and contiguous byte size of a tensor of `type` with extents ne[0..n_dims) (the others 1): the
// one size computation every constructor uses. Requires a valid type, extents >= 0 and ne[0] a whole number of
// blocks (callers check and report those). std::nullopt when the count exceeds INT64_MAX or the bytes exceed
// kMaxTensorBytes.
std::optional<PackedSize> packed_size(ggml_type type, int n_dims, const int64_t * ne);

// Logs "[caller] the size of a <type> tensor of [ne0, ne1, ne2, ne3] overflows (...)" for 4-d extents that
// packed_size rejected: the one message for that error, whichever constructor meets it.
void log_size_overflow(const char * caller, ggml_type type, const int64_t * ne);

// The bytes a tensor with 4-d extents ne and byte strides nb touches, from its first byte to one past its last
// (what ggml_nbytes computes for it): 0 when an extent is 0. Requires a valid type and extents >= 0.
// std::nullopt when the sum exceeds kMaxTensorBytes.
std::optional<size_t> strided_extent(ggml_type type, const int64_t * ne, const size_t * nb);

// Creates a tensor of `type` with n_dims extents ne[] in ctx (contiguous strides). When view_src is given the
// tensor aliases view_src's memory at view_offs (view_src itself may be a view: the root is used). Returns
// NULL, with a logged message naming `caller`, when the context is full or the arguments are invalid
// (unknown type, negative extent, a size that overflows (packed_size), view out of range).
ggml_tensor * new_tensor_impl(ggml_context * ctx, ggml_type type, int n_dims, const int64_t * ne,
                              ggml_tensor * view_src, size_t view_offs, const char * caller);

// A tensor with a's metadata aliasing a's memory (op NONE, name "<a> (view)"). NULL (logged) when a's extents
// and strides reach past its root's memory (only possible for a tensor whose fields were changed by hand).
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
