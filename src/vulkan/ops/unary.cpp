// The one-in-one-out ops on shaders/unary.comp: UNARY activations, SCALE, CLAMP, SQR, SQRT, LOG, SIN, COS,
// LEAKY_RELU, and the element-order copy used by CPY/CONT/DUP between float types (copy.cpp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct UnaryParams {
    uint32_t ne_s[4], nb_s[4], ne_d[4], nb_d[4];
    uint32_t off_s, off_d, n, pad;
    float    f[4];
};
static_assert(sizeof(UnaryParams) == 96);

static_assert(GGML_UNARY_OP_ABS == 0 && GGML_UNARY_OP_TRUNC == 21, "unary.comp numbers the unary ops as ggml.h + 1");

float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, reinterpret_cast<const char *>(t->op_params) + 4 * i, sizeof v);
    return v;
}

// unary.comp's code for the node's op; 0 (copy) for ops it does not know
uint32_t op_code(const ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_UNARY:      return static_cast<uint32_t>(ggml_get_unary_op(node)) + 1;
        case GGML_OP_SCALE:      return 30;
        case GGML_OP_CLAMP:      return 31;
        case GGML_OP_SQR:        return 32;
        case GGML_OP_SQRT:       return 33;
        case GGML_OP_LOG:        return 34;
        case GGML_OP_SIN:        return 35;
        case GGML_OP_COS:        return 36;
        case GGML_OP_LEAKY_RELU: return 37;
        default:                 return 0;
    }
}

} // namespace

bool record_elementwise(Recorder & rec, const ggml_tensor * src, const ggml_tensor * dst, uint32_t op, const float f[4]) {
    const Operand os = rec.in(src), od = rec.out(dst);
    const Shape   ss = shape_of(src), sd = shape_of(dst);
    UnaryParams   p{};
    std::memcpy(p.ne_s, ss.ne, sizeof p.ne_s);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    std::memcpy(p.ne_d, sd.ne, sizeof p.ne_d);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.off_s = elements(os.residual, ggml_type_size(src->type));
    p.off_d = elements(od.residual, ggml_type_size(dst->type));
    p.n     = static_cast<uint32_t>(ggml_nelements(dst));
    std::memcpy(p.f, f, sizeof p.f);
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("unary", {kWorkgroup, op, float_type_code(src->type), float_type_code(dst->type)}, {os, od}, &p,
                        sizeof p, gx, gy);
}

bool supports_unary(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if (node->op == GGML_OP_UNARY && op_code(node) > 22) {
        return false;
    }
    return is_float_type(src->type) && is_float_type(node->type) && ggml_nelements(src) == ggml_nelements(node) &&
           fits_u32(src) && fits_u32(node);
}

// dimensions 1..3 split where source and destination have one shape (element order is then coordinate order)
bool map_unary(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    return ggml_are_same_shape(node->src[0], node);
}

bool record_unary(Recorder & rec, const ggml_tensor * node) {
    float f[4] = {};
    switch (node->op) {
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
            f[0] = param_f32(node, 0);
            f[1] = param_f32(node, 1);
            break;
        case GGML_OP_LEAKY_RELU: f[0] = param_f32(node, 0); break;
        case GGML_OP_UNARY:
            if (ggml_get_unary_op(node) == GGML_UNARY_OP_XIELU) {
                for (int i = 0; i < 4; ++i) {
                    f[i] = param_f32(node, i + 1);
                }
            }
            break;
        default: break;
    }
    return record_elementwise(rec, node->src[0], node, op_code(node), f);
}

} // namespace switchyard::vulkan::ops
