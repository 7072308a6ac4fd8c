// Helpers shared by the op constructors (src/core/ops/<family>.cpp).
//
// Every constructor follows the same steps:
//   1. inputs_ok: a NULL input means an earlier constructor failed (context full). Log and return NULL, so a
//      failure travels down the expression instead of crashing it.
//   2. shape_check: impossible shapes and types are programming errors. They are logged as
//      "[ggml_xxx] <what> <shapes>" and end in switchyard::fatal (the abort callback, then abort), as upstream.
//   3. Create the result (new_result / like), which returns NULL when the context is full: pass it on.
//   4. set_op (null-safe) records the op and the sources; op parameters go into op_params with the exact
//      layout upstream backends read.
// Constructors never touch tensor data.
#pragma once

#include "ggml.h"

#include "core/tensor.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>

namespace switchyard::ops {

using Ne = std::array<int64_t, GGML_MAX_DIMS>;

// Text for a message, in a buffer that lives until the end of the full expression that created it.
struct ShapeText {
    char text[96];
};

// A tensor's shape as a shape_check argument for a %s: "f32 [4, 3, 2, 1]", formatted only when the check fails
// (constructors run for every node of every graph an engine builds, and nearly every check passes).
struct ShapeOf {
    const ggml_tensor * tensor;
};
inline ShapeOf shape(const ggml_tensor * t) { return ShapeOf{t}; }
ShapeText      shape_text(const ggml_tensor * t);

// false (with a log line naming `op`) when one of `inputs` is NULL. Optional inputs are not listed.
bool inputs_ok(const char * op, std::initializer_list<const ggml_tensor *> inputs);

// Logs "[op] <formatted message>" and calls fatal (does not return).
[[noreturn]] void shape_fail(const char * op, const char * fmt, ...) __attribute__((format(printf, 2, 3)));

namespace detail {
template <class T>
const T & printable(const T & v) {
    return v;
}
inline ShapeText printable(ShapeOf s) { return shape_text(s.tensor); }
template <class T>
const T & vararg(const T & v) {
    return v;
}
inline const char * vararg(const ShapeText & s) { return s.text; }
} // namespace detail

// When cond is false: shape_fail with the printf-style message; shape(t) arguments become their text then. The
// arguments must match fmt as for printf (the format is checked at run time only, on failure).
template <class... Args>
inline void shape_check(bool cond, const char * op, const char * fmt, const Args &... args) {
    if (cond) [[likely]] {
        return;
    }
    if constexpr (sizeof...(Args) == 0) {
        shape_fail(op, "%s", fmt); // a message without arguments is printed as it is
    } else {
        shape_fail(op, fmt, detail::vararg(detail::printable(args))...);
    }
}

// "[ne0, ne1, ne2, ne3]" and "[nb0, nb1, nb2, nb3]" for messages, alive as long as a ShapeText.
ShapeText dims_text(const int64_t * ne);
ShapeText strides_text(const size_t * nb);

// The element count and packed size of a `type` tensor with 4-d extents ne (packed_size). A shape error when an
// extent is negative or ne[0] is not a whole number of blocks of type. A size that overflows is a user error, as
// in ggml_new_tensor: logged ("[op] the size of ... overflows"), std::nullopt, and the constructor returns NULL.
std::optional<PackedSize> checked_size(ggml_type type, const int64_t * ne, const char * op);

// The bytes that extents ne with strides nb reach from `offset` on (strided_extent) lie inside memory_bytes
// bytes; a shape error otherwise, also when the extent overflows. `what` names the memory in the message, followed
// by the shape of `of` when it is not NULL (formatted only when the check fails).
void check_strided_range(ggml_type type, const int64_t * ne, const size_t * nb, size_t offset, size_t memory_bytes,
                         const char * what, const ggml_tensor * of, const char * op);

// A fresh contiguous tensor of `type` with 4-d extents ne (NULL when the context is full).
ggml_tensor * new_result(ggml_context * ctx, ggml_type type, const Ne & ne, const char * op);

// A fresh tensor shaped like a (inplace = false) or a view of a (inplace = true).
ggml_tensor * like(ggml_context * ctx, ggml_tensor * a, bool inplace, const char * op);

// Records op and sources src[0..] on t; returns t. NULL in, NULL out. Sources may be NULL (optional ones).
ggml_tensor * set_op(ggml_tensor * t, ggml_op op, std::initializer_list<ggml_tensor *> srcs);

// Writes int32 / float op parameters into slots 0.. of t; returns t. NULL in, NULL out.
ggml_tensor * with_i32(ggml_tensor * t, std::initializer_list<int32_t> values);
ggml_tensor * with_f32(ggml_tensor * t, std::initializer_list<float> values);

// Elements of each row are adjacent and rows, planes and volumes are packed (row padding allowed).
bool is_padded_1d(const ggml_tensor * t);

// t0 repeats into t1 and their rows have the same length.
bool can_repeat_rows(const ggml_tensor * t0, const ggml_tensor * t1);

// n is a whole multiple of d (0 only divides 0); avoids the division by zero of n % d for empty tensors.
inline bool divisible(int64_t n, int64_t d) {
    return d != 0 ? n % d == 0 : n == 0;
}

// The element type of the columns ggml_conv_1d / _2d / _3d and their depthwise forms unfold their data into
// (upstream's rule): F32 for a BF16 kernel, F16 for any other.
inline ggml_type conv_columns_type(const ggml_tensor * kernel) {
    return kernel->type == GGML_TYPE_BF16 ? GGML_TYPE_F32 : GGML_TYPE_F16;
}

// Shorthands for a tensor's extents as an Ne.
inline Ne ne_of(const ggml_tensor * t) {
    return {t->ne[0], t->ne[1], t->ne[2], t->ne[3]};
}

} // namespace switchyard::ops
