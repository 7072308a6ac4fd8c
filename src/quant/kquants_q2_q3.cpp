// Q2_K and Q3_K: 256-element super-blocks of 16 sub-blocks of 16, 2-bit levels (+ a high bit for Q3_K).
// Sub-block scales are searched per sub-block (affine for Q2_K, symmetric for Q3_K), then themselves
// quantized against a super-block scale, and finally every level is recomputed from the stored (rounded)
// scales so that the levels fit what dequantization will see.
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

constexpr int kSub = 16;            // elements per sub-block
constexpr int kNSub = kQK_K / kSub; // sub-blocks per super-block

// 2-bit low parts of 256 levels: element i goes to qs[32 * (i / 128) + i % 32], bits 2 * ((i % 128) / 32).
void pack_2bit(const uint8_t * L, uint8_t * qs) {
    for (int h = 0; h < kQK_K; h += 128) {
        for (int l = 0; l < 32; ++l) {
            qs[h / 4 + l] = static_cast<uint8_t>((L[h + l] & 3) | ((L[h + l + 32] & 3) << 2) |
                                                 ((L[h + l + 64] & 3) << 4) | ((L[h + l + 96] & 3) << 6));
        }
    }
}

int unpack_2bit(const uint8_t * qs, int i) {
    return (qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
}

float block_sum_squares(const float * x) {
    float s = 0.0f;
    for (int j = 0; j < kQK_K; ++j) {
        s += x[j] * x[j];
    }
    return s;
}

// ---- Q2_K ------------------------------------------------------------------------------------------------

void dequantize_q2_k(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b    = load_block<BlockQ2_K>(x, i);
        const float d    = fp16_to_fp32(b.d);
        const float dmin = fp16_to_fp32(b.dmin);
        for (int e = 0; e < kQK_K; ++e) {
            const uint8_t sc = b.scales[e / kSub];
            const float   dl = d * static_cast<float>(sc & 0xf);
            const float   ml = dmin * static_cast<float>(sc >> 4);
            y[i * kQK_K + e] = dl * static_cast<float>(unpack_2bit(b.qs, e)) - ml;
        }
    }
}

// Levels from the stored scales: l = round((x + dmin * min) / (d * scale)), sub-blocks with a zero scale keep
// the levels of the search.
void requantize_q2_k(const float * x, const BlockQ2_K & b, uint8_t * L) {
    const float d    = fp16_to_fp32(b.d);
    const float dmin = fp16_to_fp32(b.dmin);
    for (int j = 0; j < kNSub; ++j) {
        const float dl = d * static_cast<float>(b.scales[j] & 0xf);
        if (dl == 0.0f) {
            continue;
        }
        const float ml = dmin * static_cast<float>(b.scales[j] >> 4);
        for (int l = 0; l < kSub; ++l) {
            L[kSub * j + l] = static_cast<uint8_t>(std::clamp(round_nearest((x[kSub * j + l] + ml) / dl), 0, 3));
        }
    }
}

// 4-bit quantization of the 16 sub-block scales (or mins) against their maximum; returns the super scale.
float quantize_sub_scales_4bit(const float * v, uint8_t * out, int shift) {
    const float max = *std::max_element(v, v + kNSub);
    if (!(max > 0.0f)) {
        return 0.0f;
    }
    const float iscale = 15.0f / max;
    for (int j = 0; j < kNSub; ++j) {
        out[j] |= static_cast<uint8_t>(std::clamp(round_nearest(iscale * v[j]), 0, 15) << shift);
    }
    return max / 15.0f;
}

void quantize_q2_k_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * xb = x + i * kQK_K;
        uint8_t       L[kQK_K];
        float         scales[kNSub], mins[kNSub], weights[kSub];
        for (int j = 0; j < kNSub; ++j) {
            for (int l = 0; l < kSub; ++l) {
                weights[l] = std::fabs(xb[kSub * j + l]);
            }
            scales[j] = fit_affine(kSub, 3, xb + kSub * j, weights, L + kSub * j, mins[j],
                                   AffineSearch{-0.5f, 0.1f, 15, true});
        }
        BlockQ2_K b{};
        b.d    = fp32_to_fp16(quantize_sub_scales_4bit(scales, b.scales, 0));
        b.dmin = fp32_to_fp16(quantize_sub_scales_4bit(mins, b.scales, 4));
        requantize_q2_k(xb, b, L);
        pack_2bit(L, b.qs);
        store_block(y, i, b);
    }
}

void quantize_q2_k_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const float * xb     = x + i * kQK_K;
        const float   sigma2 = block_sum_squares(xb) / kQK_K;
        uint8_t       L[kQK_K], Ls[kNSub], Lm[kNSub];
        float         scales[kNSub], mins[kNSub], sw[kNSub], weights[kSub];
        for (int j = 0; j < kNSub; ++j) {
            const float * xs = xb + kSub * j;
            sw[j]            = 0.0f;
            for (int l = 0; l < kSub; ++l) {
                weights[l] = imatrix[i * kQK_K + kSub * j + l] * std::sqrt(sigma2 + xs[l] * xs[l]);
                sw[j] += weights[l];
            }
            scales[j] = fit_affine(kSub, 3, xs, weights, L + kSub * j, mins[j], AffineSearch{-0.9f, 0.05f, 36, false});
        }
        BlockQ2_K b{};
        b.d    = fp32_to_fp16(fit_unsigned(kNSub, 15, scales, sw, Ls));
        b.dmin = fp32_to_fp16(fit_unsigned(kNSub, 15, mins, sw, Lm));
        for (int j = 0; j < kNSub; ++j) {
            b.scales[j] = static_cast<uint8_t>(Ls[j] | (Lm[j] << 4));
        }
        requantize_q2_k(xb, b, L);
        pack_2bit(L, b.qs);
        store_block(y, i, b);
    }
}

size_t quantize_rows_q2_k(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK_K) * sizeof(BlockQ2_K);
    if (imatrix == nullptr) {
        quantize_q2_k_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_q2_k_weighted);
}

// ---- Q3_K ------------------------------------------------------------------------------------------------

// The 16 six-bit scale codes (0..63, the signed scale plus 32) in and out of their 12 packed bytes.
void pack_scales_q3_k(const uint8_t * codes, uint8_t * q) {
    std::fill(q, q + 12, uint8_t{0});
    for (int j = 0; j < kNSub; ++j) {
        const int c = codes[j];
        q[j % 8] |= static_cast<uint8_t>((c & 0xf) << (j < 8 ? 0 : 4));
        q[8 + j % 4] |= static_cast<uint8_t>((c >> 4) << (2 * (j / 4)));
    }
}

int unpack_scale_q3_k(const uint8_t * q, int j) {
    const int low  = j < 8 ? (q[j] & 0xf) : (q[j - 8] >> 4);
    const int high = (q[8 + j % 4] >> (2 * (j / 4))) & 3;
    return (low | (high << 4)) - 32;
}

void dequantize_q3_k(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockQ3_K>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int e = 0; e < kQK_K; ++e) {
            const float dl   = d * static_cast<float>(unpack_scale_q3_k(b.scales, e / kSub));
            const bool  high = (b.hmask[e % 32] >> (e / 32)) & 1;
            y[i * kQK_K + e] = dl * static_cast<float>(unpack_2bit(b.qs, e) - (high ? 0 : 4));
        }
    }
}

// Recomputes the levels (0..7) from the stored scales, then splits them into hmask and the 2-bit qs.
void finish_q3_k(const float * x, BlockQ3_K & b, uint8_t * L) {
    const float d = fp16_to_fp32(b.d);
    for (int j = 0; j < kNSub; ++j) {
        const float dl = d * static_cast<float>(unpack_scale_q3_k(b.scales, j));
        if (dl == 0.0f) {
            continue;
        }
        for (int l = 0; l < kSub; ++l) {
            L[kSub * j + l] = static_cast<uint8_t>(std::clamp(round_nearest(x[kSub * j + l] / dl), -4, 3) + 4);
        }
    }
    std::fill(b.hmask, b.hmask + sizeof(b.hmask), uint8_t{0});
    for (int e = 0; e < kQK_K; ++e) {
        if (L[e] > 3) {
            b.hmask[e % 32] |= static_cast<uint8_t>(1u << (e / 32));
            L[e] = static_cast<uint8_t>(L[e] - 4);
        }
    }
    pack_2bit(L, b.qs);
}

void quantize_q3_k_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * xb = x + i * kQK_K;
        int8_t        Ls[kQK_K];
        uint8_t       L[kQK_K];
        float         scales[kNSub];
        float         max_scale = 0.0f, amax = 0.0f;
        for (int j = 0; j < kNSub; ++j) {
            scales[j] = fit_symmetric_refine(kSub, 4, xb + kSub * j, Ls + kSub * j);
            if (std::fabs(scales[j]) > amax) {
                amax      = std::fabs(scales[j]);
                max_scale = scales[j];
            }
        }
        std::copy(Ls, Ls + kQK_K, L);
        BlockQ3_K b{};
        if (max_scale != 0.0f) {
            const float iscale = -32.0f / max_scale;
            uint8_t     codes[kNSub];
            for (int j = 0; j < kNSub; ++j) {
                codes[j] = static_cast<uint8_t>(std::clamp(round_nearest(iscale * scales[j]), -32, 31) + 32);
            }
            pack_scales_q3_k(codes, b.scales);
            b.d = fp32_to_fp16(1.0f / iscale);
        }
        finish_q3_k(xb, b, L);
        store_block(y, i, b);
    }
}

void quantize_q3_k_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const float * xb     = x + i * kQK_K;
        const float   sigma2 = 2.0f * block_sum_squares(xb) / kQK_K;
        int8_t        Ls[kQK_K], Lscale[kNSub];
        uint8_t       L[kQK_K], codes[kNSub];
        float         scales[kNSub], sw[kNSub], weights[kSub];
        for (int j = 0; j < kNSub; ++j) {
            const float * xs = xb + kSub * j;
            sw[j]            = 0.0f;
            for (int l = 0; l < kSub; ++l) {
                weights[l] = imatrix[i * kQK_K + kSub * j + l] * std::sqrt(sigma2 + xs[l] * xs[l]);
                sw[j] += weights[l];
            }
            scales[j] = fit_symmetric(kSub, 4, xs, weights, Ls + kSub * j);
        }
        std::copy(Ls, Ls + kQK_K, L);
        BlockQ3_K   b{};
        const float d = fit_symmetric(kNSub, 32, scales, sw, Lscale);
        std::copy(Lscale, Lscale + kNSub, codes);
        pack_scales_q3_k(codes, b.scales);
        b.d = fp32_to_fp16(d);
        finish_q3_k(xb, b, L);
        store_block(y, i, b);
    }
}

size_t quantize_rows_q3_k(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK_K) * sizeof(BlockQ3_K);
    if (imatrix == nullptr) {
        quantize_q3_k_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_q3_k_weighted);
}

} // namespace

const Format kFormatQ2_K{GGML_TYPE_Q2_K, dequantize_q2_k, quantize_q2_k_ref, quantize_rows_q2_k, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ2_K, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ2_K, dmin), "dmin"}}};
const Format kFormatQ3_K{GGML_TYPE_Q3_K, dequantize_q3_k, quantize_q3_k_ref, quantize_rows_q3_k, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ3_K, d), "d"}, {}}};

} // namespace switchyard::quant
