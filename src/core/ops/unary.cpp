// UNARY: element-wise activations selected by a sub-op. op_params[0] = (int32) ggml_unary_op. The result has
// a's shape and type; a's elements within a row must be adjacent (ggml_is_contiguous_rows). `_inplace`
// variants return a view of a.
// XIELU (ggml_xielu) adds f32 op_params [1..4] = {beta + softplus(alpha_n), softplus(alpha_p), beta, eps}: the
// constrained coefficients, computed once here as upstream does (softplus(x) = x above 20, else log(1 + e^x)).
#include "core/ops/op_common.h"

#include <cmath>

namespace switchyard::ops {

namespace {

ggml_tensor * unary_impl(ggml_context * ctx, ggml_tensor * a, ggml_unary_op op, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(op >= 0 && op < GGML_UNARY_OP_COUNT, name, "unknown unary op %d", static_cast<int>(op));
    shape_check(ggml_is_contiguous_rows(a), name, "a %s must have adjacent elements within each row (nb[0] = %zu)",
                shape(a), a->nb[0]);
    return with_i32(set_op(like(ctx, a, inplace, name), GGML_OP_UNARY, {a}), {static_cast<int32_t>(op)});
}

float softplus(float x) {
    return x > 20.0f ? x : std::log(1.0f + std::exp(x));
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

struct ggml_tensor * ggml_expm1(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_EXPM1, false, "ggml_expm1");
}

struct ggml_tensor * ggml_expm1_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_EXPM1, true, "ggml_expm1_inplace");
}

struct ggml_tensor * ggml_floor(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_FLOOR, false, "ggml_floor");
}

struct ggml_tensor * ggml_floor_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_FLOOR, true, "ggml_floor_inplace");
}

struct ggml_tensor * ggml_ceil(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_CEIL, false, "ggml_ceil");
}

struct ggml_tensor * ggml_ceil_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_CEIL, true, "ggml_ceil_inplace");
}

struct ggml_tensor * ggml_round(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ROUND, false, "ggml_round");
}

struct ggml_tensor * ggml_round_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_ROUND, true, "ggml_round_inplace");
}

struct ggml_tensor * ggml_trunc(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_TRUNC, false, "ggml_trunc");
}

struct ggml_tensor * ggml_trunc_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_impl(ctx, a, GGML_UNARY_OP_TRUNC, true, "ggml_trunc_inplace");
}

struct ggml_tensor * ggml_xielu(struct ggml_context * ctx, struct ggml_tensor * a, float alpha_n, float alpha_p,
                                float beta, float eps) {
    ggml_tensor * t = unary_impl(ctx, a, GGML_UNARY_OP_XIELU, false, "ggml_xielu");
    if (t != nullptr) {
        const float params[4] = {beta + softplus(alpha_n), softplus(alpha_p), beta, eps};
        for (int i = 0; i < 4; ++i) {
            set_op_param_f32(t, i + 1, params[i]);
        }
    }
    return t;
}

} // extern "C"
