// NORM, RMS_NORM, L2_NORM over rows of f32 (shaders/norm.comp), one workgroup per row.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct NormParams {
    uint32_t ne[4], nb_s[4], nb_d[4];
    uint32_t off_s, off_d, n_rows;
    float    eps;
};

constexpr uint32_t kNormWorkgroup = 128;

uint32_t op_code(ggml_op op) { return op == GGML_OP_NORM ? 0 : op == GGML_OP_RMS_NORM ? 1 : 2; }

} // namespace

bool supports_norm(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    return src->type == GGML_TYPE_F32 && node->type == GGML_TYPE_F32 && ggml_are_same_shape(src, node) &&
           fits_u32(src) && fits_u32(node);
}

bool record_norm(Recorder & rec, const ggml_tensor * node) {
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
    return rec.dispatch("norm", {kNormWorkgroup, op_code(node->op)}, {os, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
