// Ops of SAM's (Segment Anything) image encoder: windowing (WIN_PART, WIN_UNPART) and decomposed relative position
// attention (GET_REL_POS, ADD_REL_POS).
//
// WIN_PART: a F32 [C, W, H, 1] cut into w x w windows, zero padded at the right and bottom up to multiples of w:
//   npx = ceil(W / w), npy = ceil(H / w) -> F32 [C, w, w, npx*npy], window (px, py) at index py*npx + px.
//   op_params {npx, npy, w}.
// WIN_UNPART: the inverse: a F32 [C, w, w, np] -> F32 [C, w0, h0, 1] (the padding dropped); op_params {w}.
// GET_REL_POS: a [C, 2*qh - 1] (qh = kh) -> F16 [C, kh, qh], row (k, q) a copy of a's row (kh - 1 - k + q).
// ADD_REL_POS: a F32 contiguous [kw*kh, qw*qh, n, 1], pw and ph F32 contiguous [kw, qw, qh, n] of one shape;
//   dst[c, r, i] = a[c, r, i] + ph[c / kw, r % qw, r / qw, i] + pw[c % kw, r % qw, r / qw, i] (kh = kw).
//   op_params[0] = inplace; the result is a's shape, a view of a for `_inplace`.
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

ggml_tensor * add_rel_pos_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * pw, ggml_tensor * ph, bool inplace,
                               const char * name) {
    if (!inputs_ok(name, {a, pw, ph})) {
        return nullptr;
    }
    shape_check(ggml_are_same_shape(pw, ph), name, "pw %s and ph %s differ in shape", shape(pw), shape(ph));
    shape_check(ggml_is_contiguous(a) && ggml_is_contiguous(pw) && ggml_is_contiguous(ph), name,
                "a %s, pw %s and ph %s must be contiguous", shape(a), shape(pw), shape(ph));
    shape_check(a->type == GGML_TYPE_F32 && pw->type == GGML_TYPE_F32 && ph->type == GGML_TYPE_F32, name,
                "a %s, pw %s and ph %s must be f32", shape(a), shape(pw), shape(ph));
    shape_check(pw->ne[3] == a->ne[2] && pw->ne[0] * pw->ne[0] == a->ne[0] && pw->ne[1] * pw->ne[2] == a->ne[1] &&
                    a->ne[3] == 1,
                name, "pw %s must be [kw, qw, qh, n] for a %s = [kw*kw, qw*qh, n, 1]", shape(pw), shape(a));
    ggml_tensor * t = set_op(like(ctx, a, inplace, name), GGML_OP_ADD_REL_POS, {a, pw, ph});
    return with_i32(t, {inplace ? 1 : 0});
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_win_part(struct ggml_context * ctx, struct ggml_tensor * a, int w) {
    const char * name = "ggml_win_part";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->ne[3] == 1, name, "a %s must be 3-d [C, W, H, 1]", shape(a));
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    shape_check(w > 0, name, "window size w = %d must be positive", w);
    const int64_t npx = (a->ne[1] + w - 1) / w;
    const int64_t npy = (a->ne[2] + w - 1) / w;
    ggml_tensor * t   = set_op(new_result(ctx, GGML_TYPE_F32, {a->ne[0], w, w, npx * npy}, name), GGML_OP_WIN_PART, {a});
    return with_i32(t, {static_cast<int32_t>(npx), static_cast<int32_t>(npy), w});
}

struct ggml_tensor * ggml_win_unpart(struct ggml_context * ctx, struct ggml_tensor * a, int w0, int h0, int w) {
    const char * name = "ggml_win_unpart";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    shape_check(w > 0 && w0 >= 0 && h0 >= 0, name, "window size %d must be positive and w0 = %d, h0 = %d not negative",
                w, w0, h0);
    const int64_t npx = (w0 + w - 1) / w, npy = (h0 + w - 1) / w;
    shape_check(a->ne[1] == w && a->ne[2] == w && a->ne[3] == npx * npy, name,
                "a %s must hold %lld x %lld windows of %d x %d for a %d x %d result", shape(a),
                static_cast<long long>(npx), static_cast<long long>(npy), w, w, w0, h0);
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, {a->ne[0], w0, h0, 1}, name), GGML_OP_WIN_UNPART, {a});
    return with_i32(t, {w});
}

struct ggml_tensor * ggml_get_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, int qh, int kh) {
    const char * name = "ggml_get_rel_pos";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(qh == kh && qh > 0, name, "qh = %d and kh = %d must be equal and positive", qh, kh);
    shape_check(a->ne[1] == 2 * static_cast<int64_t>(kh) - 1, name, "a %s must have 2*kh - 1 = %d rows", shape(a),
                2 * kh - 1);
    return set_op(new_result(ctx, GGML_TYPE_F16, {a->ne[0], kh, qh, 1}, name), GGML_OP_GET_REL_POS, {a});
}

struct ggml_tensor * ggml_add_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pw,
                                      struct ggml_tensor * ph) {
    return add_rel_pos_impl(ctx, a, pw, ph, false, "ggml_add_rel_pos");
}

struct ggml_tensor * ggml_add_rel_pos_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                              struct ggml_tensor * pw, struct ggml_tensor * ph) {
    return add_rel_pos_impl(ctx, a, pw, ph, true, "ggml_add_rel_pos_inplace");
}

} // extern "C"
