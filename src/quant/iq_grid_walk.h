// The block walks of the IQ grid formats' dequantizers, written once over the step that writes values: Put::
// signed_values(point, n, signs, scale, y) writes the n (8 or 4) grid bytes of point times scale, the sign bit of
// value j flipped where bit j of signs is set; Put::shifted(point, delta, dl, y) writes dl * (int8 grid byte +
// delta) for 8 values. The reference dequantizers (iq_grid_formats.cpp) instantiate them with scalar steps, the
// CPU's vector dequantizers (src/cpu/kernels/mul_mat/dequant_grids_avx512.cpp) with vector ones that perform the
// same float operations, so both give upstream's floats. The grids and the sign rule: iq_grids.h.
#pragma once

#include "quant/iq_blocks.h"
#include "quant/iq_grids.h"

#include "base/fp16.h"

#include <cstdint>
#include <cstring>

namespace switchyard::quant::iq_walk {

inline uint32_t read_u32(const uint8_t * p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// The scale of an IQ2 group from its 4-bit s: d * (s + 1/2) / 4.
inline float iq2_scale(float d, unsigned s) {
    return d * (0.5f + static_cast<float>(s)) * 0.25f;
}

template <class Put>
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
                Put::signed_values(kIq2xxsGrid[group[r]], 8, kEvenSigns[(w >> (7 * r)) & 127], dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

template <class Put>
void dequantize_iq2_xs(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ2_XS>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const float dl[2] = {iq2_scale(d, b.scales[g] & 0xfu), iq2_scale(d, b.scales[g] >> 4)};
            for (int r = 0; r < 4; ++r) {
                const uint16_t q = b.qs[4 * g + r];
                Put::signed_values(kIq2xsGrid[q & 511], 8, kEvenSigns[q >> 9], dl[r / 2], y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

template <class Put>
void dequantize_iq2_s(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockIQ2_S>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int g = 0; g < 8; ++g) {
            const float dl[2] = {iq2_scale(d, b.scales[g] & 0xfu), iq2_scale(d, b.scales[g] >> 4)};
            for (int r = 0; r < 4; ++r) {
                const unsigned index = b.qs[4 * g + r] | (((b.qh[g] >> (2 * r)) & 3u) << 8);
                Put::signed_values(kIq2sGrid[index], 8, b.qs[32 + 4 * g + r], dl[r / 2], y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

template <class Put>
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
                Put::signed_values(kIq3xxsGrid[b.qs[8 * g + 2 * r]], 4, signs, dl, out);
                Put::signed_values(kIq3xxsGrid[b.qs[8 * g + 2 * r + 1]], 4, signs >> 4, dl, out + 4);
            }
        }
        y += kQK_K;
    }
}

template <class Put>
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
                    Put::signed_values(kIq3sGrid[index], 4, signs >> (4 * h), dl, y + 32 * g + 4 * t);
                }
            }
        }
        y += kQK_K;
    }
}

// The scale of an IQ1 run from its 3-bit s: d * (2s + 1).
inline float iq1_scale(float d, unsigned s) {
    return d * static_cast<float>(2 * s + 1);
}

template <class Put>
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
                Put::shifted(kIq1sGrid[index], delta, dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

template <class Put>
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
                Put::shifted(kIq1sGrid[index], delta, dl, y + 32 * g + 8 * r);
            }
        }
        y += kQK_K;
    }
}

} // namespace switchyard::quant::iq_walk
