// The gradient ops that ggml_build_backward_expand (core/backward.cpp) puts into graphs, each the derivative of a
// forward op with respect to its first input. By upstream's convention `a` is the gradient flowing back (shaped
// like the forward result) and the later sources are what the forward op saw or produced.
//
// SILU_BACK:     a dy, b x (the forward input), same shape; src = {a, b}. Result like a.
// RMS_NORM_BACK: a dy, b x, same shape; op_params[0] = eps (f32). Result like a.
// SOFT_MAX_BACK: a dy, b y (the forward output), same shape; op_params (f32) [0] scale, [1] max_bias. Result like
//                a, `_inplace` a view of a.
// REPEAT_BACK:   a the gradient of a repeat of b (b repeats into a); src = {a}. Result of a's type, b's shape.
// GET_ROWS_BACK: a F32 matrix [n_embd, n_rows] (gradient of the rows taken), b I32 vector [n_rows] (their
//                indices), c the matrix they were taken from (shape only, not a source); src = {a, b}. Result F32
//                [n_embd, c->ne[1]].
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

void check_same_shape(const ggml_tensor * a, const ggml_tensor * b, const char * name) {
    shape_check(ggml_are_same_shape(a, b), name, "the gradient a %s and b %s differ in shape", shape(a), shape(b));
}

ggml_tensor * soft_max_back_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, float scale, float max_bias,
                                 bool inplace, const char * name) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    check_same_shape(a, b, name);
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_SOFT_MAX_BACK, {a, b}), {scale, max_bias});
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_silu_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_silu_back";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    check_same_shape(a, b, name);
    return set_op(like(ctx, a, false, name), GGML_OP_SILU_BACK, {a, b});
}

struct ggml_tensor * ggml_rms_norm_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        float eps) {
    const char * name = "ggml_rms_norm_back";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    check_same_shape(a, b, name);
    return with_f32(set_op(like(ctx, a, false, name), GGML_OP_RMS_NORM_BACK, {a, b}), {eps});
}

struct ggml_tensor * ggml_soft_max_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            float scale, float max_bias) {
    return soft_max_back_impl(ctx, a, b, scale, max_bias, false, "ggml_soft_max_ext_back");
}

struct ggml_tensor * ggml_soft_max_ext_back_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                                    struct ggml_tensor * b, float scale, float max_bias) {
    return soft_max_back_impl(ctx, a, b, scale, max_bias, true, "ggml_soft_max_ext_back_inplace");
}

struct ggml_tensor * ggml_repeat_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_repeat_back";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_can_repeat(b, a), name, "b %s does not repeat into a %s", shape(b), shape(a));
    return set_op(new_result(ctx, a->type, ne_of(b), name), GGML_OP_REPEAT_BACK, {a});
}

struct ggml_tensor * ggml_get_rows_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        struct ggml_tensor * c) {
    const char * name = "ggml_get_rows_back";
    if (!inputs_ok(name, {a, b, c})) {
        return nullptr;
    }
    shape_check(ggml_is_matrix(a) && ggml_is_matrix(c) && a->ne[0] == c->ne[0], name,
                "a %s and c %s must be matrices with rows of one length", shape(a), shape(c));
    // as upstream, b may hold fewer indices than a has rows (e.g. a view of the indices): rows past them are unused
    shape_check(ggml_is_vector(b) && b->type == GGML_TYPE_I32, name, "indices b %s must be an i32 vector",
                shape(b));
    return set_op(new_result(ctx, GGML_TYPE_F32, {c->ne[0], c->ne[1], 1, 1}, name), GGML_OP_GET_ROWS_BACK, {a, b});
}

} // extern "C"
