// The legacy 32-element formats Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and Q8_1: dequantize, reference quantize (the
// formulas model files were made with: scale from the block's extreme value, levels rounded half up, or half
// away from zero for Q8), and the importance-matrix quantizers (weighted scale search per block, the weights being imatrix[i] *
// sqrt(sigma^2 + x[i]^2) with sigma^2 the row's mean square). Q8_0 / Q8_1 ignore the imatrix: at 8 bits the
// reference is already within a rounding step everywhere.
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/search.h"

#include "base/fp16.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace switchyard::quant {

namespace {

constexpr int kHalf = kQK32 / 2;

// Nibble pairs: qs[j] = L[j] | L[j + 16] << 4 (only the low 4 bits of each level).
void pack_nibbles(const uint8_t * L, uint8_t * qs) {
    for (int j = 0; j < kHalf; ++j) {
        qs[j] = static_cast<uint8_t>((L[j] & 0x0f) | ((L[j + kHalf] & 0x0f) << 4));
    }
}

// Bit 4 of each of the 32 levels, as the little-endian uint32 of Q5_0 / Q5_1.
void pack_fifth_bits(const uint8_t * L, uint8_t * qh) {
    uint32_t bits = 0;
    for (int j = 0; j < kQK32; ++j) {
        bits |= static_cast<uint32_t>((L[j] >> 4) & 1) << j;
    }
    for (int k = 0; k < 4; ++k) {
        qh[k] = static_cast<uint8_t>(bits >> (8 * k));
    }
}

// The 32 levels of a block stored as nibbles plus optional fifth bits.
void unpack_levels(const uint8_t * qs, const uint8_t * qh, int * q) {
    uint32_t high = 0;
    if (qh != nullptr) {
        high = static_cast<uint32_t>(qh[0]) | static_cast<uint32_t>(qh[1]) << 8 |
               static_cast<uint32_t>(qh[2]) << 16 | static_cast<uint32_t>(qh[3]) << 24;
    }
    for (int j = 0; j < kHalf; ++j) {
        q[j]         = (qs[j] & 0x0f) | static_cast<int>(((high >> j) & 1) << 4);
        q[j + kHalf] = (qs[j] >> 4) | static_cast<int>(((high >> (j + kHalf)) & 1) << 4);
    }
}

// Row weights for the imatrix quantizers: imatrix[i] * sqrt(sigma2 + x[i]^2), sigma2 = mean square of the row.
float row_mean_square(const float * x, int64_t n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        sum += x[i] * x[i];
    }
    return sum / static_cast<float>(n);
}

void block_weights(const float * x, const float * qw, float sigma2, float * w) {
    for (int j = 0; j < kQK32; ++j) {
        w[j] = qw[j] * std::sqrt(sigma2 + x[j] * x[j]);
    }
}

// ---- symmetric 4/5-bit (Q4_0, Q5_0) ----------------------------------------------------------------------

// Levels of the reference quantizer: d = max / -(2^(bits-1)), q = trunc(x / d + 2^(bits-1) + 0.5), capped.
template <int kBits>
float symmetric_ref_levels(const float * x, uint8_t * L) {
    constexpr int kOffset = 1 << (kBits - 1);
    constexpr int kTop    = (1 << kBits) - 1;
    float         amax = 0.0f, max = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max  = x[j];
        }
    }
    const float d  = max / -static_cast<float>(kOffset);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        const float v = x[j] * id + (static_cast<float>(kOffset) + 0.5f);
        L[j]          = static_cast<uint8_t>(clamp_finite(v, 0.0f, static_cast<float>(kTop))); // truncates
    }
    return d;
}

void dequantize_q4_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ4_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        int         q[kQK32];
        unpack_levels(b.qs, nullptr, q);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(q[j] - 8) * d;
        }
    }
}

void quantize_q4_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ4_0 b{};
        uint8_t   L[kQK32];
        b.d = fp32_to_fp16(symmetric_ref_levels<4>(x + i * kQK32, L));
        pack_nibbles(L, b.qs);
        store_block(y, i, b);
    }
}

void dequantize_q5_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ5_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        int         q[kQK32];
        unpack_levels(b.qs, b.qh, q);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(q[j] - 16) * d;
        }
    }
}

void quantize_q5_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ5_0 b{};
        uint8_t   L[kQK32];
        b.d = fp32_to_fp16(symmetric_ref_levels<5>(x + i * kQK32, L));
        pack_nibbles(L, b.qs);
        pack_fifth_bits(L, b.qh);
        store_block(y, i, b);
    }
}

// imatrix: weighted symmetric scale search per block, levels in [0, 2 * nmax).
template <typename Block, int kNmax>
void quantize_symmetric_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    const float sigma2 = row_mean_square(x, n);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        const float * xb = x + i * kQK32;
        float         w[kQK32];
        int8_t        Ls[kQK32];
        uint8_t       L[kQK32];
        block_weights(xb, imatrix + i * kQK32, sigma2, w);
        Block b{};
        b.d = fp32_to_fp16(fit_symmetric(kQK32, kNmax, xb, w, Ls));
        std::copy(Ls, Ls + kQK32, L);
        pack_nibbles(L, b.qs);
        if constexpr (kNmax == 16) {
            pack_fifth_bits(L, b.qh);
        }
        store_block(y, i, b);
    }
}

size_t quantize_rows_q4_0(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK32) * sizeof(BlockQ4_0);
    if (imatrix == nullptr) {
        quantize_q4_0_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_symmetric_weighted<BlockQ4_0, 8>);
}

size_t quantize_rows_q5_0(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK32) * sizeof(BlockQ5_0);
    if (imatrix == nullptr) {
        quantize_q5_0_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix,
                             quantize_symmetric_weighted<BlockQ5_0, 16>);
}

// ---- affine 4/5-bit (Q4_1, Q5_1) -------------------------------------------------------------------------

// Levels of the reference quantizer: d = (max - min) / (2^bits - 1), m = min, q = trunc((x - min) / d + 0.5).
template <int kBits>
void affine_ref_levels(const float * x, uint8_t * L, float & d, float & m) {
    constexpr int kTop = (1 << kBits) - 1;
    float         min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < kQK32; ++j) {
        min = std::min(min, x[j]);
        max = std::max(max, x[j]);
    }
    d              = (max - min) / static_cast<float>(kTop);
    m              = min;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        const float v = (x[j] - min) * id + 0.5f;
        L[j]          = static_cast<uint8_t>(clamp_finite(v, 0.0f, static_cast<float>(kTop))); // truncates
    }
}

void dequantize_q4_1(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ4_1>(x, i);
        const float d = fp16_to_fp32(b.d);
        const float m = fp16_to_fp32(b.m);
        int         q[kQK32];
        unpack_levels(b.qs, nullptr, q);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(q[j]) * d + m;
        }
    }
}

void quantize_q4_1_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ4_1 b{};
        uint8_t   L[kQK32];
        float     d = 0.0f, m = 0.0f;
        affine_ref_levels<4>(x + i * kQK32, L, d, m);
        b.d = fp32_to_fp16(d);
        b.m = fp32_to_fp16(m);
        pack_nibbles(L, b.qs);
        store_block(y, i, b);
    }
}

void dequantize_q5_1(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ5_1>(x, i);
        const float d = fp16_to_fp32(b.d);
        const float m = fp16_to_fp32(b.m);
        int         q[kQK32];
        unpack_levels(b.qs, b.qh, q);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(q[j]) * d + m;
        }
    }
}

void quantize_q5_1_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ5_1 b{};
        uint8_t   L[kQK32];
        float     d = 0.0f, m = 0.0f;
        affine_ref_levels<5>(x + i * kQK32, L, d, m);
        b.d = fp32_to_fp16(d);
        b.m = fp32_to_fp16(m);
        pack_nibbles(L, b.qs);
        pack_fifth_bits(L, b.qh);
        store_block(y, i, b);
    }
}

// imatrix: weighted affine search per block (scale and non-positive offset fitted together).
template <typename Block, int kNmax>
void quantize_affine_weighted(const float * x, void * y, int64_t n, const float * imatrix) {
    const float sigma2 = row_mean_square(x, n);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        const float * xb = x + i * kQK32;
        float         w[kQK32];
        uint8_t       L[kQK32];
        float         min = 0.0f;
        block_weights(xb, imatrix + i * kQK32, sigma2, w);
        const float d = fit_affine(kQK32, kNmax, xb, w, L, min, AffineSearch{-0.9f, 0.05f, 36, false});
        Block       b{};
        b.d = fp32_to_fp16(d);
        b.m = fp32_to_fp16(-min);
        pack_nibbles(L, b.qs);
        if constexpr (kNmax == 31) {
            pack_fifth_bits(L, b.qh);
        }
        store_block(y, i, b);
    }
}

size_t quantize_rows_q4_1(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK32) * sizeof(BlockQ4_1);
    if (imatrix == nullptr) {
        quantize_q4_1_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_affine_weighted<BlockQ4_1, 15>);
}

size_t quantize_rows_q5_1(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const size_t row_bytes = static_cast<size_t>(n_per_row / kQK32) * sizeof(BlockQ5_1);
    if (imatrix == nullptr) {
        quantize_q5_1_ref(src, dst, nrows * n_per_row);
        return static_cast<size_t>(nrows) * row_bytes;
    }
    return quantize_each_row(src, dst, nrows, n_per_row, row_bytes, imatrix, quantize_affine_weighted<BlockQ5_1, 31>);
}

// ---- 8-bit (Q8_0, Q8_1) ----------------------------------------------------------------------------------

// d = amax / 127, q = round(x / d) (half away from zero); returns d and writes the levels.
float q8_levels(const float * x, int8_t * qs) {
    float amax = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        amax = std::max(amax, std::fabs(x[j]));
    }
    const float d  = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        qs[j] = static_cast<int8_t>(clamp_finite(std::round(x[j] * id), -128.0f, 127.0f));
    }
    return d;
}

void dequantize_q8_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ8_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(b.qs[j]) * d;
        }
    }
}

void quantize_q8_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ8_0 b{};
        b.d = fp32_to_fp16(q8_levels(x + i * kQK32, b.qs));
        store_block(y, i, b);
    }
}

void dequantize_q8_1(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        const auto  b = load_block<BlockQ8_1>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < kQK32; ++j) {
            y[i * kQK32 + j] = static_cast<float>(b.qs[j]) * d;
        }
    }
}

void quantize_q8_1_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ8_1   b{};
        const float d   = q8_levels(x + i * kQK32, b.qs);
        int         sum = 0;
        for (int j = 0; j < kQK32; ++j) {
            sum += b.qs[j];
        }
        b.d = fp32_to_fp16(d);
        b.s = fp32_to_fp16(static_cast<float>(sum) * d);
        store_block(y, i, b);
    }
}

} // namespace

const Format kFormatQ4_0{GGML_TYPE_Q4_0, dequantize_q4_0, quantize_q4_0_ref, quantize_rows_q4_0, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ4_0, d), "d"}, {}}};
const Format kFormatQ4_1{GGML_TYPE_Q4_1, dequantize_q4_1, quantize_q4_1_ref, quantize_rows_q4_1, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ4_1, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ4_1, m), "m"}}};
const Format kFormatQ5_0{GGML_TYPE_Q5_0, dequantize_q5_0, quantize_q5_0_ref, quantize_rows_q5_0, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ5_0, d), "d"}, {}}};
const Format kFormatQ5_1{GGML_TYPE_Q5_1, dequantize_q5_1, quantize_q5_1_ref, quantize_rows_q5_1, true,
                         {{ScaleKind::kHalf, offsetof(BlockQ5_1, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ5_1, m), "m"}}};
const Format kFormatQ8_0{GGML_TYPE_Q8_0, dequantize_q8_0, quantize_q8_0_ref,
                         quantize_rows_by_ref<BlockQ8_0, quantize_q8_0_ref, kQK32>, false,
                         {{ScaleKind::kHalf, offsetof(BlockQ8_0, d), "d"}, {}}};
const Format kFormatQ8_1{GGML_TYPE_Q8_1, dequantize_q8_1, quantize_q8_1_ref,
                         quantize_rows_by_ref<BlockQ8_1, quantize_q8_1_ref, kQK32>, false,
                         {{ScaleKind::kHalf, offsetof(BlockQ8_1, d), "d"},
                          {ScaleKind::kHalf, offsetof(BlockQ8_1, s), "s"}}};

} // namespace switchyard::quant
