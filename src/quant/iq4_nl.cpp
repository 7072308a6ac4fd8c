// IQ4_NL: 32-element blocks, one fp16 scale, 4-bit indices into a fixed non-uniform table of 16 levels
// (kIq4nlValues). The quantizer picks, for a candidate scale, the nearest table level per value, then refits
// the scale by weighted least squares; ggml_quantize_chunk tries 15 candidate scales, the reference one.
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

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

// One block. qw: importance weights or null (then x^2). ntry < 0: the reference (one candidate scale mapping
// the extreme value onto -127, refitted); ntry > 0: also the 2 * ntry + 1 scales mapping it onto -127 + t.
void quantize_block(const float * x, const float * qw, int ntry, BlockIQ4_NL & b) {
    float sigma2 = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        sigma2 += x[j] * x[j];
    }
    sigma2 *= 2.0f / kQK32;
    float w[kQK32];
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        w[j] = qw ? qw[j] * std::sqrt(sigma2 + x[j] * x[j]) : x[j] * x[j];
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max  = x[j];
        }
    }
    uint8_t L[kQK32] = {};
    float   d        = 0.0f;
    if (amax >= kGroupMaxEps) {
        const float v0   = static_cast<float>(kIq4nlValues[0]);
        const Fit   f0   = fit_for(x, w, 1.0f / (ntry > 0 ? -max / v0 : max / v0), L);
        d                = f0.sumq2 > 0 ? f0.sumqx / f0.sumq2 : 0.0f;
        float best       = d * f0.sumqx;
        for (int t = -ntry; t <= ntry; ++t) {
            const Fit f = fit_for(x, w, (static_cast<float>(t) + v0) / max, nullptr);
            if (f.sumq2 > 0 && f.sumqx * f.sumqx > best * f.sumq2) {
                d    = f.sumqx / f.sumq2;
                best = d * f.sumqx;
            }
        }
    }
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

} // namespace

const Format kFormatIQ4_NL{GGML_TYPE_IQ4_NL, dequantize_iq4_nl, quantize_iq4_nl_ref, quantize_rows_iq4_nl, true,
                           {{ScaleKind::kHalf, offsetof(BlockIQ4_NL, d), "d"}, {}}};

} // namespace switchyard::quant
