// POOL_1D and POOL_2D. op_params: POOL_1D op, k0, s0, p0; POOL_2D op, k0, k1, s0, s1, p0, p1. Out-of-range taps
// are skipped; AVG divides by the full window size. Sources f32 or f16, results f32.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "core/tensor.h"

#include <cfloat>

namespace switchyard::cpu::kernels {

namespace {

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
                const float v = load_value(a->type, src + j * a->nb[0]);
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
                        const float v = load_value(a->type, static_cast<const char *>(a->data) + ix * a->nb[0] + iy * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3]);
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

KernelInfo pool(ggml_op op) {
    switch (op) {
        case GGML_OP_POOL_1D: return KernelInfo{pool_1d_compute, nullptr, nullptr, pool_supports};
        case GGML_OP_POOL_2D: return KernelInfo{pool_2d_compute, nullptr, nullptr, pool_supports};
        default:              return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
