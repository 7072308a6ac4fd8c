// The row-indexed ops, as the CPU's copy/rows.cpp.
//
// GET_ROWS (shaders/get_rows.comp): rows of float or block-quantized tensors gathered into f32, indices i32 or
// i64. A source too large for one descriptor window is read in windows of rows, one dispatch each, every
// dispatch writing the outputs whose row its window holds (split.h).
//
// SET_ROWS (shaders/set_rows.comp): f32 rows scattered into f32, f16 or bf16 destinations by i32 or i64 indices;
// into Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL destinations quantized (quantize.cpp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct GetRowsParams {
    uint32_t ne[4], nb_s[4], nb_i[4], nb_d[4];
    uint32_t off_s, off_i, off_d, n;
    uint32_t i64_idx;
    uint32_t first_row, n_rows; // the source's window of rows (split.h)
};

} // namespace

bool supports_get_rows(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const ggml_tensor * idx = node->src[1];
    return weight_type_code(src->type) != kNoType && (idx->type == GGML_TYPE_I32 || idx->type == GGML_TYPE_I64) &&
           node->type == GGML_TYPE_F32 && src->nb[0] == ggml_type_size(src->type) && fits_u32(src) && fits_u32(node) &&
           fits_u32(idx) && ggml_nbytes(src) < (size_t(1) << 32);
}

// dimensions 1..3 split (the indices follow the output's rows); the source's rows are gathered
bool map_get_rows(const ggml_tensor * node, SplitMap & map) {
    map.splits[1] = map.splits[2] = map.splits[3] = true;
    map.src[0][1] = {Follow::Gather, 1};
    map.src[0][2] = {Follow::Same, 2};
    map.src[0][3] = {Follow::Same, 3};
    for (int d = 0; d < 3; ++d) {
        map.src[1][d] = {Follow::Same, static_cast<uint8_t>(d + 1)};
    }
    return true;
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
    const GatherWindow rows = rec.gather(src->ne[1]);
    p.first_row = static_cast<uint32_t>(rows.first);
    p.n_rows    = static_cast<uint32_t>(rows.count);
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("get_rows", {kWorkgroup, weight_type_code(src->type)}, {os, oi, od}, &p, sizeof p, gx, gy);
}

// ---- SET_ROWS -------------------------------------------------------------------------------------------------

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
