// SOFT_MAX along rows of soft_max(a*scale + mask*slope), slope from ALiBi when max_bias > 0.
//
// op_params (f32): [0] scale, [1] max_bias. src = {a, mask (optional), sinks (optional, ggml_soft_max_add_sinks)}.
// a must be contiguous. mask: F16/F32, contiguous, [a->ne[0], >= a->ne[1], ne12, ne13] with ne02 % ne12 == 0 and
// ne03 % ne13 == 0; max_bias > 0 needs a mask. sinks: F32 [a->ne[2]]. The result is like a; `_inplace` a view.
#include "core/ops/op_common.h"

#include "base/abort.h"
#include "base/log.h"

namespace switchyard::ops {

namespace {

void check_mask(const ggml_tensor * a, const ggml_tensor * mask, float max_bias, const char * name) {
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    if (mask) {
        shape_check(mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32, name, "mask %s must be f16 or f32",
                    shape(mask));
        shape_check(ggml_is_contiguous(mask), name, "mask %s must be contiguous", shape(mask));
        shape_check(mask->ne[0] == a->ne[0] && mask->ne[1] >= a->ne[1], name,
                    "mask %s must be [a->ne[0], >= a->ne[1], ...] for a %s", shape(mask), shape(a));
        shape_check(divisible(a->ne[2], mask->ne[2]) && divisible(a->ne[3], mask->ne[3]), name,
                    "mask %s cannot be broadcast over dims 2 and 3 of a %s", shape(mask), shape(a));
    }
    shape_check(max_bias <= 0.0f || mask != nullptr, name, "max_bias %g > 0 needs a mask", static_cast<double>(max_bias));
}

ggml_tensor * soft_max_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * mask, float scale, float max_bias,
                            bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    check_mask(a, mask, max_bias, name);
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_SOFT_MAX, {a, mask}), {scale, max_bias});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a) {
    return soft_max_impl(ctx, a, nullptr, 1.0f, 0.0f, false, "ggml_soft_max");
}

struct ggml_tensor * ggml_soft_max_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return soft_max_impl(ctx, a, nullptr, 1.0f, 0.0f, true, "ggml_soft_max_inplace");
}

struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                       float scale, float max_bias) {
    return soft_max_impl(ctx, a, mask, scale, max_bias, false, "ggml_soft_max_ext");
}

struct ggml_tensor * ggml_soft_max_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                               struct ggml_tensor * mask, float scale, float max_bias) {
    return soft_max_impl(ctx, a, mask, scale, max_bias, true, "ggml_soft_max_ext_inplace");
}

// sinks == NULL detaches the sinks (as upstream).
void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    const char * name = "ggml_soft_max_add_sinks";
    if (!a) {
        log_error("[%s] tensor is NULL (an earlier constructor failed)\n", name);
        return;
    }
    if (!sinks) {
        a->src[2] = nullptr;
        return;
    }
    shape_check(a->op == GGML_OP_SOFT_MAX, name, "tensor '%s' has op %s, not SOFT_MAX", a->name, ggml_op_name(a->op));
    shape_check(a->src[2] == nullptr, name, "tensor '%s' already has sinks", a->name);
    shape_check(a->src[0]->ne[2] == sinks->ne[0], name, "sinks %s need one value per head of %s",
                shape(sinks), shape(a->src[0]));
    shape_check(sinks->type == GGML_TYPE_F32, name, "sinks %s must be f32", shape(sinks));
    a->src[2] = sinks;
}

} // extern "C"
