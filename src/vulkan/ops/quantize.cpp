// Quantizing writes on shaders/quantize.comp: CPY / CONT / DUP from f32 or f16 into Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 or
// IQ4_NL, and SET_ROWS of f32 rows into those (i32 or i64 indices), rounded as the host's reference quantizers
// (from_float_ref), bit for bit.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct QuantizeParams {
    uint32_t ne_s[4], nb_s[4], ne_d[4], nb_d[4], nb_i[4];
    uint32_t off_s, off_i, off_d, n_blocks;
    uint32_t ne_i2, i64_idx;
};
static_assert(sizeof(QuantizeParams) <= 128);

bool quantized_target(const ggml_tensor * t) {
    return is_quantized_write(t) && t->ne[0] % 32 == 0 &&
           t->nb[0] == ggml_type_size(t->type) && ggml_nbytes(t) < (size_t(1) << 32) &&
           t->nb[3] < (size_t(1) << 32);
}

} // namespace

bool is_quantized_write(const ggml_tensor * node) { return vk_type_row(node->type).quantize; }

bool supports_quantize(const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if (!quantized_target(node) || !fits_u32(src)) {
        return false;
    }
    if (node->op == GGML_OP_SET_ROWS) {
        const ggml_tensor * idx = node->src[1];
        return src->type == GGML_TYPE_F32 && (idx->type == GGML_TYPE_I32 || idx->type == GGML_TYPE_I64) &&
               fits_u32(idx) && src->ne[0] == node->ne[0];
    }
    return (src->type == GGML_TYPE_F32 || src->type == GGML_TYPE_F16) && ggml_nelements(src) == ggml_nelements(node);
}

bool record_quantize(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * src      = node->src[0];
    const bool          set_rows = node->op == GGML_OP_SET_ROWS;
    const ggml_tensor * idx      = set_rows ? node->src[1] : nullptr;
    const Operand       os = rec.in(src), od = rec.out(node);
    const Operand       oi = idx ? rec.in(idx) : os;
    const Shape         ss = shape_of(src);
    QuantizeParams      p{};
    std::memcpy(p.ne_s, ss.ne, sizeof p.ne_s);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    for (int i = 0; i < 4; ++i) {
        p.ne_d[i] = static_cast<uint32_t>(node->ne[i]);
        p.nb_d[i] = static_cast<uint32_t>(node->nb[i]);
    }
    if (idx != nullptr) {
        const Shape si = shape_of(idx);
        p.nb_i[0] = si.nb[0];
        p.nb_i[1] = si.nb[1];
        p.nb_i[2] = si.nb[2];
        p.nb_i[3] = si.ne[1];
        p.ne_i2   = si.ne[2];
        p.i64_idx = idx->type == GGML_TYPE_I64;
        p.off_i   = oi.residual / 4;
    }
    p.off_s    = elements(os.residual, ggml_type_size(src->type));
    p.off_d    = od.residual; // bytes
    p.n_blocks = static_cast<uint32_t>(ggml_nelements(src) / 32);
    uint32_t gx, gy;
    rec.groups_for(p.n_blocks, kWorkgroup, gx, gy);
    return rec.dispatch("quantize",
                        {kWorkgroup, float_type_code(src->type), weight_type_code(node->type), set_rows ? 1u : 0u},
                        {os, oi, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
