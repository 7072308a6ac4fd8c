// GET_ROWS (shaders/get_rows.comp): rows of float or block-quantized tensors gathered into f32, indices i32.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct GetRowsParams {
    uint32_t ne[4], nb_s[4], nb_i[4], nb_d[4];
    uint32_t off_s, off_i, off_d, n;
    uint32_t i64_idx;
};

} // namespace

bool supports_get_rows(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const ggml_tensor * idx = node->src[1];
    return weight_type_code(src->type) != kNoType && (idx->type == GGML_TYPE_I32 || idx->type == GGML_TYPE_I64) &&
           node->type == GGML_TYPE_F32 && src->nb[0] == ggml_type_size(src->type) && fits_u32(src) && fits_u32(node) &&
           fits_u32(idx) && ggml_nbytes(src) < (size_t(1) << 32);
}

bool record_get_rows(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const ggml_tensor * idx = node->src[1];
    const Operand       os = rec.in(src), oi = rec.in(idx), od = rec.out(node);
    GetRowsParams       p{};
    const Shape         sd = shape_of(node), si = shape_of(idx);
    std::memcpy(p.ne, sd.ne, sizeof p.ne);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    for (int i = 0; i < 4; ++i) {
        p.nb_s[i] = static_cast<uint32_t>(src->nb[i]);
    }
    std::memcpy(p.nb_i, si.nb, sizeof p.nb_i);
    p.off_s   = os.residual;
    p.off_i   = oi.residual / 4;
    p.off_d   = od.residual / 4;
    p.n       = static_cast<uint32_t>(ggml_nelements(node));
    p.i64_idx = idx->type == GGML_TYPE_I64;
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("get_rows", {kWorkgroup, weight_type_code(src->type)}, {os, oi, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
