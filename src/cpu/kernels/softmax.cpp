// SOFT_MAX: dst = softmax(a*scale + slope*mask) along rows, with optional per-head sink logits.
// op_params: scale (f32), max_bias (f32). src[1]: mask F32/F16 [ne0, >= ne01, ne12, ne13], broadcast over dims
// 2 and 3; src[2]: sinks F32 [ne02]. slope is the ALiBi slope of the head (i02) when max_bias > 0, else 1.
//
// Each row is computed in float in three passes (logits and their max, exponentials and their sum, scaling). An F32
// dst row with adjacent elements holds the intermediate values itself (also in place, dst == a: every element is
// read before it is written); otherwise they go to a float row per thread in the scratch (work_size).
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>

namespace switchyard::cpu::kernels {

namespace {

float alibi_slope(float max_bias, int64_t head, int64_t n_head) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const int64_t n_head_log2 = int64_t(1) << static_cast<int>(std::floor(std::log2(static_cast<double>(n_head))));
    const float   m0          = std::pow(2.0f, -max_bias / static_cast<float>(n_head_log2));
    const float   m1          = std::pow(2.0f, -(max_bias / 2.0f) / static_cast<float>(n_head_log2));
    return head < n_head_log2 ? std::pow(m0, static_cast<float>(head + 1))
                              : std::pow(m1, static_cast<float>(2 * (head - n_head_log2) + 1));
}

float load(const ggml_tensor * t, const char * p) {
    switch (t->type) {
        case GGML_TYPE_F16:  return fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p));
        case GGML_TYPE_BF16: return bf16_to_fp32(*reinterpret_cast<const uint16_t *>(p));
        default:             return *reinterpret_cast<const float *>(p);
    }
}

// The dst row holds the intermediate values (no scratch).
bool rows_in_dst(const ggml_tensor * dst) {
    return dst->type == GGML_TYPE_F32 && dst->nb[0] == sizeof(float);
}

size_t softmax_work_size(const ggml_tensor * dst, int n_threads) {
    return rows_in_dst(dst) ? 0 : static_cast<size_t>(n_threads) * scratch_floats(dst->ne[0]);
}

void softmax_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a        = dst->src[0];
    const ggml_tensor * mask     = dst->src[1];
    const ggml_tensor * sinks    = dst->src[2];
    const float         scale    = get_op_param_f32(dst, 0);
    const float         max_bias = get_op_param_f32(dst, 1);
    const int64_t       ne0 = a->ne[0], ne1 = a->ne[1], ne2 = a->ne[2];
    const int64_t       nrows = ggml_nrows(a);
    const bool          in_dst = rows_in_dst(dst);
    auto *              buf    = reinterpret_cast<float *>(thread_slot(p, 0, in_dst ? 0 : scratch_floats(ne0)));
    for (int64_t r = p.ith; r < nrows; r += p.nth) {
        const int64_t i1 = r % ne1, i2 = (r / ne1) % ne2, i3 = r / (ne1 * ne2);
        const char *  src   = static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
        const float   slope = alibi_slope(max_bias, i2, ne2);
        const char *  mrow  = mask ? static_cast<const char *>(mask->data) + i1 * mask->nb[1] +
                                       (i2 % mask->ne[2]) * mask->nb[2] + (i3 % mask->ne[3]) * mask->nb[3]
                                   : nullptr;
        char *  out = static_cast<char *>(dst->data) + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3];
        float * x   = in_dst ? reinterpret_cast<float *>(out) : buf;
        float   max = -INFINITY;
        for (int64_t i0 = 0; i0 < ne0; ++i0) {
            float v = load(a, src + i0 * a->nb[0]) * scale;
            if (mrow) {
                v += slope * load(mask, mrow + i0 * mask->nb[0]);
            }
            x[i0] = v;
            max = std::max(max, v);
        }
        float sink = -INFINITY;
        if (sinks) {
            sink = *reinterpret_cast<const float *>(static_cast<const char *>(sinks->data) + i2 * sinks->nb[0]);
            max  = std::max(max, sink);
        }
        double sum = sinks ? std::exp(static_cast<double>(sink - max)) : 0.0;
        for (int64_t i0 = 0; i0 < ne0; ++i0) {
            const float e = max == -INFINITY ? 0.0f : std::exp(x[i0] - max);
            x[i0] = e;
            sum += e;
        }
        const float inv = sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f;
        for (int64_t i0 = 0; i0 < ne0; ++i0) {
            const float v = x[i0] * inv;
            if (in_dst) {
                x[i0] = v;
            } else if (dst->type == GGML_TYPE_F16) {
                *reinterpret_cast<uint16_t *>(out + i0 * dst->nb[0]) = fp32_to_fp16(v);
            } else {
                *reinterpret_cast<float *>(out + i0 * dst->nb[0]) = v;
            }
        }
    }
}

bool softmax_supports(const ggml_tensor * dst) {
    const ggml_tensor * a     = dst->src[0];
    const ggml_tensor * mask  = dst->src[1];
    const ggml_tensor * sinks = dst->src[2];
    const bool          types = (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) &&
                       (dst->type == GGML_TYPE_F32 || dst->type == GGML_TYPE_F16);
    const bool mask_ok  = !mask || mask->type == GGML_TYPE_F32 || mask->type == GGML_TYPE_F16;
    const bool sinks_ok = !sinks || sinks->type == GGML_TYPE_F32;
    return types && mask_ok && sinks_ok;
}

} // namespace

KernelInfo softmax(ggml_op op) {
    if (op == GGML_OP_SOFT_MAX) {
        return KernelInfo{softmax_compute, nullptr, softmax_work_size, softmax_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
