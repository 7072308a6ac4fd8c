// The loss and the optimizer steps of training graphs.
//
// CROSS_ENTROPY_LOSS:      a logits, b labels (probabilities), same shape -> [1] of a's type:
//                          -sum over rows of sum(b * log_softmax(a)) / number of rows (rows along dim 0).
// CROSS_ENTROPY_LOSS_BACK: a the loss gradient (a scalar), b logits, c labels (same shape) -> like b:
//                          (softmax(b) - c) * a / number of rows. src = {a, b, c}.
// OPT_STEP_ADAMW:          a parameter (GGML_TENSOR_FLAG_PARAM), grad, m, v like a, adamw_params F32 [7]
//                          {alpha, beta1, beta2, eps, wd, beta1h, beta2h}; src = {a, grad, m, v, adamw_params}.
//                          The result is a view of a: the step updates a, m and v in place.
// OPT_STEP_SGD:            a parameter, grad like a, params F32 [2] {alpha, wd}; src = {a, grad, params}; a view
//                          of a, updated in place.
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

void check_step(const ggml_tensor * a, const ggml_tensor * grad, const ggml_tensor * params, int64_t n_params,
                const char * name) {
    shape_check((a->flags & GGML_TENSOR_FLAG_PARAM) != 0, name, "a %s is not a parameter (ggml_set_param)", shape(a));
    shape_check(ggml_are_same_shape(a, grad), name, "grad %s is not shaped like a %s", shape(grad), shape(a));
    shape_check(params->type == GGML_TYPE_F32 && ggml_nelements(params) == n_params, name,
                "the step parameters %s must be %lld f32 values", shape(params), static_cast<long long>(n_params));
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_cross_entropy_loss(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_cross_entropy_loss";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_are_same_shape(a, b), name, "logits a %s and labels b %s differ in shape", shape(a), shape(b));
    return set_op(new_result(ctx, a->type, {1, 1, 1, 1}, name), GGML_OP_CROSS_ENTROPY_LOSS, {a, b});
}

struct ggml_tensor * ggml_cross_entropy_loss_back(struct ggml_context * ctx, struct ggml_tensor * a,
                                                  struct ggml_tensor * b, struct ggml_tensor * c) {
    const char * name = "ggml_cross_entropy_loss_back";
    if (!inputs_ok(name, {a, b, c})) {
        return nullptr;
    }
    shape_check(ggml_is_scalar(a), name, "the loss gradient a %s must be a scalar", shape(a));
    shape_check(ggml_are_same_shape(b, c), name, "logits b %s and labels c %s differ in shape", shape(b), shape(c));
    return set_op(like(ctx, b, false, name), GGML_OP_CROSS_ENTROPY_LOSS_BACK, {a, b, c});
}

struct ggml_tensor * ggml_opt_step_adamw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
                                         struct ggml_tensor * m, struct ggml_tensor * v,
                                         struct ggml_tensor * adamw_params) {
    const char * name = "ggml_opt_step_adamw";
    if (!inputs_ok(name, {a, grad, m, v, adamw_params})) {
        return nullptr;
    }
    check_step(a, grad, adamw_params, 7, name);
    shape_check(ggml_are_same_shape(a, m) && ggml_are_same_shape(a, v), name, "moments m %s and v %s must be like a %s",
                shape(m), shape(v), shape(a));
    return set_op(like(ctx, a, true, name), GGML_OP_OPT_STEP_ADAMW, {a, grad, m, v, adamw_params});
}

struct ggml_tensor * ggml_opt_step_sgd(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
                                       struct ggml_tensor * params) {
    const char * name = "ggml_opt_step_sgd";
    if (!inputs_ok(name, {a, grad, params})) {
        return nullptr;
    }
    check_step(a, grad, params, 2, name);
    return set_op(like(ctx, a, true, name), GGML_OP_OPT_STEP_SGD, {a, grad, params});
}

} // extern "C"
