// NORM, RMS_NORM, L2_NORM over rows of f32 (shaders/norm.comp), one workgroup per row; RMS_NORM with the MUL by a
// weight that follows it fused into the same dispatch.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct NormParams {
    uint32_t ne[4], nb_s[4], nb_d[4];
    uint32_t off_s, off_d, n_rows;
    float    eps;
    uint32_t ne_w[4], nb_w[4], nb_m[4];
    uint32_t off_w, off_m;
};
static_assert(sizeof(NormParams) <= 128);

constexpr uint32_t kNormWorkgroup = 128;

uint32_t op_code(ggml_op op) { return op == GGML_OP_NORM ? 0 : op == GGML_OP_RMS_NORM ? 1 : 2; }

// The norm, and with mul the product of it and the weight (mul's other source) as well.
bool record_rows(Recorder & rec, const ggml_tensor * node, const ggml_tensor * mul) {
    const ggml_tensor * src = node->src[0];
    const Operand       os = rec.in(src), od = rec.out(node);
    const Shape         ss = shape_of(src), sd = shape_of(node);
    NormParams          p{};
    std::memcpy(p.ne, ss.ne, sizeof p.ne);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.off_s  = os.residual / 4;
    p.off_d  = od.residual / 4;
    p.n_rows = static_cast<uint32_t>(ggml_nrows(src));
    std::memcpy(&p.eps, node->op_params, sizeof p.eps);
    uint32_t gx, gy;
    rec.groups_for(p.n_rows, 1, gx, gy);
    if (mul == nullptr) { // the weight and product bindings see the source and the norm
        return rec.dispatch("norm", {kNormWorkgroup, op_code(node->op), 0u}, {os, od, os, od}, &p, sizeof p, gx, gy);
    }
    const ggml_tensor * w  = mul->src[0] == node ? mul->src[1] : mul->src[0];
    const Operand       ow = rec.in(w), om = rec.out(mul);
    const Shape         sw = shape_of(w), sm = shape_of(mul);
    std::memcpy(p.ne_w, sw.ne, sizeof p.ne_w);
    std::memcpy(p.nb_w, sw.nb, sizeof p.nb_w);
    std::memcpy(p.nb_m, sm.nb, sizeof p.nb_m);
    p.off_w = ow.residual / 4;
    p.off_m = om.residual / 4;
    return rec.dispatch("norm", {kNormWorkgroup, op_code(node->op), 1u}, {os, od, ow, om}, &p, sizeof p, gx, gy);
}

} // namespace

// rows are independent
bool map_norm(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    return true;
}

bool record_norm(Recorder & rec, const ggml_tensor * node) { return record_rows(rec, node, nullptr); }

bool can_fuse_rms_norm_mul(const ggml_tensor * norm, const ggml_tensor * mul) {
    if (norm->op != GGML_OP_RMS_NORM || mul->op != GGML_OP_MUL || (mul->src[0] != norm && mul->src[1] != norm) ||
        mul->src[0] == mul->src[1] || !(mul->flags & GGML_TENSOR_FLAG_COMPUTE)) {
        return false;
    }
    const ggml_tensor * w = mul->src[0] == norm ? mul->src[1] : mul->src[0];
    // contiguous rows on every side, so a product that reuses the source's memory is written by the invocation
    // that read the same element
    return w->type == GGML_TYPE_F32 && mul->type == GGML_TYPE_F32 && ggml_can_repeat(w, norm) &&
           ggml_are_same_shape(mul, norm) && fits_u32(w) && fits_u32(mul) && ggml_is_contiguous(norm->src[0]) &&
           ggml_is_contiguous(norm) && ggml_is_contiguous(mul);
}

bool record_rms_norm_mul(Recorder & rec, const ggml_tensor * norm, const ggml_tensor * mul) {
    return record_rows(rec, norm, mul);
}

bool supports_norm(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    return src->type == GGML_TYPE_F32 && node->type == GGML_TYPE_F32 && ggml_are_same_shape(src, node) &&
           fits_u32(src) && fits_u32(node);
}

} // namespace switchyard::vulkan::ops
