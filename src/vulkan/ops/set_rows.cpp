// SET_ROWS (shaders/set_rows.comp): f32 rows scattered into f32, f16 or bf16 destinations by i32 or i64 indices;
// into Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL destinations quantized (quantize.cpp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct SetRowsParams {
    uint32_t ne[4], nb_s[4], nb_i[4], nb_d[4];
    uint32_t off_s, off_i, off_d, n;
    uint32_t ne_i2, i64_idx;
};
static_assert(sizeof(SetRowsParams) <= 128);

} // namespace

bool supports_set_rows(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const ggml_tensor * idx = node->src[1];
    if (is_quantized_write(node)) {
        return supports_quantize(node);
    }
    return src->type == GGML_TYPE_F32 && is_float_type(node->type) &&
           (idx->type == GGML_TYPE_I32 || idx->type == GGML_TYPE_I64) && fits_u32(src) && fits_u32(node) && fits_u32(idx);
}

bool record_set_rows(Recorder & rec, const ggml_tensor * node) {
    if (is_quantized_write(node)) {
        return record_quantize(rec, node);
    }
    const ggml_tensor * src = node->src[0];
    const ggml_tensor * idx = node->src[1];
    const Operand       os = rec.in(src), oi = rec.in(idx), od = rec.out(node);
    SetRowsParams       p{};
    const Shape         ss = shape_of(src), si = shape_of(idx), sd = shape_of(node);
    std::memcpy(p.ne, ss.ne, sizeof p.ne);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.nb_i[0] = si.nb[0];
    p.nb_i[1] = si.nb[1];
    p.nb_i[2] = si.nb[2];
    p.nb_i[3] = si.ne[1];
    p.ne_i2   = si.ne[2];
    p.off_s   = os.residual / 4;
    p.off_i   = oi.residual / 4;
    p.off_d   = elements(od.residual, ggml_type_size(node->type));
    p.n       = static_cast<uint32_t>(ggml_nelements(src));
    p.i64_idx = idx->type == GGML_TYPE_I64;
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("set_rows", {kWorkgroup, float_type_code(node->type)}, {os, oi, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
