// IM2COL (unfold data into columns for convolution by MUL_MAT), POOL_1D and POOL_2D.
// IM2COL op_params: s0, s1, p0, p1, d0, d1, is_2D. src[0] is the kernel (shape only), src[1] the data:
// 2-D: data [IW, IH, IC, N], kernel [KW, KH, IC, OC], dst [IC*KH*KW, OW, OH, N];
// 1-D: data [IL, IC, N],     kernel [K, IC, OC],      dst [IC*K, OL, N].
// POOL_1D op_params: op, k0, s0, p0; POOL_2D: op, k0, k1, s0, s1, p0, p1. Out-of-range taps are skipped;
// AVG divides by the full window size.
#include "cpu/kernels/families.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <cfloat>

namespace switchyard::cpu::kernels {

namespace {

float load(const ggml_tensor * t, const char * p) {
    return t->type == GGML_TYPE_F16 ? fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p)) : *reinterpret_cast<const float *>(p);
}

void store(const ggml_tensor * t, char * p, float v) {
    if (t->type == GGML_TYPE_F16) {
        *reinterpret_cast<uint16_t *>(p) = fp32_to_fp16(v);
    } else {
        *reinterpret_cast<float *>(p) = v;
    }
}

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
                        v = load(b, static_cast<const char *>(b->data) + in * s.nb_n + iic * s.nb_c + ih * s.nb_h + iw * s.nb_w);
                    }
                    store(dst, out + col * dst->nb[0], v);
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

float pool_value(int op, float acc, int count) {
    return op == GGML_OP_POOL_AVG ? acc / static_cast<float>(count) : acc;
}

void pool_1d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a  = dst->src[0];
    const int           op = get_op_param_i32(dst, 0), k0 = get_op_param_i32(dst, 1);
    const int           s0 = get_op_param_i32(dst, 2), p0 = get_op_param_i32(dst, 3);
    for (int64_t r = p.ith; r < ggml_nrows(dst); r += p.nth) {
        const int64_t i1 = r % dst->ne[1], i2 = (r / dst->ne[1]) % dst->ne[2], i3 = r / (dst->ne[1] * dst->ne[2]);
        const char *  src = static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
        char *        out = static_cast<char *>(dst->data) + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3];
        for (int64_t o = 0; o < dst->ne[0]; ++o) {
            float acc = op == GGML_OP_POOL_MAX ? -FLT_MAX : 0.0f;
            for (int k = 0; k < k0; ++k) {
                const int64_t j = o * s0 + k - p0;
                if (j < 0 || j >= a->ne[0]) continue;
                const float v = load(a, src + j * a->nb[0]);
                acc           = op == GGML_OP_POOL_MAX ? (v > acc ? v : acc) : acc + v;
            }
            *reinterpret_cast<float *>(out + o * dst->nb[0]) = pool_value(op, acc, k0);
        }
    }
}

void pool_2d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a  = dst->src[0];
    const int op = get_op_param_i32(dst, 0), k0 = get_op_param_i32(dst, 1), k1 = get_op_param_i32(dst, 2);
    const int s0 = get_op_param_i32(dst, 3), s1 = get_op_param_i32(dst, 4);
    const int p0 = get_op_param_i32(dst, 5), p1 = get_op_param_i32(dst, 6);
    const int64_t n_planes = dst->ne[2] * dst->ne[3];
    for (int64_t pl = p.ith; pl < n_planes; pl += p.nth) {
        const int64_t i2 = pl % dst->ne[2], i3 = pl / dst->ne[2];
        for (int64_t oy = 0; oy < dst->ne[1]; ++oy) {
            for (int64_t ox = 0; ox < dst->ne[0]; ++ox) {
                float acc = op == GGML_OP_POOL_MAX ? -FLT_MAX : 0.0f;
                for (int ky = 0; ky < k1; ++ky) {
                    for (int kx = 0; kx < k0; ++kx) {
                        const int64_t iy = oy * s1 + ky - p1, ix = ox * s0 + kx - p0;
                        if (iy < 0 || iy >= a->ne[1] || ix < 0 || ix >= a->ne[0]) continue;
                        const float v = load(a, static_cast<const char *>(a->data) + ix * a->nb[0] + iy * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3]);
                        acc           = op == GGML_OP_POOL_MAX ? (v > acc ? v : acc) : acc + v;
                    }
                }
                *reinterpret_cast<float *>(static_cast<char *>(dst->data) + ox * dst->nb[0] + oy * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3]) =
                    pool_value(op, acc, k0 * k1);
            }
        }
    }
}

bool pool_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    return a && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && dst->type == GGML_TYPE_F32;
}

} // namespace

KernelInfo im2col_pool(ggml_op op) {
    switch (op) {
        case GGML_OP_IM2COL:  return KernelInfo{im2col_compute, nullptr, nullptr, im2col_supports};
        case GGML_OP_POOL_1D: return KernelInfo{pool_1d_compute, nullptr, nullptr, pool_supports};
        case GGML_OP_POOL_2D: return KernelInfo{pool_2d_compute, nullptr, nullptr, pool_supports};
        default:              return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
