// Small f32 ops on shaders/misc.comp: SSM_CONV (the short convolution of the state-space and short-conv models),
// CUMSUM (running sums along rows), PAD_REFLECT_1D and TIMESTEP_EMBEDDING.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct MiscParams {
    uint32_t ne_d[4], nb_d[4], ne_a[4], nb_a[4], nb_b[4];
    uint32_t off_a, off_b, off_d, n;
    uint32_t x[2];
    uint32_t ne_b0;
};
static_assert(sizeof(MiscParams) <= 128);

uint32_t op_code(ggml_op op) {
    switch (op) {
        case GGML_OP_SSM_CONV:       return 0;
        case GGML_OP_CUMSUM:         return 1;
        case GGML_OP_PAD_REFLECT_1D: return 2;
        default:                     return 3; // TIMESTEP_EMBEDDING
    }
}

} // namespace

bool supports_misc(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    if (node->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || !fits_u32(node) || !fits_u32(a)) {
        return false;
    }
    switch (node->op) {
        case GGML_OP_SSM_CONV: {
            const ggml_tensor * c = node->src[1];
            return c->type == GGML_TYPE_F32 && fits_u32(c) && c->ne[2] == 1 && c->ne[3] == 1 && a->ne[3] == 1 &&
                   node->ne[0] == c->ne[1] && a->ne[1] == c->ne[1] && a->ne[0] == node->ne[1] + c->ne[0] - 1 &&
                   node->ne[2] == a->ne[2];
        }
        case GGML_OP_CUMSUM: return ggml_are_same_shape(a, node);
        case GGML_OP_PAD_REFLECT_1D:
            return node->ne[0] == a->ne[0] + op_i32(node, 0) + op_i32(node, 1) && op_i32(node, 0) < a->ne[0] &&
                   op_i32(node, 1) < a->ne[0] && node->ne[1] == a->ne[1] && node->ne[2] == a->ne[2] &&
                   node->ne[3] == a->ne[3];
        default: // TIMESTEP_EMBEDDING: timesteps [N] -> [dim, N]
            return ggml_nrows(a) == 1 && node->ne[1] == a->ne[0] && node->ne[0] >= op_i32(node, 0) &&
                   op_i32(node, 1) > 0 && op_i32(node, 0) >= 2;
    }
}

bool record_misc(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a  = node->src[0];
    const ggml_tensor * b  = node->op == GGML_OP_SSM_CONV ? node->src[1] : a;
    const Operand       oa = rec.in(a), od = rec.out(node);
    const Operand       ob = b == a ? oa : rec.in(b);
    const Shape         sd = shape_of(node), sa = shape_of(a), sb = shape_of(b);
    MiscParams          p{};
    std::memcpy(p.ne_d, sd.ne, sizeof p.ne_d);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    std::memcpy(p.ne_a, sa.ne, sizeof p.ne_a);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    p.off_a = elements(oa.residual, sizeof(float));
    p.off_b = elements(ob.residual, sizeof(float));
    p.off_d = elements(od.residual, sizeof(float));
    p.n     = static_cast<uint32_t>(node->op == GGML_OP_CUMSUM ? ggml_nrows(node) : ggml_nelements(node));
    p.ne_b0 = static_cast<uint32_t>(b->ne[0]);
    if (node->op == GGML_OP_PAD_REFLECT_1D || node->op == GGML_OP_TIMESTEP_EMBEDDING) {
        p.x[0] = static_cast<uint32_t>(op_i32(node, 0)); // p0, or dim
        p.x[1] = static_cast<uint32_t>(op_i32(node, 1)); // p1, or max_period
    }
    uint32_t gx, gy;
    rec.groups_for(p.n, node->op == GGML_OP_CUMSUM ? 1u : kWorkgroup, gx, gy); // CUMSUM: a workgroup per row
    return rec.dispatch("misc", {kWorkgroup, op_code(node->op)}, {oa, ob, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
