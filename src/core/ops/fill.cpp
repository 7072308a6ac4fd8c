// Ops that write a constant everywhere or around the values they keep: FILL, TRI and DIAG.
//
// FILL: a's shape and type (F32 or F16, contiguous); every element c; op_params (f32) [0] = c. `_inplace` returns a
//       view of a. src = {a}: a gives the shape (and the memory, in place); its values are not read.
// TRI:  a F32, contiguous, square matrices (ne0 == ne1): the part `type` keeps (ggml_tri_type, op_params[0])
//       of each matrix is copied, the rest is 0. For column i0 of row i1, UPPER_DIAG keeps i0 >= i1, UPPER
//       i0 > i1, LOWER_DIAG i0 <= i1, LOWER i0 < i1.
// DIAG: a [n, 1, ne2, ne3] of any type -> [n, n, ne2, ne3] of a's type: element (i, i) of each matrix is a[i],
//       the others 0. No parameters.
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

ggml_tensor * fill_impl(ggml_context * ctx, ggml_tensor * a, float c, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16, name, "a %s must be f32 or f16", shape(a));
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_FILL, {a}), {c});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return fill_impl(ctx, a, c, false, "ggml_fill");
}

struct ggml_tensor * ggml_fill_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return fill_impl(ctx, a, c, true, "ggml_fill_inplace");
}

struct ggml_tensor * ggml_tri(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_tri_type type) {
    const char * name = "ggml_tri";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(type >= GGML_TRI_TYPE_UPPER_DIAG && type <= GGML_TRI_TYPE_LOWER, name, "unknown tri type %d",
                static_cast<int>(type));
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    shape_check(a->ne[0] == a->ne[1], name, "a %s must hold square matrices (ne[0] == ne[1])", shape(a));
    return with_i32(set_op(like(ctx, a, false, name), GGML_OP_TRI, {a}), {static_cast<int32_t>(type)});
}

struct ggml_tensor * ggml_diag(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_diag";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->ne[1] == 1, name, "a %s must be one row per matrix (ne[1] == 1)", shape(a));
    return set_op(new_result(ctx, a->type, {a->ne[0], a->ne[0], a->ne[2], a->ne[3]}, name), GGML_OP_DIAG, {a});
}

} // extern "C"
