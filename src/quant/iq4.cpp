// The formats on IQ4_NL's 16 non-uniform levels (kIq4nlValues). IQ4_NL: 32-element blocks with one fp16 scale;
// IQ4_XS: 256-element super-blocks with an fp16 scale and a 6-bit integer scale per 32 elements. The quantizers
// pick, for a candidate scale, the nearest table level per value, then refit the scale by weighted least
// squares; ggml_quantize_chunk tries 15 candidate scales per group (IQ4_NL's reference one, IQ4_XS's always 15).
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

// Index of the table level nearest to v; a value exactly between two levels takes the upper one. The table is
// sorted, so the index is the number of midpoints at or below v (compared as 2v against sums, exactly).
int nearest_level(float v) {
    const float v2  = v + v;
    int         idx = 0;
    for (int i = 1; i < 16; ++i) {
        idx += v2 >= static_cast<float>(kIq4nlValues[i - 1] + kIq4nlValues[i]) ? 1 : 0;
    }
    return idx;
}

struct Fit {
    float sumqx = 0.0f;
    float sumq2 = 0.0f;
};

Fit fit_for(const float * x, const float * w, float id, uint8_t * L) {
    Fit f;
    for (int j = 0; j < kQK32; ++j) {
        const int l = nearest_level(id * x[j]);
        if (L != nullptr) {
            L[j] = static_cast<uint8_t>(l);
        }
        const float q = static_cast<float>(kIq4nlValues[l]);
        f.sumqx += w[j] * q * x[j];
        f.sumq2 += w[j] * q * q;
    }
    return f;
}

// The weights of a group's values in the fit: the importance weights times sqrt(sigma2 + x^2) where given,
// else x^2 (sigma2: twice the mean square of the block the scale search covers).
void group_weights(const float * x, const float * qw, float sigma2, float * w) {
    for (int j = 0; j < kQK32; ++j) {
        w[j] = qw ? qw[j] * std::sqrt(sigma2 + x[j] * x[j]) : x[j] * x[j];
    }
}

float mean_square2(const float * x, int n) {
    float sigma2 = 0.0f;
    for (int j = 0; j < n; ++j) {
        sigma2 += x[j] * x[j];
    }
    return sigma2 * (2.0f / static_cast<float>(n));
}

// The scale of one group of 32 (0 for an all-zero group). ntry < 0: the reference (one candidate scale mapping
// the extreme value onto -127, refitted); ntry > 0: also the 2 * ntry + 1 scales mapping it onto -127 + t.
// L (may be null) gets the levels of the first candidate.
float search_group(const float * x, const float * w, int ntry, uint8_t * L) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max  = x[j];
        }
    }
    if (amax < kGroupMaxEps) {
        return 0.0f;
    }
    const float v0   = static_cast<float>(kIq4nlValues[0]);
    const Fit   f0   = fit_for(x, w, 1.0f / (ntry > 0 ? -max / v0 : max / v0), L);
    float       d    = f0.sumq2 > 0 ? f0.sumqx / f0.sumq2 : 0.0f;
    float       best = d * f0.sumqx;
    for (int t = -ntry; t <= ntry; ++t) {
        const Fit f = fit_for(x, w, (static_cast<float>(t) + v0) / max, nullptr);
        if (f.sumq2 > 0 && f.sumqx * f.sumqx > best * f.sumq2) {
            d    = f.sumqx / f.sumq2;
            best = d * f.sumqx;
        }
    }
    return d;
}

// One IQ4_NL block. qw: importance weights or null (then x^2); ntry as in search_group.
void quantize_block(const float * x, const float * qw, int ntry, BlockIQ4_NL & b) {
    float w[kQK32];
    group_weights(x, qw, mean_square2(x, kQK32), w);
    uint8_t     L[kQK32] = {};
    const float d        = search_group(x, w, ntry, L);
    b.d = fp32_to_fp16(d);
    if (ntry > 0) { // levels for the chosen scale
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int j = 0; j < kQK32; ++j) {
            L[j] = static_cast<uint8_t>(nearest_level(id * x[j]));
        }
    }
    for (int j = 0; j < kQK32 / 2; ++j) {
        b.qs[j] = static_cast<uint8_t>(L[j] | (L[j + kQK32 / 2] << 4));
    }
}

void dequantize_iq4_nl(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockIQ4_NL>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < kQK32 / 2; ++j) {
            y[i * kQK32 + j]             = d * static_cast<float>(kIq4nlValues[b.qs[j] & 0xf]);
            y[i * kQK32 + j + kQK32 / 2] = d * static_cast<float>(kIq4nlValues[b.qs[j] >> 4]);
        }
    }
}

void quantize_iq4_nl_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockIQ4_NL b{};
        quantize_block(x + i * kQK32, nullptr, -1, b);
        store_block(y, i, b);
    }
}

size_t quantize_rows_iq4_nl(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const int64_t nblocks = n_per_row / kQK32;
    for (int64_t r = 0; r < nrows; ++r) {
        for (int64_t i = 0; i < nblocks; ++i) {
            BlockIQ4_NL b{};
            quantize_block(src + r * n_per_row + i * kQK32, imatrix ? imatrix + i * kQK32 : nullptr, 7, b);
            store_block(dst, r * nblocks + i, b);
        }
    }
    return static_cast<size_t>(nrows * nblocks) * sizeof(BlockIQ4_NL);
}

// One IQ4_XS super-block: each group's scale searched as IQ4_NL's (7 tries each side, the weights' sigma2 over
// the super-block), then d = -(the scale of largest magnitude) / 32 and the groups' scales rounded to integers
// in [-32, 31] times d; each group's levels are then chosen for its rounded scale (computed from d in float, not
// from its fp16 rounding). An all-zero super-block gets d = -0.
void quantize_superblock(const float * x, const float * qw, BlockIQ4_XS & b) {
    constexpr int kGroups = kQK_K / kQK32;
    const float   sigma2  = mean_square2(x, kQK_K);
    float         scales[kGroups];
    float         amax_scale = 0.0f, max_scale = 0.0f;
    for (int g = 0; g < kGroups; ++g) {
        float w[kQK32];
        group_weights(x + g * kQK32, qw ? qw + g * kQK32 : nullptr, sigma2, w);
        scales[g] = search_group(x + g * kQK32, w, 7, nullptr);
        if (std::fabs(scales[g]) > amax_scale) {
            amax_scale = std::fabs(scales[g]);
            max_scale  = scales[g];
        }
    }
    const float d  = -max_scale / 32.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    b          = BlockIQ4_XS{};
    b.d        = fp32_to_fp16(d);
    for (int g = 0; g < kGroups; ++g) {
        const int   l   = std::clamp(round_nearest(id * scales[g]), -32, 31);
        const float dl  = d * static_cast<float>(l);
        const float idl = dl != 0.0f ? 1.0f / dl : 0.0f;
        const int   ls  = l + 32;
        b.scales_l[g / 2] |= static_cast<uint8_t>((ls & 0xf) << (4 * (g % 2)));
        b.scales_h |= static_cast<uint16_t>((ls >> 4) << (2 * g));
        const float * xg = x + g * kQK32;
        for (int j = 0; j < kQK32 / 2; ++j) {
            const int lo     = nearest_level(idl * xg[j]), hi = nearest_level(idl * xg[j + 16]);
            b.qs[16 * g + j] = static_cast<uint8_t>(lo | (hi << 4));
        }
    }
}

void dequantize_iq4_xs(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ4_XS>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < kQK_K / kQK32; ++g) {
            const float dl = d * static_cast<float>(iq4_xs_group_scale(b.scales_h, b.scales_l, g) - 32);
            float *     out = y + i * kQK_K + g * kQK32;
            for (int j = 0; j < kQK32 / 2; ++j) {
                out[j]      = dl * static_cast<float>(kIq4nlValues[b.qs[16 * g + j] & 0xf]);
                out[j + 16] = dl * static_cast<float>(kIq4nlValues[b.qs[16 * g + j] >> 4]);
            }
        }
    }
}

size_t quantize_rows_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const int64_t nblocks = n_per_row / kQK_K;
    for (int64_t r = 0; r < nrows; ++r) {
        for (int64_t i = 0; i < nblocks; ++i) {
            BlockIQ4_XS b;
            quantize_superblock(src + r * n_per_row + i * kQK_K, imatrix ? imatrix + i * kQK_K : nullptr, b);
            store_block(dst, r * nblocks + i, b);
        }
    }
    return static_cast<size_t>(nrows * nblocks) * sizeof(BlockIQ4_XS);
}

// The reference is the search without importance weights (upstream's quantize_row_iq4_xs_ref likewise).
void quantize_iq4_xs_ref(const float * x, void * y, int64_t k) { quantize_rows_iq4_xs(x, y, 1, k, nullptr); }

} // namespace

const Format kFormatIQ4_XS{GGML_TYPE_IQ4_XS, dequantize_iq4_xs, quantize_iq4_xs_ref, quantize_rows_iq4_xs, true,
                           {{ScaleKind::kHalf, offsetof(BlockIQ4_XS, d), "d"}, {}}};

const Format kFormatIQ4_NL{GGML_TYPE_IQ4_NL, dequantize_iq4_nl, quantize_iq4_nl_ref, quantize_rows_iq4_nl, true,
                           {{ScaleKind::kHalf, offsetof(BlockIQ4_NL, d), "d"}, {}}};

} // namespace switchyard::quant
