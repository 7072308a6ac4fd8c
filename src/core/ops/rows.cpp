// Row gathers and scatters (GET_ROWS, SET_ROWS) and the causal mask DIAG_MASK_INF.
//
// GET_ROWS: a [n_embd, ne1, ne2, ne3], b I32 [n_rows, ne2, ne3] -> [n_embd, n_rows, ne2, ne3], F32 (I32 when a
//           is I32). src = {a, b}.
// SET_ROWS: a (destination) [n_embd, ne1, ne2, ne3], b F32 (rows) [n_embd, n_rows, ne2, ne3], c I64/I32 (row
//           indices) [n_rows, ne11, ne12] broadcast with ne2 % ne11 == 0, ne3 % ne12 == 0. The result is a view
//           of a with src = {b, c, a}: upstream's order, which backends read (src[0] rows, src[1] indices).
// DIAG_MASK_INF, DIAG_MASK_ZERO: op_params[0] = n_past (i32); elements with i0 > n_past + i1 become -inf (0);
//           result like a, `_inplace` a view of a.
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

ggml_tensor * diag_mask_impl(ggml_context * ctx, ggml_tensor * a, int n_past, bool inplace, ggml_op op,
                             const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return with_i32(set_op(like(ctx, a, inplace, name), op, {a}), {n_past});
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_get_rows";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[2] == b->ne[1] && a->ne[3] == b->ne[2] && b->ne[3] == 1, name,
                "indices b %s must be [n_rows, a->ne[2], a->ne[3]] for a %s", shape(b), shape(a));
    shape_check(b->type == GGML_TYPE_I32, name, "indices b %s must be i32", shape(b));
    const ggml_type type = a->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    const Ne        ne   = {a->ne[0], b->ne[0], b->ne[1], b->ne[2]};
    return set_op(new_result(ctx, type, ne, name), GGML_OP_GET_ROWS, {a, b});
}

struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   struct ggml_tensor * c) {
    const char * name = "ggml_set_rows";
    if (!inputs_ok(name, {a, b, c})) {
        return nullptr;
    }
    shape_check(a->ne[0] == b->ne[0] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3], name,
                "rows b %s do not fit the destination a %s", shape(b), shape(a));
    shape_check(b->ne[1] == c->ne[0] && divisible(b->ne[2], c->ne[1]) && divisible(b->ne[3], c->ne[2]) &&
                    c->ne[3] == 1,
                name, "indices c %s must be [n_rows, ne11, ne12] broadcastable to rows b %s", shape(c),
                shape(b));
    shape_check(b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16, name, "rows b %s must be f32 or f16", shape(b));
    shape_check(c->type == GGML_TYPE_I64 || c->type == GGML_TYPE_I32, name, "indices c %s must be i64 or i32",
                shape(c));
    shape_check(ggml_is_contiguous_rows(a) && ggml_is_contiguous_rows(b), name,
                "a %s and b %s must have adjacent elements within rows", shape(a), shape(b));
    return set_op(view_of(ctx, a, name), GGML_OP_SET_ROWS, {b, c, a});
}

struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, false, GGML_OP_DIAG_MASK_INF, "ggml_diag_mask_inf");
}

struct ggml_tensor * ggml_diag_mask_inf_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, true, GGML_OP_DIAG_MASK_INF, "ggml_diag_mask_inf_inplace");
}

struct ggml_tensor * ggml_diag_mask_zero(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, false, GGML_OP_DIAG_MASK_ZERO, "ggml_diag_mask_zero");
}

struct ggml_tensor * ggml_diag_mask_zero_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return diag_mask_impl(ctx, a, n_past, true, GGML_OP_DIAG_MASK_ZERO, "ggml_diag_mask_zero_inplace");
}

} // extern "C"
