// Resampling and reflection padding: UPSCALE (ggml_upscale, ggml_upscale_ext, ggml_interpolate) and PAD_REFLECT_1D.
//
// UPSCALE: a F32 resampled to [ne0, ne1, ne2, ne3] (up or down); op_params[0] = mode, a ggml_scale_mode in the low
//   8 bits or-ed with ggml_scale_flag values (ALIGN_CORNERS, ANTIALIAS; ANTIALIAS with BILINEAR only, as upstream).
//   ggml_upscale multiplies ne0 and ne1 by an integer factor > 1.
// PAD_REFLECT_1D: a F32 contiguous, 0 <= p0, p1 < ne0 -> [ne0 + p0 + p1, ne1, ne2, ne3]; op_params {p0, p1}. The
//   padding mirrors a's row around its first and last element (which are not repeated).
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

ggml_tensor * interpolate_impl(ggml_context * ctx, ggml_tensor * a, const Ne & ne, uint32_t mode, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    const uint32_t base = mode & 0xFFu;
    shape_check(base < GGML_SCALE_MODE_COUNT, name, "mode %u is not a ggml_scale_mode", base);
    shape_check(!(mode & GGML_SCALE_FLAG_ANTIALIAS) || base == GGML_SCALE_MODE_BILINEAR, name,
                "the antialias flag needs the bilinear mode (mode %u)", base);
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    shape_check(ne[0] > 0 && ne[1] > 0 && ne[2] > 0 && ne[3] > 0, name,
                "target shape [%lld, %lld, %lld, %lld] must be positive", static_cast<long long>(ne[0]),
                static_cast<long long>(ne[1]), static_cast<long long>(ne[2]), static_cast<long long>(ne[3]));
    ggml_tensor * t = set_op(new_result(ctx, a->type, ne, name), GGML_OP_UPSCALE, {a});
    return with_i32(t, {static_cast<int32_t>(mode)});
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_upscale(struct ggml_context * ctx, struct ggml_tensor * a, int scale_factor,
                                  enum ggml_scale_mode mode) {
    const char * name = "ggml_upscale";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(scale_factor > 1, name, "scale_factor %d must be greater than 1", scale_factor);
    return interpolate_impl(ctx, a, {a->ne[0] * scale_factor, a->ne[1] * scale_factor, a->ne[2], a->ne[3]},
                            static_cast<uint32_t>(mode), name);
}

struct ggml_tensor * ggml_upscale_ext(struct ggml_context * ctx, struct ggml_tensor * a, int ne0, int ne1, int ne2,
                                      int ne3, enum ggml_scale_mode mode) {
    return interpolate_impl(ctx, a, {ne0, ne1, ne2, ne3}, static_cast<uint32_t>(mode), "ggml_upscale_ext");
}

struct ggml_tensor * ggml_interpolate(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                      int64_t ne2, int64_t ne3, uint32_t mode) {
    return interpolate_impl(ctx, a, {ne0, ne1, ne2, ne3}, mode, "ggml_interpolate");
}

struct ggml_tensor * ggml_pad_reflect_1d(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1) {
    const char * name = "ggml_pad_reflect_1d";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(p0 >= 0 && p1 >= 0 && p0 < a->ne[0] && p1 < a->ne[0], name,
                "padding (%d, %d) must be non-negative and shorter than the rows of a %s", p0, p1, shape(a));
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    const Ne      ne = {a->ne[0] + p0 + p1, a->ne[1], a->ne[2], a->ne[3]};
    ggml_tensor * t  = set_op(new_result(ctx, a->type, ne, name), GGML_OP_PAD_REFLECT_1D, {a});
    return with_i32(t, {p0, p1});
}

} // extern "C"
