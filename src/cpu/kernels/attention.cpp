// FLASH_ATTN_EXT: softmax(q k^T * scale + slope*mask) v per head, with online softmax (one pass over the keys).
// q: [D, n_q, n_head, ne3] F32; k: [D, n_kv, n_head_kv, ne3]; v: [Dv, n_kv, n_head_kv, ne3] (F32/F16/BF16 or a
// block format); mask: [n_kv, >= n_q, ne32, ne33] F16/F32 (optional); sinks (src[4]): F32 [n_head] (optional).
// dst: F32 [Dv, n_head, n_q, ne3]. op_params: scale, max_bias, logit_softcap (f32), prec.
//
// Scratch (work_size): per thread the output accumulator (Dv floats) and a float row for each of q, k, v that is
// not F32 (F32 rows are read in place).
#include "cpu/kernels/common.h"
#include "cpu/kernels/dequant.h"
#include "cpu/kernels/families.h"
#include "cpu/kernels/matmul_dot.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace switchyard::cpu::kernels {

namespace {

float load_mask(const ggml_tensor * m, const char * p) {
    return m->type == GGML_TYPE_F16 ? fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p)) : *reinterpret_cast<const float *>(p);
}

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

// One thread's rows in its scratch slot: acc always, q / k / v only for types that are converted.
struct Scratch {
    float * acc = nullptr;
    float * q   = nullptr;
    float * k   = nullptr;
    float * v   = nullptr;
};

size_t row_bytes(const ggml_tensor * t, int64_t n) {
    return t->type == GGML_TYPE_F32 ? 0 : scratch_floats(n);
}

size_t slot_bytes(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2];
    return scratch_floats(v->ne[0]) + row_bytes(q, q->ne[0]) + row_bytes(k, q->ne[0]) + row_bytes(v, v->ne[0]);
}

Scratch thread_scratch(const ComputeParams & p, const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2];
    char *              at = thread_slot(p, 0, slot_bytes(dst));
    const auto          take = [&at](size_t bytes) {
        auto * f = bytes > 0 ? reinterpret_cast<float *>(at) : nullptr;
        at += bytes;
        return f;
    };
    Scratch s;
    s.acc = take(scratch_floats(v->ne[0]));
    s.q   = take(row_bytes(q, q->ne[0]));
    s.k   = take(row_bytes(k, q->ne[0]));
    s.v   = take(row_bytes(v, v->ne[0]));
    return s;
}

size_t flash_attn_work_size(const ggml_tensor * dst, int n_threads) {
    return static_cast<size_t>(n_threads) * slot_bytes(dst);
}

void attend_one(const ggml_tensor * dst, int64_t iq1, int64_t iq2, int64_t iq3, const Scratch & s) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3], *sinks = dst->src[4];
    const float scale = get_op_param_f32(dst, 0), max_bias = get_op_param_f32(dst, 1), softcap = get_op_param_f32(dst, 2);
    const int64_t D = q->ne[0], Dv = v->ne[0], n_kv = k->ne[1];
    const int64_t ik2 = iq2 / (q->ne[2] / k->ne[2]), ik3 = iq3 / (q->ne[3] / k->ne[3]);
    const float   slope = alibi_slope(max_bias, iq2, q->ne[2]);
    const float * qrow = row_as_float(q->type, row_ptr(q, iq1, iq2, iq3), s.q, D);
    std::fill(s.acc, s.acc + Dv, 0.0f);
    const DotKernels & dk  = dot_kernels();
    float              M   = -INFINITY;
    double             sum = 0.0;
    const char *       mrow = mask ? static_cast<const char *>(mask->data) + iq1 * mask->nb[1] + (iq2 % mask->ne[2]) * mask->nb[2] +
                                      (iq3 % mask->ne[3]) * mask->nb[3]
                                   : nullptr;
    for (int64_t j = 0; j < n_kv; ++j) {
        const float mv = mrow ? slope * load_mask(mask, mrow + j * mask->nb[0]) : 0.0f;
        if (mv == -INFINITY) {
            continue;
        }
        const float * krow = row_as_float(k->type, row_ptr(k, j, ik2, ik3), s.k, D);
        float score = dk.dot(qrow, krow, D) * scale;
        if (softcap != 0.0f) {
            score = softcap * std::tanh(score / softcap);
        }
        score += mv;
        const float m_new = std::max(M, score);
        const float corr  = std::exp(M - m_new); // 0 when M was -inf
        const float w     = std::exp(score - m_new);
        const float * vrow = row_as_float(v->type, row_ptr(v, j, ik2, ik3), s.v, Dv);
        for (int64_t d = 0; d < Dv; ++d) {
            s.acc[d] = s.acc[d] * corr + w * vrow[d];
        }
        sum = sum * corr + w;
        M   = m_new;
    }
    if (sinks) {
        const float sink  = *reinterpret_cast<const float *>(static_cast<const char *>(sinks->data) + iq2 * sinks->nb[0]);
        const float m_new = std::max(M, sink);
        const float corr  = std::exp(M - m_new);
        for (int64_t d = 0; d < Dv; ++d) {
            s.acc[d] *= corr;
        }
        sum = sum * corr + std::exp(sink - m_new);
    }
    const float inv = sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f;
    char *      out = static_cast<char *>(dst->data) + iq2 * dst->nb[1] + iq1 * dst->nb[2] + iq3 * dst->nb[3];
    for (int64_t d = 0; d < Dv; ++d) {
        *reinterpret_cast<float *>(out + d * dst->nb[0]) = s.acc[d] * inv;
    }
}

void flash_attn_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0];
    const Scratch       s = thread_scratch(p, dst);
    const int64_t       n_items = q->ne[1] * q->ne[2] * q->ne[3];
    for (int64_t it = p.ith; it < n_items; it += p.nth) {
        const int64_t iq1 = it % q->ne[1], iq2 = (it / q->ne[1]) % q->ne[2], iq3 = it / (q->ne[1] * q->ne[2]);
        attend_one(dst, iq1, iq2, iq3, s);
    }
}

bool flash_attn_supports(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3], *sinks = dst->src[4];
    return q && k && v && dst->type == GGML_TYPE_F32 && row_convertible(q->type) && row_convertible(k->type) && row_convertible(v->type) &&
           k->ne[0] == q->ne[0] && q->ne[2] % k->ne[2] == 0 && q->ne[3] % k->ne[3] == 0 &&
           (!mask || mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && (!sinks || sinks->type == GGML_TYPE_F32) &&
           q->nb[0] == ggml_type_size(q->type) && k->nb[0] == ggml_type_size(k->type) && v->nb[0] == ggml_type_size(v->type);
}

} // namespace

KernelInfo attention(ggml_op op) {
    if (op == GGML_OP_FLASH_ATTN_EXT) {
        return KernelInfo{flash_attn_compute, nullptr, flash_attn_work_size, flash_attn_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
