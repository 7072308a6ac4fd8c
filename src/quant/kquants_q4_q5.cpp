// Q4_K and Q5_K: 256-element super-blocks of 8 sub-blocks of 32 with an affine map each (value = d * scale * q
// - dmin * min), 4-bit or 5-bit levels. Per sub-block the scale and min are searched together (weighted
// least squares over a range of candidate scales), then scales and mins are quantized to 6 bits against the
// super-block's d and dmin, and the levels are recomputed from the stored values.
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

constexpr int kSub  = 32;
constexpr int kNSub = kQK_K / kSub;

// The 256 levels in 4 bits: element i in qs[32 * (i / 64) + i % 32], low nibble when (i % 64) < 32.
int unpack_low4(const uint8_t * qs, int i) {
    const uint8_t byte = qs[32 * (i / 64) + i % 32];
    return (i % 64) < 32 ? (byte & 0xf) : (byte >> 4);
}

void pack_low4(const uint8_t * L, uint8_t * qs) {
    for (int h = 0; h < kQK_K; h += 64) {
        for (int l = 0; l < 32; ++l) {
            qs[h / 2 + l] = static_cast<uint8_t>((L[h + l] & 0xf) | ((L[h + l + 32] & 0xf) << 4));
        }
    }
}

// Bit 4 of element i lives in qh[i % 32] at bit i / 32.
void pack_fifth_bits(const uint8_t * L, uint8_t * qh) {
    std::fill(qh, qh + 32, uint8_t{0});
    for (int e = 0; e < kQK_K; ++e) {
        qh[e % 32] |= static_cast<uint8_t>(((L[e] >> 4) & 1) << (e / 32));
    }
}

template <typename Block>
void dequantize_k4(const void * x, float * y, int64_t k) {
    constexpr bool kFiveBits = sizeof(Block) == sizeof(BlockQ5_K);
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b    = load_block<Block>(x, i);
        const float d    = fp16_to_fp32(b.d);
        const float dmin = fp16_to_fp32(b.dmin);
        for (int j = 0; j < kNSub; ++j) {
            uint8_t sc = 0, m = 0;
            unpack_scale_min_k4(j, b.scales, sc, m);
            const float dl = d * static_cast<float>(sc);
            const float ml = dmin * static_cast<float>(m);
            for (int l = 0; l < kSub; ++l) {
                const int e = kSub * j + l;
                int       q = unpack_low4(b.qs, e);
                if constexpr (kFiveBits) {
                    q += ((b.qh[e % 32] >> (e / 32)) & 1) << 4;
                }
                y[i * kQK_K + e] = dl * static_cast<float>(q) - ml;
            }
        }
    }
}

// Levels from the stored d, dmin and 6-bit scales/mins; sub-blocks with a zero scale keep the searched levels.
template <typename Block, int kNmax>
void requantize_k4(const float * x, const Block & b, uint8_t * L) {
    const float d    = fp16_to_fp32(b.d);
    const float dmin = fp16_to_fp32(b.dmin);
    for (int j = 0; j < kNSub; ++j) {
        uint8_t sc = 0, m = 0;
        unpack_scale_min_k4(j, b.scales, sc, m);
        const float dl = d * static_cast<float>(sc);
        if (dl == 0.0f) {
            continue;
        }
        const float ml = dmin * static_cast<float>(m);
        for (int l = 0; l < kSub; ++l) {
            const int q     = round_nearest((x[kSub * j + l] + ml) / dl);
            L[kSub * j + l] = static_cast<uint8_t>(std::clamp(q, 0, kNmax));
        }
    }
}

template <typename Block, int kNmax>
void store_levels_k4(const float * x, Block & b, uint8_t * L) {
    requantize_k4<Block, kNmax>(x, b, L);
    if constexpr (kNmax == 31) {
        pack_fifth_bits(L, b.qh);
    }
    pack_low4(L, b.qs);
}

// Reference: per sub-block weights sqrt(mean square) + |x|, scales and mins quantized against their maxima.
template <typename Block, int kNmax>
void quantize_k4_ref(const float * x, void * y, int64_t k) {
    const AffineSearch search =
        kNmax == 15 ? AffineSearch{-1.0f, 0.1f, 20, false} : AffineSearch{-0.5f, 0.1f, 15, false};
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * xb = x + i * kQK_K;
        uint8_t       L[kQK_K];
        float         scales[kNSub], mins[kNSub], weights[kSub];
        float         max_scale = 0.0f, max_min = 0.0f;
        for (int j = 0; j < kNSub; ++j) {
            const float * xs     = xb + kSub * j;
            float         sum_x2 = 0.0f;
            for (int l = 0; l < kSub; ++l) {
                sum_x2 += xs[l] * xs[l];
            }
            const float av_x = std::sqrt(sum_x2 / kSub);
            for (int l = 0; l < kSub; ++l) {
                weights[l] = av_x + std::fabs(xs[l]);
            }
            scales[j] = fit_affine(kSub, kNmax, xs, weights, L + kSub * j, mins[j], search);
            max_scale = std::max(max_scale, scales[j]);
            max_min   = std::max(max_min, mins[j]);
        }
        const float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f;
        const float inv_min   = max_min > 0 ? 63.0f / max_min : 0.0f;
        uint8_t     ls[kNSub], lm[kNSub];
        for (int j = 0; j < kNSub; ++j) {
            ls[j] = static_cast<uint8_t>(std::clamp(round_nearest(inv_scale * scales[j]), 0, 63));
            lm[j] = static_cast<uint8_t>(std::clamp(round_nearest(inv_min * mins[j]), 0, 63));
        }
        Block b{};
        pack_scales_mins_k4(ls, lm, b.scales);
        b.d    = fp32_to_fp16(max_scale / 63.0f);
        b.dmin = fp32_to_fp16(max_min / 63.0f);
        store_levels_k4<Block, kNmax>(xb, b, L);
        store_block(y, i, b);
    }
}

// imatrix: weights imatrix * sqrt(sigma^2 + x^2), wider search, and the 6-bit scales/mins fitted with the
// sub-blocks' total weights.
template <typename Block, int kNmax>
void quantize_k4_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const float * xb     = x + i * kQK_K;
        float         sum_x2 = 0.0f;
        for (int l = 0; l < kQK_K; ++l) {
            sum_x2 += xb[l] * xb[l];
        }
        const float sigma2 = 2.0f * sum_x2 / kQK_K;
        uint8_t     L[kQK_K], ls[kNSub], lm[kNSub];
        float       scales[kNSub], mins[kNSub], sw[kNSub], weights[kSub];
        for (int j = 0; j < kNSub; ++j) {
            const float * xs = xb + kSub * j;
            sw[j]            = 0.0f;
            for (int l = 0; l < kSub; ++l) {
                weights[l] = imatrix[i * kQK_K + kSub * j + l] * std::sqrt(sigma2 + xs[l] * xs[l]);
                sw[j] += weights[l];
            }
            scales[j] = fit_affine(kSub, kNmax, xs, weights, L + kSub * j, mins[j],
                                   AffineSearch{-0.9f, 0.05f, 36, false});
        }
        Block b{};
        b.d    = fp32_to_fp16(fit_unsigned(kNSub, 63, scales, sw, ls));
        b.dmin = fp32_to_fp16(fit_unsigned(kNSub, 63, mins, sw, lm));
        pack_scales_mins_k4(ls, lm, b.scales);
        store_levels_k4<Block, kNmax>(xb, b, L);
        store_block(y, i, b);
    }
}

template <typename Block, int kNmax>
size_t quantize_rows_k4(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK_K) * sizeof(Block);
    if (imatrix == nullptr) {
        quantize_k4_ref<Block, kNmax>(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_k4_weighted<Block, kNmax>);
}

} // namespace

const Format kFormatQ4_K{GGML_TYPE_Q4_K, dequantize_k4<BlockQ4_K>, quantize_k4_ref<BlockQ4_K, 15>,
                         quantize_rows_k4<BlockQ4_K, 15>, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ4_K, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ4_K, dmin), "dmin"}}};
const Format kFormatQ5_K{GGML_TYPE_Q5_K, dequantize_k4<BlockQ5_K>, quantize_k4_ref<BlockQ5_K, 31>,
                         quantize_rows_k4<BlockQ5_K, 31>, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ5_K, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ5_K, dmin), "dmin"}}};

} // namespace switchyard::quant
