// Q6_K (16 sub-blocks of 16 with int8 scales, 6-bit symmetric levels) and Q8_K (the 8-bit intermediate
// format the K-quant dot products take their other operand in, with per-16 sums of the levels).
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

constexpr int kSub  = 16;
constexpr int kNSub = kQK_K / kSub;

// ---- Q6_K ------------------------------------------------------------------------------------------------

// The 6-bit level (0..63) of element i (see BlockQ6_K).
int unpack_q6(const BlockQ6_K & b, int i) {
    const int h = i / 128, r = i % 128;
    const int ql = b.ql[64 * h + r % 64];
    const int lo = r < 64 ? (ql & 0xf) : (ql >> 4);
    const int hi = (b.qh[32 * h + r % 32] >> (2 * (r / 32))) & 3;
    return lo | (hi << 4);
}

void pack_q6(const uint8_t * L, BlockQ6_K & b) {
    std::fill(b.ql, b.ql + sizeof(b.ql), uint8_t{0});
    std::fill(b.qh, b.qh + sizeof(b.qh), uint8_t{0});
    for (int i = 0; i < kQK_K; ++i) {
        const int h = i / 128, r = i % 128;
        b.ql[64 * h + r % 64] |= static_cast<uint8_t>((L[i] & 0xf) << (r < 64 ? 0 : 4));
        b.qh[32 * h + r % 32] |= static_cast<uint8_t>(((L[i] >> 4) & 3) << (2 * (r / 32)));
    }
}

void dequantize_q6_k(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockQ6_K>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int e = 0; e < kQK_K; ++e) {
            const float dl   = d * static_cast<float>(b.scales[e / kSub]);
            y[i * kQK_K + e] = dl * static_cast<float>(unpack_q6(b, e) - 32);
        }
    }
}

// From the 16 sub-block scales (sign included) and their levels: int8 scales against d = -max_scale / 128,
// levels recomputed from the stored scales. weights: null for x^2 (the reference) or the imatrix.
void quantize_q6_k_block(const float * x, const float * weights, BlockQ6_K & b) {
    int8_t Ls[kQK_K];
    float  scales[kNSub];
    float  max_scale = 0.0f, max_abs_scale = 0.0f;
    for (int j = 0; j < kNSub; ++j) {
        scales[j] = fit_symmetric(kSub, 32, x + kSub * j, weights ? weights + kSub * j : nullptr, Ls + kSub * j);
        if (std::fabs(scales[j]) > max_abs_scale) {
            max_abs_scale = std::fabs(scales[j]);
            max_scale     = scales[j];
        }
    }
    b = BlockQ6_K{};
    if (max_abs_scale < kGroupMaxEps) {
        return; // all zero
    }
    const float iscale = -128.0f / max_scale;
    b.d                = fp32_to_fp16(1.0f / iscale);
    for (int j = 0; j < kNSub; ++j) {
        b.scales[j] = static_cast<int8_t>(std::clamp(round_nearest(iscale * scales[j]), -128, 127));
    }
    uint8_t     L[kQK_K];
    const float d = fp16_to_fp32(b.d);
    std::copy(Ls, Ls + kQK_K, L);
    for (int j = 0; j < kNSub; ++j) {
        const float dl = d * static_cast<float>(b.scales[j]);
        if (dl == 0.0f) {
            continue;
        }
        for (int l = 0; l < kSub; ++l) {
            L[kSub * j + l] = static_cast<uint8_t>(std::clamp(round_nearest(x[kSub * j + l] / dl), -32, 31) + 32);
        }
    }
    pack_q6(L, b);
}

void quantize_q6_k_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        BlockQ6_K b;
        quantize_q6_k_block(x + i * kQK_K, nullptr, b);
        store_block(y, i, b);
    }
}

// imatrix: the importance weights are used as they are for the per-sub-block search.
void quantize_q6_k_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        BlockQ6_K b;
        quantize_q6_k_block(x + i * kQK_K, imatrix + i * kQK_K, b);
        store_block(y, i, b);
    }
}

size_t quantize_rows_q6_k(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK_K) * sizeof(BlockQ6_K);
    if (imatrix == nullptr) {
        quantize_q6_k_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_q6_k_weighted);
}

// ---- Q8_K ------------------------------------------------------------------------------------------------

void dequantize_q8_k(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto b = load_block<BlockQ8_K>(x, i);
        for (int e = 0; e < kQK_K; ++e) {
            y[i * kQK_K + e] = b.d * static_cast<float>(b.qs[e]);
        }
    }
}

// d = -max / 127 with max the value of largest magnitude (so that value maps to -127 exactly), levels rounded
// to nearest even, bsums the sums of each 16 levels.
void quantize_q8_k_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * xb  = x + i * kQK_K;
        float         max = 0.0f, amax = 0.0f;
        for (int e = 0; e < kQK_K; ++e) {
            if (std::fabs(xb[e]) > amax) {
                amax = std::fabs(xb[e]);
                max  = xb[e];
            }
        }
        BlockQ8_K b{};
        if (amax != 0.0f) {
            const float iscale = -127.0f / max;
            for (int e = 0; e < kQK_K; ++e) {
                b.qs[e] = static_cast<int8_t>(std::clamp(round_nearest(iscale * xb[e]), -128, 127));
            }
            for (int j = 0; j < kNSub; ++j) {
                int sum = 0;
                for (int l = 0; l < kSub; ++l) {
                    sum += b.qs[kSub * j + l];
                }
                b.bsums[j] = static_cast<int16_t>(sum);
            }
            b.d = 1.0f / iscale;
        }
        store_block(y, i, b);
    }
}

size_t quantize_rows_q8_k(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float *) {
    quantize_q8_k_ref(src, dst, nrows * n_per_row);
    return static_cast<size_t>(nrows) * static_cast<size_t>(n_per_row / kQK_K) * sizeof(BlockQ8_K);
}

} // namespace

const Format kFormatQ6_K{GGML_TYPE_Q6_K, dequantize_q6_k, quantize_q6_k_ref, quantize_rows_q6_k, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ6_K, d), "d"}, {}}};
const Format kFormatQ8_K{GGML_TYPE_Q8_K, dequantize_q8_k, quantize_q8_k_ref, quantize_rows_q8_k, false,
                         {{ScaleKind::kFloat, offsetof(BlockQ8_K, d), "d"}, {}}};

} // namespace switchyard::quant
