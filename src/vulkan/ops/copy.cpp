// CPY, CONT, DUP: element-order copies with type conversion between f32, f16 and bf16 (shaders/unary.comp,
// the identity), from f32 / f16 into Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL (quantize.cpp), and from every
// block-quantized type dequant.glsl reads, into f32 / f16 / bf16 or into the same type block by block
// (shaders/block_copy.comp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

namespace switchyard::vulkan::ops {

namespace {

struct BlockCopyParams {
    uint32_t ne_s[4], nb_s[4], ne_d[4], nb_d[4];
    uint32_t off_s, off_d, n;
};
static_assert(sizeof(BlockCopyParams) <= 128);

// A block-quantized source: dequantized into a float destination, or copied block by block into one of its type
// (whole blocks per row on both sides, element-sized strides only within rows of blocks).
bool is_block_source(const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    return ggml_is_quantized(src->type) && weight_type_code(src->type) != kNoType;
}

bool supports_block_copy(const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const int64_t       be  = ggml_blck_size(src->type);
    const bool          ok_src = src->nb[0] == ggml_type_size(src->type) && src->ne[0] % be == 0 && fits_u32(src) &&
                        ggml_nbytes(src) < (size_t(1) << 32) && ggml_nelements(src) == ggml_nelements(node);
    if (!ok_src) {
        return false;
    }
    if (node->type == src->type) {
        return node->nb[0] == ggml_type_size(node->type) && node->ne[0] % be == 0 && fits_u32(node) &&
               ggml_nbytes(node) < (size_t(1) << 32);
    }
    return is_float_type(node->type) && fits_u32(node);
}

bool record_block_copy(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * src  = node->src[0];
    const bool          same = node->type == src->type;
    const Operand       os = rec.in(src), od = rec.out(node);
    BlockCopyParams     p{};
    const Shape         sd = shape_of(node);
    for (int i = 0; i < 4; ++i) {
        p.ne_s[i] = static_cast<uint32_t>(src->ne[i]);
        p.nb_s[i] = static_cast<uint32_t>(src->nb[i]);
        p.ne_d[i] = sd.ne[i];
        p.nb_d[i] = same ? static_cast<uint32_t>(node->nb[i]) : sd.nb[i];
    }
    p.off_s = os.residual;
    p.off_d = same ? od.residual : elements(od.residual, ggml_type_size(node->type));
    p.n     = static_cast<uint32_t>(ggml_nelements(src) / (same ? ggml_blck_size(src->type) : 1));
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("block_copy",
                        {kWorkgroup, weight_type_code(src->type), same ? 0u : float_type_code(node->type), same ? 1u : 0u},
                        {os, od}, &p, sizeof p, gx, gy);
}

} // namespace

bool supports_copy(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if (is_block_source(node)) {
        return supports_block_copy(node);
    }
    if (is_quantized_write(node)) {
        return supports_quantize(node);
    }
    return is_float_type(src->type) && is_float_type(node->type) && ggml_nelements(src) == ggml_nelements(node) &&
           fits_u32(src) && fits_u32(node);
}

// as unary: split only between tensors of one shape
bool map_copy(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    return ggml_are_same_shape(node->src[0], node);
}

bool record_copy(Recorder & rec, const ggml_tensor * node) {
    if (is_block_source(node)) {
        return record_block_copy(rec, node);
    }
    if (is_quantized_write(node)) {
        return record_quantize(rec, node);
    }
    const float none[4] = {};
    return record_elementwise(rec, node->src[0], node, 0, none);
}

} // namespace switchyard::vulkan::ops
