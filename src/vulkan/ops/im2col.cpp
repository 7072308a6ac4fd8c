// IM2COL (shaders/im2col.comp), 1-D and 2-D: f32 or f16 data into f32 or f16 columns. op_params (i32)
// {s0, s1, p0, p1, d0, d1, is_2D}; the kernel (src0) gives only its shape.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

namespace switchyard::vulkan::ops {

namespace {

struct Im2colParams {
    uint32_t ne_d[4], nb_d[4], nb_b[4];
    uint32_t IW, IH, KW, KH;
    int32_t  s0, s1, p0, p1, d0, d1;
    uint32_t off_b, off_d, n;
};
static_assert(sizeof(Im2colParams) <= 128);

bool float16_or_32(ggml_type t) { return t == GGML_TYPE_F32 || t == GGML_TYPE_F16; }

} // namespace

bool supports_im2col(const Device &, const ggml_tensor * node) {
    const ggml_tensor * k = node->src[0];
    const ggml_tensor * b = node->src[1];
    const bool          is_2d = op_i32(node, 6) == 1;
    if (!float16_or_32(b->type) || !float16_or_32(node->type) || !fits_u32(b) || !fits_u32(node)) {
        return false;
    }
    const int64_t kh = is_2d ? k->ne[1] : 1, ic = is_2d ? b->ne[2] : b->ne[1];
    return node->ne[0] == ic * kh * k->ne[0] && (is_2d || node->ne[3] == 1);
}

bool record_im2col(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * k     = node->src[0];
    const ggml_tensor * b     = node->src[1];
    const bool          is_2d = op_i32(node, 6) == 1;
    const Operand       ob = rec.in(b), od = rec.out(node);
    const Shape         sb = shape_of(b), sd = shape_of(node);
    Im2colParams        p{};
    if (is_2d) {
        for (int i = 0; i < 4; ++i) {
            p.ne_d[i] = sd.ne[i];
            p.nb_d[i] = sd.nb[i];
            p.nb_b[i] = sb.nb[i];
        }
    } else { // [cols, OL, N] seen as [cols, OL, 1, N]; b [L, IC, N] as [L, 1, IC, N]
        p.ne_d[0] = sd.ne[0], p.ne_d[1] = sd.ne[1], p.ne_d[2] = 1, p.ne_d[3] = sd.ne[2];
        p.nb_d[0] = sd.nb[0], p.nb_d[1] = sd.nb[1], p.nb_d[2] = 0, p.nb_d[3] = sd.nb[2];
        p.nb_b[0] = sb.nb[0], p.nb_b[1] = 0, p.nb_b[2] = sb.nb[1], p.nb_b[3] = sb.nb[2];
    }
    p.IW  = static_cast<uint32_t>(b->ne[0]);
    p.IH  = is_2d ? static_cast<uint32_t>(b->ne[1]) : 1;
    p.KW  = static_cast<uint32_t>(k->ne[0]);
    p.KH  = is_2d ? static_cast<uint32_t>(k->ne[1]) : 1;
    p.s0  = op_i32(node, 0), p.s1 = op_i32(node, 1);
    p.p0  = op_i32(node, 2), p.p1 = op_i32(node, 3);
    p.d0  = op_i32(node, 4), p.d1 = op_i32(node, 5);
    p.off_b = elements(ob.residual, ggml_type_size(b->type));
    p.off_d = elements(od.residual, ggml_type_size(node->type));
    p.n     = static_cast<uint32_t>(ggml_nelements(node));
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("im2col", {kWorkgroup, float_type_code(b->type), float_type_code(node->type)}, {ob, od}, &p,
                        sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
