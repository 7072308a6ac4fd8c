// The scalar matrix-vector kernels: one per weight type, portable, built on the levels of levels.h. They are the
// level every CPU runs and the reference the vector kernels are tested against (with the tests' own float
// reference above both).
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/levels.h"

#include "base/fp16.h"

namespace switchyard::cpu::quants {

namespace {

using quant::BlockQ8_0;
using quant::BlockQ8_1;
using quant::BlockQ8_K;
using quant::load_block;

// Runs Dot::dot(weight row, activation column, k) for every row and column of a.
template <class Dot>
void each_product(const MatVecArgs & a) {
    const auto * w   = static_cast<const char *>(a.w);
    const auto * act = static_cast<const char *>(a.act);
    for (int64_t r = 0; r < a.rows; ++r) {
        for (int c = 0; c < a.cols; ++c) {
            a.out[r * a.out_row + c * a.out_col] =
                Dot::dot(w + static_cast<size_t>(r) * a.w_row, act + static_cast<size_t>(c) * a.act_col, a.k);
        }
    }
}

// Legacy formats against q8_0: sum over blocks of (sum_j v_j * q_j) * d_w * d_a.
template <class Block>
struct LegacyQ8_0 {
    static float dot(const void * w, const void * y, int64_t k) {
        float sum = 0.0f;
        for (int64_t i = 0; i < k / kQK32; ++i) {
            const LegacyLevels l = levels(load_block<Block>(w, i));
            const auto         q = load_block<BlockQ8_0>(y, i);
            int                sumi = 0;
            for (int j = 0; j < kQK32; ++j) {
                sumi += l.v[j] * q.qs[j];
            }
            sum += static_cast<float>(sumi) * (l.d * fp16_to_fp32(q.d));
        }
        return sum;
    }
};

// q4_1 / q5_1 against q8_1: the min term uses the activation block's s = d_a * sum(q), as upstream does.
template <class Block>
struct LegacyQ8_1 {
    static float dot(const void * w, const void * y, int64_t k) {
        float sum = 0.0f;
        for (int64_t i = 0; i < k / kQK32; ++i) {
            const LegacyLevels l = levels(load_block<Block>(w, i));
            const auto         q = load_block<BlockQ8_1>(y, i);
            int                sumi = 0;
            for (int j = 0; j < kQK32; ++j) {
                sumi += l.v[j] * q.qs[j];
            }
            sum += static_cast<float>(sumi) * (l.d * fp16_to_fp32(q.d)) + l.m * fp16_to_fp32(q.s);
        }
        return sum;
    }
};

// K-quants against q8_K: d * d_a * sum_j scale_j * (levels . q over sub-block j) - dmin * d_a * sum_j min_j *
// bsum_j, the integer sums exact.
template <class Block>
struct KQ8_K {
    static float dot(const void * w, const void * y, int64_t k) {
        float sum = 0.0f;
        for (int64_t i = 0; i < k / kQK_K; ++i) {
            const KLevels l = levels(load_block<Block>(w, i));
            const auto    q = load_block<BlockQ8_K>(y, i);
            int32_t       scaled = 0, mins = 0;
            for (int j = 0; j < kQK_K / 16; ++j) {
                int32_t sub = 0;
                for (int e = 16 * j; e < 16 * j + 16; ++e) {
                    sub += l.v[e] * q.qs[e];
                }
                scaled += l.scale[j] * sub;
                mins += l.min[j] * q.bsums[j];
            }
            sum += l.d * q.d * static_cast<float>(scaled) - l.dmin * q.d * static_cast<float>(mins);
        }
        return sum;
    }
};

// Plain float formats: both operands as floats, eight partial sums.
template <float (*kLoadW)(const void *, int64_t), float (*kLoadY)(const void *, int64_t)>
struct FloatDot {
    static float dot(const void * w, const void * y, int64_t k) {
        float   acc[8] = {};
        int64_t i      = 0;
        for (; i + 8 <= k; i += 8) {
            for (int l = 0; l < 8; ++l) {
                acc[l] += kLoadW(w, i + l) * kLoadY(y, i + l);
            }
        }
        float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for (; i < k; ++i) {
            sum += kLoadW(w, i) * kLoadY(y, i);
        }
        return sum;
    }
};

float load_f32(const void * p, int64_t i) {
    float v;
    std::memcpy(&v, static_cast<const char *>(p) + i * 4, sizeof(v));
    return v;
}

float load_f16(const void * p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(p) + i * 2, sizeof(h));
    return fp16_to_fp32(h);
}

float load_bf16(const void * p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(p) + i * 2, sizeof(h));
    return bf16_to_fp32(h);
}

} // namespace

MatVecFn matvec_scalar(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F32:    return each_product<FloatDot<load_f32, load_f32>>;
        case GGML_TYPE_F16:    return each_product<FloatDot<load_f16, load_f16>>;
        case GGML_TYPE_BF16:   return each_product<FloatDot<load_bf16, load_bf16>>;
        case GGML_TYPE_Q4_0:   return each_product<LegacyQ8_0<quant::BlockQ4_0>>;
        case GGML_TYPE_Q4_1:   return each_product<LegacyQ8_1<quant::BlockQ4_1>>;
        case GGML_TYPE_Q5_0:   return each_product<LegacyQ8_0<quant::BlockQ5_0>>;
        case GGML_TYPE_Q5_1:   return each_product<LegacyQ8_1<quant::BlockQ5_1>>;
        case GGML_TYPE_Q8_0:   return each_product<LegacyQ8_0<quant::BlockQ8_0>>;
        case GGML_TYPE_IQ4_NL: return each_product<LegacyQ8_0<quant::BlockIQ4_NL>>;
        case GGML_TYPE_MXFP4:  return each_product<LegacyQ8_0<quant::BlockMXFP4>>;
        case GGML_TYPE_Q2_K:   return each_product<KQ8_K<quant::BlockQ2_K>>;
        case GGML_TYPE_Q3_K:   return each_product<KQ8_K<quant::BlockQ3_K>>;
        case GGML_TYPE_Q4_K:   return each_product<KQ8_K<quant::BlockQ4_K>>;
        case GGML_TYPE_Q5_K:   return each_product<KQ8_K<quant::BlockQ5_K>>;
        case GGML_TYPE_Q6_K:   return each_product<KQ8_K<quant::BlockQ6_K>>;
        default:               return nullptr;
    }
}

} // namespace switchyard::cpu::quants
