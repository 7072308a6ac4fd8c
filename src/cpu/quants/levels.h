// The weight formats as integer levels and scales, in portable code: what every matrix-vector kernel computes,
// written once. A 32-element block of the legacy formats (q4_0 .. q8_0, iq4_nl, mxfp4) is 32 signed levels v, a
// scale d and for q4_1 / q5_1 a min m (element = d * v + m). A K-quant super-block (256 elements) is 256 signed
// levels, a scale and a min per 16 elements, and the super-block factors d and dmin (element = d * scale * v -
// dmin * min). The scalar kernels (matvec_scalar.cpp) are built on these and are the reference the vector
// kernels are tested against; the vector kernels implement the same formulas with other instructions.
#pragma once

#include "cpu/quants/upstream_order.h"

#include "base/fp16.h"
#include "quant/blocks.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace switchyard::cpu::quants {

using quant::kQK32;
using quant::kQK_K;

// 2^(e - 128): an E8M0 exponent with MXFP4's factor 1/2 (the level table holds twice the E2M1 values).
inline float e8m0_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
    return bits_float(bits);
}

// ---- legacy 32-element blocks ------------------------------------------------------------------------------------

struct LegacyLevels {
    int8_t v[kQK32];
    float  d;
    float  m; // 0 for the formats without a min
};

// The 32 nibbles of a Q4_0-style qs (element j in the low nibble of qs[j], element j + 16 in the high one).
inline void nibbles(const uint8_t * qs, int8_t * v, int lo_offset) {
    for (int j = 0; j < kQK32 / 2; ++j) {
        v[j]             = static_cast<int8_t>((qs[j] & 0xf) - lo_offset);
        v[j + kQK32 / 2] = static_cast<int8_t>((qs[j] >> 4) - lo_offset);
    }
}

// Q5: bit j of the little-endian qh is element j's fifth bit.
inline void add_fifth_bits(const uint8_t * qh, int8_t * v) {
    uint32_t h;
    std::memcpy(&h, qh, sizeof(h));
    for (int j = 0; j < kQK32; ++j) {
        v[j] = static_cast<int8_t>(v[j] + static_cast<int>(((h >> j) & 1u) << 4));
    }
}

inline LegacyLevels levels(const quant::BlockQ4_0 & b) {
    LegacyLevels l;
    nibbles(b.qs, l.v, 8);
    l.d = fp16_to_fp32(b.d);
    l.m = 0.0f;
    return l;
}

inline LegacyLevels levels(const quant::BlockQ4_1 & b) {
    LegacyLevels l;
    nibbles(b.qs, l.v, 0);
    l.d = fp16_to_fp32(b.d);
    l.m = fp16_to_fp32(b.m);
    return l;
}

inline LegacyLevels levels(const quant::BlockQ5_0 & b) {
    LegacyLevels l;
    nibbles(b.qs, l.v, 16);
    add_fifth_bits(b.qh, l.v);
    l.d = fp16_to_fp32(b.d);
    l.m = 0.0f;
    return l;
}

inline LegacyLevels levels(const quant::BlockQ5_1 & b) {
    LegacyLevels l;
    nibbles(b.qs, l.v, 0);
    add_fifth_bits(b.qh, l.v);
    l.d = fp16_to_fp32(b.d);
    l.m = fp16_to_fp32(b.m);
    return l;
}

inline LegacyLevels levels(const quant::BlockQ8_0 & b) {
    LegacyLevels l;
    std::memcpy(l.v, b.qs, sizeof(l.v));
    l.d = fp16_to_fp32(b.d);
    l.m = 0.0f;
    return l;
}

template <const int8_t (&kTable)[16]>
LegacyLevels table_levels(const uint8_t * qs, float d) {
    LegacyLevels l;
    for (int j = 0; j < kQK32 / 2; ++j) {
        l.v[j]             = kTable[qs[j] & 0xf];
        l.v[j + kQK32 / 2] = kTable[qs[j] >> 4];
    }
    l.d = d;
    l.m = 0.0f;
    return l;
}

inline LegacyLevels levels(const quant::BlockIQ4_NL & b) {
    return table_levels<quant::kIq4nlValues>(b.qs, fp16_to_fp32(b.d));
}

inline LegacyLevels levels(const quant::BlockMXFP4 & b) {
    return table_levels<quant::kMxfp4Values>(b.qs, e8m0_half(b.e));
}

// ---- K-quant super-blocks ------------------------------------------------------------------------------------

struct KLevels {
    int8_t v[kQK_K];
    int8_t scale[kQK_K / 16]; // per 16 elements (6-bit formats repeat each scale for their two halves)
    int8_t min[kQK_K / 16];   // per 16 elements, 0 for the formats without mins
    float  d, dmin;
};

// Element i of a Q2_K / Q3_K super-block: 2 bits at qs[32 * (i / 128) + i % 32], shift 2 * ((i % 128) / 32).
inline int two_bits(const uint8_t * qs, int i) {
    return (qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
}

inline KLevels levels(const quant::BlockQ2_K & b) {
    KLevels l;
    for (int i = 0; i < kQK_K; ++i) {
        l.v[i] = static_cast<int8_t>(two_bits(b.qs, i));
    }
    for (int j = 0; j < kQK_K / 16; ++j) {
        l.scale[j] = static_cast<int8_t>(b.scales[j] & 0xf);
        l.min[j]   = static_cast<int8_t>(b.scales[j] >> 4);
    }
    l.d    = fp16_to_fp32(b.d);
    l.dmin = fp16_to_fp32(b.dmin);
    return l;
}

// The 12 packed scale bytes of q4_K / q5_K as the bytes of two words: the 8 six-bit scales, the 8 six-bit mins
// (the vector kernels' lanes of every level take them this way).
inline void unpack_k4(const uint8_t * packed, uint64_t * scales, uint64_t * mins) {
    uint32_t u[3];
    std::memcpy(u, packed, 12);
    constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
    const uint32_t     sc_hi = (u[2] & kLow4) | (((u[0] >> 6) & kLow2) << 4);
    const uint32_t     m_hi  = ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kLow2) << 4);
    *scales                  = (u[0] & kLow6) | (static_cast<uint64_t>(sc_hi) << 32);
    *mins                    = (u[1] & kLow6) | (static_cast<uint64_t>(m_hi) << 32);
}

// The 12 packed scale bytes of q3_K as 16 stored six-bit scales (value + 32), four to a word: scale j has its
// low 4 bits in byte j % 8 (the high nibble for j >= 8) and its high 2 bits in byte 8 + j % 4 at bit 2 (j / 4).
inline void unpack_q3_k_scales(const uint8_t * packed, uint32_t * words) {
    uint32_t a[3];
    std::memcpy(a, packed, 12);
    constexpr uint32_t kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
    words[0] = (a[0] & kLow4) | ((a[2] & kLow2) << 4);
    words[1] = (a[1] & kLow4) | (((a[2] >> 2) & kLow2) << 4);
    words[2] = ((a[0] >> 4) & kLow4) | (((a[2] >> 4) & kLow2) << 4);
    words[3] = ((a[1] >> 4) & kLow4) | (((a[2] >> 6) & kLow2) << 4);
}

inline KLevels levels(const quant::BlockQ3_K & b) {
    KLevels l;
    for (int i = 0; i < kQK_K; ++i) {
        const bool high = (b.hmask[i % 32] >> (i / 32)) & 1;
        l.v[i]          = static_cast<int8_t>(two_bits(b.qs, i) - (high ? 0 : 4));
    }
    for (int j = 0; j < kQK_K / 16; ++j) {
        const int low  = (b.scales[j % 8] >> (j < 8 ? 0 : 4)) & 0xf;
        const int high = (b.scales[8 + j % 4] >> (2 * (j / 4))) & 3;
        l.scale[j]     = static_cast<int8_t>((low | (high << 4)) - 32);
        l.min[j]       = 0;
    }
    l.d    = fp16_to_fp32(b.d);
    l.dmin = 0.0f;
    return l;
}

// Q4_K / Q5_K: the low 4 bits of element i at qs[32 * (i / 64) + i % 32], low nibble if (i % 64) < 32.
inline int k4_nibble(const uint8_t * qs, int i) {
    const uint8_t byte = qs[32 * (i / 64) + i % 32];
    return (i % 64) < 32 ? byte & 0xf : byte >> 4;
}

inline void k4_scales(const uint8_t * packed, KLevels & l) {
    for (int j = 0; j < 8; ++j) {
        uint8_t sc, m;
        quant::unpack_scale_min_k4(j, packed, sc, m);
        l.scale[2 * j] = l.scale[2 * j + 1] = static_cast<int8_t>(sc);
        l.min[2 * j] = l.min[2 * j + 1] = static_cast<int8_t>(m);
    }
}

inline KLevels levels(const quant::BlockQ4_K & b) {
    KLevels l;
    for (int i = 0; i < kQK_K; ++i) {
        l.v[i] = static_cast<int8_t>(k4_nibble(b.qs, i));
    }
    k4_scales(b.scales, l);
    l.d    = fp16_to_fp32(b.d);
    l.dmin = fp16_to_fp32(b.dmin);
    return l;
}

inline KLevels levels(const quant::BlockQ5_K & b) {
    KLevels l;
    for (int i = 0; i < kQK_K; ++i) {
        const int high = (b.qh[i % 32] >> (i / 32)) & 1;
        l.v[i]         = static_cast<int8_t>(k4_nibble(b.qs, i) | (high << 4));
    }
    k4_scales(b.scales, l);
    l.d    = fp16_to_fp32(b.d);
    l.dmin = fp16_to_fp32(b.dmin);
    return l;
}

inline KLevels levels(const quant::BlockQ6_K & b) {
    KLevels l;
    for (int i = 0; i < kQK_K; ++i) {
        const int h = i / 128, r = i % 128;
        const int low  = (b.ql[64 * h + r % 64] >> (r < 64 ? 0 : 4)) & 0xf;
        const int high = (b.qh[32 * h + r % 32] >> (2 * (r / 32))) & 3;
        l.v[i]         = static_cast<int8_t>((low | (high << 4)) - 32);
    }
    for (int j = 0; j < kQK_K / 16; ++j) {
        l.scale[j] = b.scales[j];
        l.min[j]   = 0;
    }
    l.d    = fp16_to_fp32(b.d);
    l.dmin = 0.0f;
    return l;
}

// IQ4_XS: byte g the 6-bit scale (unsigned, before its - 32) of sub-block g, from the block's bytes 2..7.
inline uint64_t iq4_xs_scale_bytes(const uint8_t * block) {
    uint16_t high;
    std::memcpy(&high, block + offsetof(quant::BlockIQ4_XS, scales_h), sizeof(high));
    uint64_t ls = 0;
    for (int g = 0; g < 8; ++g) {
        const int s = quant::iq4_xs_group_scale(high, block + offsetof(quant::BlockIQ4_XS, scales_l), g);
        ls |= static_cast<uint64_t>(s) << (8 * g);
    }
    return ls;
}

// IQ4_XS: IQ4_NL's table levels, signed 6-bit scales per 32 elements (kept per 16, twice).
inline KLevels levels(const quant::BlockIQ4_XS & b) {
    KLevels        l;
    const uint64_t ls = iq4_xs_scale_bytes(reinterpret_cast<const uint8_t *>(&b));
    for (int g = 0; g < kQK_K / kQK32; ++g) {
        for (int j = 0; j < kQK32 / 2; ++j) {
            l.v[32 * g + j]      = quant::kIq4nlValues[b.qs[16 * g + j] & 0xf];
            l.v[32 * g + j + 16] = quant::kIq4nlValues[b.qs[16 * g + j] >> 4];
        }
        l.scale[2 * g] = l.scale[2 * g + 1] = static_cast<int8_t>(static_cast<int>((ls >> (8 * g)) & 0xff) - 32);
        l.min[2 * g] = l.min[2 * g + 1] = 0;
    }
    l.d    = fp16_to_fp32(b.d);
    l.dmin = 0.0f;
    return l;
}

// Whether a kernel's format struct F has signed levels (kSigned: IQ4_XS) rather than unsigned codes: the x86 kernels
// then multiply the levels' magnitudes with the activations carrying the levels' signs, as upstream does.
template <class F>
constexpr bool signed_codes() {
    if constexpr (requires { F::kSigned; }) {
        return F::kSigned;
    } else {
        return false;
    }
}

// The min / offset term of each K-quant (upstream_order.h) and whether its lanes take the levels plus 32 (q6_K,
// whose offset goes through the bsums instead): the kernels written over KLevels (scalar, NEON) read it.
template <class Block>
inline constexpr MinTerm kMinTerm = MinTerm::kNone;
template <>
inline constexpr MinTerm kMinTerm<quant::BlockQ2_K> = MinTerm::kLanes;
template <>
inline constexpr MinTerm kMinTerm<quant::BlockQ4_K> = MinTerm::kQuads;
template <>
inline constexpr MinTerm kMinTerm<quant::BlockQ5_K> = MinTerm::kTotal;
template <>
inline constexpr MinTerm kMinTerm<quant::BlockQ6_K> = MinTerm::kSubtract;

// The formats with kSubtract: what their lanes add to the levels (q6_K's codes are v + 32, the trit formats' v + 1,
// ternary_levels.h), subtracted again through the bsums times the scale.
template <class Block>
inline constexpr int kCodeOffset = 0;
template <>
inline constexpr int kCodeOffset<quant::BlockQ6_K> = 32;

// The K-quants' min terms of one super-block as upstream_order.h defines them, for the kernels that compute the
// lanes their own way (scalar, NEON): mins_l = bsums[2 l] * f[2 l] + bsums[2 l + 1] * f[2 l + 1], f the per-16 mins
// or, for the kSubtract formats, kCodeOffset * scale.
template <class Block>
void kquant_mins(const KLevels & l, const int16_t * bsums, int32_t * mins) {
    for (int m = 0; m < 8; ++m) {
        mins[m] = 0;
        for (int j = 2 * m; j < 2 * m + 2; ++j) {
            mins[m] += bsums[j] * (kMinTerm<Block> == MinTerm::kSubtract ? kCodeOffset<Block> * l.scale[j] : l.min[j]);
        }
    }
}

// The min terms kept outside the eight lane accumulators: q4_K's four quads, q5_K's total; add() per super-block
// (dmin = -d_a * dmin_w), finish() onto the lanes' final sum. Nothing for the other formats.
template <class Block>
struct KMinSums {
    float quads[4] = {}, total = 0.0f;
    void  add(float dmin, const int32_t * mins) {
        if constexpr (kMinTerm<Block> == MinTerm::kQuads) {
            for (int j = 0; j < 4; ++j) {
                quads[j] = std::fma(dmin, static_cast<float>(mins[2 * j] + mins[2 * j + 1]), quads[j]);
            }
        }
        if constexpr (kMinTerm<Block> == MinTerm::kTotal) {
            const int32_t sum = mins[0] + mins[1] + mins[2] + mins[3] + mins[4] + mins[5] + mins[6] + mins[7];
            total             = std::fma(dmin, static_cast<float>(sum), total);
        }
    }
    float finish(float r) const {
        if constexpr (kMinTerm<Block> == MinTerm::kQuads) {
            return r + ((quads[0] + quads[2]) + (quads[1] + quads[3]));
        } else if constexpr (kMinTerm<Block> == MinTerm::kTotal) {
            return r + total;
        } else {
            return r;
        }
    }
};

} // namespace switchyard::cpu::quants
