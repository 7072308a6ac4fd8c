// Layout ops on shaders/layout.comp: CONCAT (any dim), PAD (zero or circular), REPEAT and ROLL for f32, f16, bf16
// and i32 (bits copied); FILL (f32, f16), TRI (f32, f16); DIAG_MASK_INF / _ZERO and DIAG (f32); ARANGE (f32).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cmath>
#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct LayoutParams {
    uint32_t ne_d[4], nb_d[4], ne_a[4], nb_a[4], nb_b[4];
    uint32_t off_a, off_b, off_d, n;
    uint32_t x[4];
    uint32_t circular;
};
static_assert(sizeof(LayoutParams) <= 128);

uint32_t op_code(ggml_op op) {
    switch (op) {
        case GGML_OP_CONCAT:         return 0;
        case GGML_OP_PAD:            return 1;
        case GGML_OP_REPEAT:         return 2;
        case GGML_OP_ROLL:           return 4;
        case GGML_OP_FILL:           return 5;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO: return 6;
        case GGML_OP_TRI:            return 7;
        case GGML_OP_DIAG:           return 8;
        default:                     return 3; // ARANGE
    }
}

// The bits of v in the destination's type (f32 or f16).
uint32_t value_bits(ggml_type t, float v) {
    if (t == GGML_TYPE_F16) {
        return ggml_fp32_to_fp16(v);
    }
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

bool copyable_type(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || t == GGML_TYPE_I32;
}

bool supports_concat(const ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const int32_t       dim = op_i32(node, 0);
    if (dim < 0 || dim >= GGML_MAX_DIMS || b->type != node->type || !fits_u32(b)) {
        return false;
    }
    for (int k = 0; k < GGML_MAX_DIMS; ++k) {
        const int64_t want = k == dim ? a->ne[k] + b->ne[k] : a->ne[k];
        if (node->ne[k] != want || (k != dim && b->ne[k] != a->ne[k])) {
            return false;
        }
    }
    return true;
}

bool supports_pad(const ggml_tensor * node) {
    const ggml_tensor * a        = node->src[0];
    const bool          circular = op_i32(node, 8) != 0;
    for (int k = 0; k < GGML_MAX_DIMS; ++k) {
        const int32_t lp = op_i32(node, 2 * k), rp = op_i32(node, 2 * k + 1);
        if (lp < 0 || rp < 0 || node->ne[k] != a->ne[k] + lp + rp || (circular && a->ne[k] == 0)) {
            return false;
        }
    }
    return true;
}

} // namespace

bool supports_layout(const Device &, const ggml_tensor * node) {
    if (!fits_u32(node)) {
        return false;
    }
    if (node->op == GGML_OP_ARANGE) {
        return node->type == GGML_TYPE_F32 && ggml_nrows(node) == 1;
    }
    if (node->op == GGML_OP_FILL) {
        return node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16;
    }
    const ggml_tensor * a = node->src[0];
    if (!copyable_type(node->type) || a->type != node->type || !fits_u32(a)) {
        return false;
    }
    switch (node->op) {
        case GGML_OP_CONCAT: return supports_concat(node);
        case GGML_OP_PAD:    return supports_pad(node);
        case GGML_OP_ROLL:   return ggml_are_same_shape(a, node);
        case GGML_OP_TRI:
            return (node->type == GGML_TYPE_F32 || node->type == GGML_TYPE_F16) && ggml_are_same_shape(a, node) &&
                   op_i32(node, 0) >= GGML_TRI_TYPE_UPPER_DIAG && op_i32(node, 0) <= GGML_TRI_TYPE_LOWER;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO: return node->type == GGML_TYPE_F32 && ggml_are_same_shape(a, node);
        case GGML_OP_DIAG:
            return node->type == GGML_TYPE_F32 && a->ne[1] == 1 && node->ne[0] == a->ne[0] && node->ne[1] == a->ne[0] &&
                   node->ne[2] == a->ne[2] && node->ne[3] == a->ne[3];
        default:             return ggml_can_repeat(a, node);
    }
}

bool record_layout(Recorder & rec, const ggml_tensor * node) {
    const bool          reads_nothing = node->op == GGML_OP_ARANGE || node->op == GGML_OP_FILL;
    const ggml_tensor * a             = reads_nothing ? node : node->src[0];
    const ggml_tensor * b      = node->op == GGML_OP_CONCAT ? node->src[1] : a;
    const size_t        es     = ggml_type_size(node->type);
    const Operand       od = rec.out(node);
    const Operand       oa = reads_nothing ? od : rec.in(a), ob = b == a ? oa : rec.in(b);
    const Shape         sd = shape_of(node), sa = shape_of(a), sb = shape_of(b);
    LayoutParams        p{};
    std::memcpy(p.ne_d, sd.ne, sizeof p.ne_d);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    std::memcpy(p.ne_a, sa.ne, sizeof p.ne_a);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    p.off_a = elements(oa.residual, es);
    p.off_b = elements(ob.residual, es);
    p.off_d = elements(od.residual, es);
    p.n     = static_cast<uint32_t>(ggml_nelements(node));
    switch (node->op) {
        case GGML_OP_CONCAT: p.x[0] = static_cast<uint32_t>(op_i32(node, 0)); break;
        case GGML_OP_PAD:
            for (int k = 0; k < 4; ++k) {
                p.x[k] = static_cast<uint32_t>(op_i32(node, 2 * k));
            }
            p.circular = op_i32(node, 8) != 0;
            break;
        case GGML_OP_ARANGE:
            std::memcpy(&p.x[0], &node->op_params[0], 4); // start
            std::memcpy(&p.x[1], &node->op_params[2], 4); // step
            break;
        case GGML_OP_ROLL:
            for (int k = 0; k < 4; ++k) {
                p.x[k] = static_cast<uint32_t>(op_i32(node, k));
            }
            break;
        case GGML_OP_FILL: {
            float c;
            std::memcpy(&c, &node->op_params[0], sizeof c);
            p.x[0] = value_bits(node->type, c);
            break;
        }
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            p.x[0] = static_cast<uint32_t>(op_i32(node, 0)); // n_past
            p.x[1] = value_bits(GGML_TYPE_F32, node->op == GGML_OP_DIAG_MASK_INF ? -INFINITY : 0.0f);
            break;
        case GGML_OP_TRI: p.x[0] = static_cast<uint32_t>(op_i32(node, 0)); break;
        default: break;
    }
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    const uint32_t width = static_cast<uint32_t>(es);
    if (reads_nothing) { // every binding is the destination
        return rec.dispatch("layout", {kWorkgroup, op_code(node->op), width}, {od, od, od}, &p, sizeof p, gx, gy);
    }
    return rec.dispatch("layout", {kWorkgroup, op_code(node->op), width}, {oa, ob, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
