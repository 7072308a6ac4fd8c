// ADD, SUB, MUL, DIV with broadcasting (shaders/binary.comp): f32, f16 and bf16 in any combination.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct BinaryParams {
    uint32_t ne[4], nb_a[4], ne_b[4], nb_b[4], nb_d[4];
    uint32_t off_a, off_b, off_d, n;
};
static_assert(sizeof(BinaryParams) == 96);

uint32_t op_code(ggml_op op) {
    switch (op) {
        case GGML_OP_ADD: return 0;
        case GGML_OP_SUB: return 1;
        case GGML_OP_MUL: return 2;
        default:          return 3;
    }
}

} // namespace

bool supports_binary(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const ggml_tensor * b = node->src[1];
    return is_float_type(a->type) && is_float_type(b->type) && is_float_type(node->type) &&
           ggml_can_repeat(b, a) && ggml_are_same_shape(a, node) && fits_u32(a) && fits_u32(b) && fits_u32(node);
}

// dimensions 1..3 split; b repeats into them
bool map_binary(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Repeat, map);
    return true;
}

bool record_binary(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const ggml_tensor * b = node->src[1];
    const Operand       oa = rec.in(a), ob = rec.in(b), od = rec.out(node);
    const Shape         sa = shape_of(a), sb = shape_of(b), sd = shape_of(node);
    BinaryParams        p{};
    std::memcpy(p.ne, sa.ne, sizeof p.ne);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.ne_b, sb.ne, sizeof p.ne_b);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.off_a = elements(oa.residual, ggml_type_size(a->type));
    p.off_b = elements(ob.residual, ggml_type_size(b->type));
    p.off_d = elements(od.residual, ggml_type_size(node->type));
    p.n     = static_cast<uint32_t>(ggml_nelements(node));
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("binary", {kWorkgroup, op_code(node->op), float_type_code(a->type), float_type_code(b->type),
                                   float_type_code(node->type)},
                        {oa, ob, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
