// MXFP4 (OCP microscaling FP4): 32-element blocks, one E8M0 exponent e, 4-bit E2M1 codes. Value =
// kMxfp4Values[code] * 2^(e - 128) (the table holds twice the E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6).
// The reference picks e from the block's largest magnitude so that it lands in the top binade of E2M1, and
// each value takes the nearest code. ggml_quantize_chunk also tries the exponents one below and one above
// and keeps the one with the smallest (importance-weighted) squared error.
#include "quant/blocks.h"
#include "quant/formats.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

// 2^(e - 128): E8M0 with the factor 1/2 that undoes the doubled table (subnormal floats for e = 0, 1).
float e8m0_half_scale(uint8_t e) {
    return std::ldexp(1.0f, static_cast<int>(e) - 128);
}

// The reference exponent: floor(log2(amax)) - 2 + 127, clamped to the valid range 0..254.
uint8_t reference_exponent(const float * x) {
    float amax = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        amax = std::max(amax, std::fabs(x[j]));
    }
    if (!(amax > 0.0f)) {
        return 0;
    }
    const float e = std::floor(std::log2(amax)) - 2.0f + 127.0f;
    return static_cast<uint8_t>(std::clamp(e, 0.0f, 254.0f));
}

void encode(const float * x, uint8_t e, BlockMXFP4 & b) {
    const float d = e8m0_half_scale(e);
    b.e           = e;
    for (int j = 0; j < kQK32 / 2; ++j) {
        b.qs[j] = static_cast<uint8_t>(nearest_fp4_code(x[j], d) | (nearest_fp4_code(x[j + kQK32 / 2], d) << 4));
    }
}

void decode(const BlockMXFP4 & b, float * y) {
    const float d = e8m0_half_scale(b.e);
    for (int j = 0; j < kQK32 / 2; ++j) {
        y[j]             = static_cast<float>(kMxfp4Values[b.qs[j] & 0xf]) * d;
        y[j + kQK32 / 2] = static_cast<float>(kMxfp4Values[b.qs[j] >> 4]) * d;
    }
}

void dequantize_mxfp4(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        decode(load_block<BlockMXFP4>(x, i), y + i * kQK32);
    }
}

void quantize_mxfp4_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockMXFP4 b{};
        encode(x + i * kQK32, reference_exponent(x + i * kQK32), b);
        store_block(y, i, b);
    }
}

float weighted_error(const float * x, const float * w, const BlockMXFP4 & b) {
    float y[kQK32];
    decode(b, y);
    float err = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        const float diff = x[j] - y[j];
        err += (w ? w[j] : 1.0f) * diff * diff;
    }
    return err;
}

// The reference exponent and its two neighbours; the smallest weighted error wins, the reference on ties.
BlockMXFP4 quantize_block_searched(const float * x, const float * w) {
    const uint8_t e0 = reference_exponent(x);
    BlockMXFP4    best{};
    encode(x, e0, best);
    float best_err = weighted_error(x, w, best);
    for (int e : {static_cast<int>(e0) - 1, static_cast<int>(e0) + 1}) {
        if (e < 0 || e > 254) {
            continue;
        }
        BlockMXFP4 b{};
        encode(x, static_cast<uint8_t>(e), b);
        const float err = weighted_error(x, w, b);
        if (err < best_err) {
            best     = b;
            best_err = err;
        }
    }
    return best;
}

size_t quantize_rows_mxfp4(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const int64_t nblocks = n_per_row / kQK32;
    for (int64_t r = 0; r < nrows; ++r) {
        for (int64_t i = 0; i < nblocks; ++i) {
            const float * w = imatrix ? imatrix + i * kQK32 : nullptr;
            store_block(dst, r * nblocks + i, quantize_block_searched(src + r * n_per_row + i * kQK32, w));
        }
    }
    return static_cast<size_t>(nrows * nblocks) * sizeof(BlockMXFP4);
}

} // namespace

const Format kFormatMXFP4{GGML_TYPE_MXFP4, dequantize_mxfp4, quantize_mxfp4_ref, quantize_rows_mxfp4, true,
                          {{ScaleKind::kE8M0, offsetof(BlockMXFP4, e), "e"}, {}}};

} // namespace switchyard::quant
