// The IQ grid formats (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M): reference dequantizers, giving
// upstream's floats bit for bit, and the Format objects. There is no quantizer here: upstream quantizes these
// formats only with an importance-matrix search over the grid, so from_float_ref and quantize_rows stay null.
// Layouts: iq_blocks.h; grids and the sign rule: iq_grids.h.
//
// The arithmetic follows the format's definition in the order upstream evaluates it (group scale first, then
// times the grid value, then the sign), so the results are identical, not merely close.
#include "quant/iq_blocks.h"
#include "quant/iq_grids.h"

#include "base/fp16.h"

#include <bit>
#include <cstring>

namespace switchyard::quant {

namespace {

uint32_t read_u32(const uint8_t * p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// Byte j of a grid entry.
uint8_t grid_byte(uint64_t point, int j) {
    return static_cast<uint8_t>(point >> (8 * j));
}

// n values (8 for a 64-bit grid entry, 4 for a 32-bit one): scale * magnitude, negated where `signs` says.
// The signs of the second half of an IQ3 run are bits 4..7: callers pass signs >> 4 for it. Negating (rather
// than multiplying by -1, which may keep a NaN's sign) flips the sign bit of a NaN from a NaN d too, as
// upstream's optimised build does, so even those blocks agree bit for bit at every optimisation level. The flip
// is an XOR of the sign bit, not a branch: random signs would mispredict half the time (a branch per element made
// the grid formats' MUL_MAT about 10 times slower).
void put_signed(uint64_t point, int n, unsigned signs, float scale, float * y) {
    for (int j = 0; j < n; ++j) {
        const float v = scale * static_cast<float>(grid_byte(point, j));
        y[j]          = std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ (((signs >> j) & 1u) << 31));
    }
}

// The scale of an IQ2 group from its 4-bit s: d * (s + 1/2) / 4.
float iq2_scale(float d, unsigned s) {
    return d * (0.5f + static_cast<float>(s)) * 0.25f;
}

void dequantize_iq2_xxs(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ2_XXS>(x, i);
        const float d = fp16_to_fp32(b.d);
        uint8_t     bytes[sizeof(b.qs)];
        std::memcpy(bytes, b.qs, sizeof(bytes));
        for (int g = 0; g < 8; ++g) {
            const uint8_t * group = bytes + 8 * g;
            const uint32_t  w     = read_u32(group + 4);
            const float     dl    = iq2_scale(d, w >> 28);
            for (int r = 0; r < 4; ++r) {
                put_signed(kIq2xxsGrid[group[r]], 8, kEvenSigns[(w >> (7 * r)) & 127], dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

void dequantize_iq2_xs(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ2_XS>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const float dl[2] = {iq2_scale(d, b.scales[g] & 0xfu), iq2_scale(d, b.scales[g] >> 4)};
            for (int r = 0; r < 4; ++r) {
                const uint16_t q = b.qs[4 * g + r];
                put_signed(kIq2xsGrid[q & 511], 8, kEvenSigns[q >> 9], dl[r / 2], y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

void dequantize_iq2_s(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ2_S>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const float dl[2] = {iq2_scale(d, b.scales[g] & 0xfu), iq2_scale(d, b.scales[g] >> 4)};
            for (int r = 0; r < 4; ++r) {
                const unsigned index = b.qs[4 * g + r] | (((b.qh[g] >> (2 * r)) & 3u) << 8);
                put_signed(kIq2sGrid[index], 8, b.qs[32 + 4 * g + r], dl[r / 2], y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

void dequantize_iq3_xxs(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ3_XXS>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const uint32_t w  = read_u32(b.qs + 64 + 4 * g);
            const float    dl = d * (0.5f + static_cast<float>(w >> 28)) * 0.5f;
            for (int r = 0; r < 4; ++r) {
                const unsigned signs = kEvenSigns[(w >> (7 * r)) & 127];
                float *        out   = y + 32 * g + 8 * r;
                put_signed(kIq3xxsGrid[b.qs[8 * g + 2 * r]], 4, signs, dl, out);
                put_signed(kIq3xxsGrid[b.qs[8 * g + 2 * r + 1]], 4, signs >> 4, dl, out + 4);
            }
        }
        y += kQK_K;
    }
}

void dequantize_iq3_s(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ3_S>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const unsigned s  = (b.scales[g / 2] >> (4 * (g % 2))) & 0xfu;
            const float    dl = d * static_cast<float>(1 + 2 * s);
            for (int r = 0; r < 4; ++r) {
                const unsigned signs = b.signs[4 * g + r];
                for (int h = 0; h < 2; ++h) {
                    const int      t     = 2 * r + h; // the half's position in the group
                    const unsigned index = b.qs[8 * g + t] | (((b.qh[g] >> t) & 1u) << 8);
                    put_signed(kIq3sGrid[index], 4, signs >> (4 * h), dl, y + 32 * g + 4 * t);
                }
            }
        }
        y += kQK_K;
    }
}

// IQ1: 8 values dl * (grid value + delta), the grid bytes read as int8.
void put_shifted(uint64_t point, float delta, float dl, float * y) {
    for (int j = 0; j < 8; ++j) {
        y[j] = dl * (static_cast<float>(static_cast<int8_t>(grid_byte(point, j))) + delta);
    }
}

// The scale of an IQ1 run from its 3-bit s: d * (2s + 1).
float iq1_scale(float d, unsigned s) {
    return d * static_cast<float>(2 * s + 1);
}

void dequantize_iq1_s(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ1_S>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const unsigned qh    = b.qh[g];
            const float    dl    = iq1_scale(d, (qh >> 12) & 7u);
            const float    delta = qh & 0x8000u ? -kIq1Delta : kIq1Delta;
            for (int r = 0; r < 4; ++r) {
                const unsigned index = b.qs[4 * g + r] | (((qh >> (3 * r)) & 7u) << 8);
                put_shifted(kIq1sGrid[index], delta, dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

void dequantize_iq1_m(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto b = load_block<BlockIQ1_M>(x, i);
        uint16_t   sc[4];
        std::memcpy(sc, b.scales, sizeof(sc));
        // the super-scale's four nibbles are the top nibbles of the words, lowest nibble in word 0
        const auto  d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 12) << 4) | ((sc[2] >> 12) << 8) |
                                                   ((sc[3] >> 12) << 12));
        const float d      = fp16_to_fp32(d_bits);
        for (int g = 0; g < 8; ++g) {
            const unsigned word = sc[g / 2] >> (6 * (g % 2));
            for (int r = 0; r < 4; ++r) {
                const unsigned nibble = (b.qh[2 * g + r / 2] >> (4 * (r % 2))) & 0xfu;
                const unsigned index  = b.qs[4 * g + r] | ((nibble & 7u) << 8);
                const float    delta  = nibble & 8u ? -kIq1Delta : kIq1Delta;
                const float    dl     = iq1_scale(d, (word >> (3 * (r / 2))) & 7u);
                put_shifted(kIq1sGrid[index], delta, dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

} // namespace

// The d field each block starts with (IQ1_M has none: validate.cpp assembles its scale from the nibbles).
const Format kFormatIQ2_XXS{GGML_TYPE_IQ2_XXS, dequantize_iq2_xxs, nullptr, nullptr, false,
                            {{ScaleKind::kHalf, offsetof(BlockIQ2_XXS, d), "d"}, {}}};
const Format kFormatIQ2_XS{GGML_TYPE_IQ2_XS, dequantize_iq2_xs, nullptr, nullptr, false,
                           {{ScaleKind::kHalf, offsetof(BlockIQ2_XS, d), "d"}, {}}};
const Format kFormatIQ2_S{GGML_TYPE_IQ2_S, dequantize_iq2_s, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ2_S, d), "d"}, {}}};
const Format kFormatIQ3_XXS{GGML_TYPE_IQ3_XXS, dequantize_iq3_xxs, nullptr, nullptr, false,
                            {{ScaleKind::kHalf, offsetof(BlockIQ3_XXS, d), "d"}, {}}};
const Format kFormatIQ3_S{GGML_TYPE_IQ3_S, dequantize_iq3_s, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ3_S, d), "d"}, {}}};
const Format kFormatIQ1_S{GGML_TYPE_IQ1_S, dequantize_iq1_s, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ1_S, d), "d"}, {}}};
const Format kFormatIQ1_M{GGML_TYPE_IQ1_M, dequantize_iq1_m, nullptr, nullptr, false, {}};

} // namespace switchyard::quant
