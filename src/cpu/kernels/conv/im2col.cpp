// IM2COL: unfold data into columns for convolution by MUL_MAT (vulkan/ops/im2col.cpp is the Vulkan one).
// op_params: s0, s1, p0, p1, d0, d1, is_2D. src[0] is the kernel (shape only), src[1] the data:
// 2-D: data [IW, IH, IC, N], kernel [KW, KH, IC, OC], dst [IC*KH*KW, OW, OH, N];
// 1-D: data [IL, IC, N],     kernel [K, IC, OC],      dst [IC*K, OL, N]. Data and columns f32 or f16.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "core/tensor.h"

namespace switchyard::cpu::kernels {

namespace {

struct Im2colShape {
    int64_t N, IC, IH, IW, KH, KW, OH, OW;
    int     s0, s1, p0, p1, d0, d1;
    bool    is_2d;
    size_t  nb_n, nb_c, nb_h, nb_w; // strides of the data tensor
};

Im2colShape im2col_shape(const ggml_tensor * dst) {
    const ggml_tensor * k = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    const bool          is_2d = get_op_param_i32(dst, 6) == 1;
    Im2colShape s{};
    s.is_2d = is_2d;
    s.s0 = get_op_param_i32(dst, 0), s.s1 = get_op_param_i32(dst, 1);
    s.p0 = get_op_param_i32(dst, 2), s.p1 = get_op_param_i32(dst, 3);
    s.d0 = get_op_param_i32(dst, 4), s.d1 = get_op_param_i32(dst, 5);
    s.N  = is_2d ? b->ne[3] : b->ne[2];
    s.IC = is_2d ? b->ne[2] : b->ne[1];
    s.IH = is_2d ? b->ne[1] : 1;
    s.IW = b->ne[0];
    s.KH = is_2d ? k->ne[1] : 1;
    s.KW = k->ne[0];
    s.OH = is_2d ? dst->ne[2] : 1;
    s.OW = dst->ne[1];
    s.nb_n = is_2d ? b->nb[3] : b->nb[2];
    s.nb_c = is_2d ? b->nb[2] : b->nb[1];
    s.nb_h = is_2d ? b->nb[1] : 0;
    s.nb_w = b->nb[0];
    return s;
}

void im2col_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * b = dst->src[1];
    const Im2colShape   s = im2col_shape(dst);
    // one work item per output position (in, ioh, iow)
    const int64_t n_items = s.N * s.OH * s.OW;
    for (int64_t it = p.ith; it < n_items; it += p.nth) {
        const int64_t iow = it % s.OW, ioh = (it / s.OW) % s.OH, in = it / (s.OW * s.OH);
        // dst is [cols, OW, OH, N] (1-D: [cols, OL, N], where OH == 1 and N sits in dim 2)
        char * out = static_cast<char *>(dst->data) + iow * dst->nb[1] + (s.is_2d ? ioh * dst->nb[2] + in * dst->nb[3] : in * dst->nb[2]);
        for (int64_t iic = 0; iic < s.IC; ++iic) {
            for (int64_t ikh = 0; ikh < s.KH; ++ikh) {
                for (int64_t ikw = 0; ikw < s.KW; ++ikw) {
                    const int64_t iw  = iow * s.s0 + ikw * s.d0 - s.p0;
                    const int64_t ih  = ioh * s.s1 + ikh * s.d1 - s.p1;
                    const int64_t col = (iic * s.KH + ikh) * s.KW + ikw;
                    float         v   = 0.0f;
                    if (iw >= 0 && iw < s.IW && ih >= 0 && ih < s.IH) {
                        v = load_value(b->type, static_cast<const char *>(b->data) + in * s.nb_n + iic * s.nb_c + ih * s.nb_h + iw * s.nb_w);
                    }
                    store_value(dst->type, out + col * dst->nb[0], v);
                }
            }
        }
    }
}

bool im2col_supports(const ggml_tensor * dst) {
    const ggml_tensor * b = dst->src[1];
    return b && (b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16) &&
           (dst->type == GGML_TYPE_F32 || dst->type == GGML_TYPE_F16);
}

} // namespace

KernelInfo im2col(ggml_op op) {
    return op == GGML_OP_IM2COL ? KernelInfo{im2col_compute, nullptr, nullptr, im2col_supports} : KernelInfo{};
}

} // namespace switchyard::cpu::kernels
