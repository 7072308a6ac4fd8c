// GLU (shaders/glu.comp): the gated linear units on f32, fused (one tensor, halves possibly swapped) or split.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct GluParams {
    uint32_t ne[4], nb_a[4], nb_b[4], nb_d[4];
    uint32_t off_a, off_b, off_d, n;
    uint32_t split, swapped;
    float    alpha, limit;
};
static_assert(sizeof(GluParams) <= 128);

} // namespace

bool supports_glu(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const ggml_tensor * b = node->src[1];
    return ggml_get_glu_op(node) < GGML_GLU_OP_COUNT && a->type == GGML_TYPE_F32 && node->type == GGML_TYPE_F32 &&
           (b == nullptr || (b->type == GGML_TYPE_F32 && ggml_are_same_shape(b, node))) && fits_u32(a) && fits_u32(node);
}

// rows are independent (a's rows hold both halves when b is absent)
bool map_glu(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    return true;
}

bool record_glu(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a  = node->src[0];
    const ggml_tensor * b  = node->src[1];
    const Operand       oa = rec.in(a), od = rec.out(node);
    const Operand       ob = b ? rec.in(b) : oa;
    GluParams           p{};
    const Shape         sa = shape_of(a), sd = shape_of(node);
    std::memcpy(p.ne, sd.ne, sizeof p.ne);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    if (b != nullptr) {
        const Shape sb = shape_of(b);
        std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
        p.off_b = ob.residual / 4;
        p.split = 1;
    }
    p.off_a   = oa.residual / 4;
    p.off_d   = od.residual / 4;
    p.n       = static_cast<uint32_t>(ggml_nelements(node));
    p.swapped = node->op_params[1] != 0;
    std::memcpy(&p.alpha, &node->op_params[2], sizeof p.alpha);
    std::memcpy(&p.limit, &node->op_params[3], sizeof p.limit);
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("glu", {kWorkgroup, static_cast<uint32_t>(ggml_get_glu_op(node))}, {oa, ob, od}, &p, sizeof p,
                        gx, gy);
}

} // namespace switchyard::vulkan::ops
