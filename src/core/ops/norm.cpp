// Normalisation along rows: NORM (mean 0, variance 1), RMS_NORM, L2_NORM (op_params[0] = eps, f32) and
// GROUP_NORM (op_params[0] = n_groups, i32; [1] = eps, f32: normalise over ne0*ne1*(ne2/n_groups) elements).
// The result has a's shape and type; `_inplace` variants return a view of a. No shape restrictions (as
// upstream: the kernels decide which layouts they support).
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

ggml_tensor * eps_norm(ggml_context * ctx, ggml_tensor * a, float eps, ggml_op op, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return with_f32(set_op(like(ctx, a, inplace, name), op, {a}), {eps});
}

ggml_tensor * group_norm_impl(ggml_context * ctx, ggml_tensor * a, int n_groups, float eps, bool inplace,
                              const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    ggml_tensor * t = with_i32(set_op(like(ctx, a, inplace, name), GGML_OP_GROUP_NORM, {a}), {n_groups});
    if (t) {
        set_op_param_f32(t, 1, eps);
    }
    return t;
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_NORM, false, "ggml_norm");
}

struct ggml_tensor * ggml_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_NORM, true, "ggml_norm_inplace");
}

struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_RMS_NORM, false, "ggml_rms_norm");
}

struct ggml_tensor * ggml_rms_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_RMS_NORM, true, "ggml_rms_norm_inplace");
}

struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_L2_NORM, false, "ggml_l2_norm");
}

struct ggml_tensor * ggml_l2_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return eps_norm(ctx, a, eps, GGML_OP_L2_NORM, true, "ggml_l2_norm_inplace");
}

struct ggml_tensor * ggml_group_norm(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps) {
    return group_norm_impl(ctx, a, n_groups, eps, false, "ggml_group_norm");
}

struct ggml_tensor * ggml_group_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups,
                                             float eps) {
    return group_norm_impl(ctx, a, n_groups, eps, true, "ggml_group_norm_inplace");
}

} // extern "C"
