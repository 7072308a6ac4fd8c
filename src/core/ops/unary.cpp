// UNARY: element-wise activations selected by a sub-op. op_params[0] = (int32) ggml_unary_op. The result has
// a's shape and type; a's elements within a row must be adjacent (ggml_is_contiguous_rows). `_inplace`
// variants return a view of a.
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

ggml_tensor * unary_impl(ggml_context * ctx, ggml_tensor * a, ggml_unary_op op, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(op >= 0 && op < GGML_UNARY_OP_COUNT, name, "unknown unary op %d", static_cast<int>(op));
    shape_check(ggml_is_contiguous_rows(a), name, "a %s must have adjacent elements within each row (nb[0] = %zu)",
                shape(a).text, a->nb[0]);
    return with_i32(set_op(like(ctx, a, inplace, name), GGML_OP_UNARY, {a}), {static_cast<int32_t>(op)});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return unary_impl(ctx, a, op, false, "ggml_unary");
}

struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return unary_impl(ctx, a, op, true, "ggml_unary_inplace");
}

struct ggml_tensor * ggml_abs(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ABS, false, "ggml_abs");
}

struct ggml_tensor * ggml_abs_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ABS, true, "ggml_abs_inplace");
}

struct ggml_tensor * ggml_sgn(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SGN, false, "ggml_sgn");
}

struct ggml_tensor * ggml_sgn_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SGN, true, "ggml_sgn_inplace");
}

struct ggml_tensor * ggml_neg(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_NEG, false, "ggml_neg");
}

struct ggml_tensor * ggml_neg_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_NEG, true, "ggml_neg_inplace");
}

struct ggml_tensor * ggml_step(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_STEP, false, "ggml_step");
}

struct ggml_tensor * ggml_step_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_STEP, true, "ggml_step_inplace");
}

struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_TANH, false, "ggml_tanh");
}

struct ggml_tensor * ggml_tanh_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_TANH, true, "ggml_tanh_inplace");
}

struct ggml_tensor * ggml_elu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ELU, false, "ggml_elu");
}

struct ggml_tensor * ggml_elu_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ELU, true, "ggml_elu_inplace");
}

struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_RELU, false, "ggml_relu");
}

struct ggml_tensor * ggml_relu_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_RELU, true, "ggml_relu_inplace");
}

struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SIGMOID, false, "ggml_sigmoid");
}

struct ggml_tensor * ggml_sigmoid_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SIGMOID, true, "ggml_sigmoid_inplace");
}

struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU, false, "ggml_gelu");
}

struct ggml_tensor * ggml_gelu_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU, true, "ggml_gelu_inplace");
}

struct ggml_tensor * ggml_gelu_erf(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU_ERF, false, "ggml_gelu_erf");
}

struct ggml_tensor * ggml_gelu_erf_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU_ERF, true, "ggml_gelu_erf_inplace");
}

struct ggml_tensor * ggml_gelu_quick(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU_QUICK, false, "ggml_gelu_quick");
}

struct ggml_tensor * ggml_gelu_quick_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_GELU_QUICK, true, "ggml_gelu_quick_inplace");
}

struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SILU, false, "ggml_silu");
}

struct ggml_tensor * ggml_silu_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SILU, true, "ggml_silu_inplace");
}

struct ggml_tensor * ggml_hardswish(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_HARDSWISH, false, "ggml_hardswish");
}

struct ggml_tensor * ggml_hardsigmoid(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_HARDSIGMOID, false, "ggml_hardsigmoid");
}

struct ggml_tensor * ggml_exp(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_EXP, false, "ggml_exp");
}

struct ggml_tensor * ggml_exp_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_EXP, true, "ggml_exp_inplace");
}

struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SOFTPLUS, false, "ggml_softplus");
}

struct ggml_tensor * ggml_softplus_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_SOFTPLUS, true, "ggml_softplus_inplace");
}

} // extern "C"
