// The super-block layouts of the IQ grid formats (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M) and of
// the ternary TQ1_0: byte for byte upstream ggml's (ggml-common.h), sizes and offsets checked at compile time.
// Like blocks.h: `uint16_t` d fields are fp16, everything is little-endian, field names are upstream's.
//
// Every format holds 256 elements as 8 groups of 32 (g = i / 32), each group as 4 runs of 8 (r = (i % 32) / 8,
// element j = i % 8 of its run). A run is one grid point (iq_grids.h): grid byte j is the magnitude of element j
// (IQ3: two points of 4 per run, half h = j / 4), its sign comes from a mask whose bit j set means negative.
// "sign index" below is a 7-bit index into kEvenSigns. The dequantizers in iq_grid_formats.cpp and tq1_0.cpp
// are the executable definition.
#pragma once

#include "quant/blocks.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::quant {

// IQ2_XXS: group g is the 8 bytes qs[4g .. 4g + 3] (as bytes: 8g .. 8g + 7). Bytes 0..3: the kIq2xxsGrid index
// of run 0..3. Bytes 4..7, a uint32 w: bits 7r .. 7r + 6 the sign index of run r, bits 28..31 the scale s.
// value = d * (0.5 + s) / 4 * grid byte, signed.
struct BlockIQ2_XXS {
    static constexpr ggml_type kType = GGML_TYPE_IQ2_XXS;

    uint16_t d;
    uint16_t qs[kQK_K / 8];
};

// IQ2_XS: qs[4g + r] holds the kIq2xsGrid index of run r in its low 9 bits and its sign index in the top 7.
// scales[g]: the low nibble s scales runs 0 and 1, the high nibble runs 2 and 3; value as IQ2_XXS.
struct BlockIQ2_XS {
    static constexpr ggml_type kType = GGML_TYPE_IQ2_XS;

    uint16_t d;
    uint16_t qs[kQK_K / 8];
    uint8_t  scales[kQK_K / 32];
};

// IQ2_S: the kIq2sGrid index of run r of group g is qs[4g + r] | (bits 2r, 2r + 1 of qh[g]) << 8; its signs are
// the whole byte qs[32 + 4g + r] (no parity rule). scales and value as IQ2_XS.
struct BlockIQ2_S {
    static constexpr ggml_type kType = GGML_TYPE_IQ2_S;

    uint16_t d;
    uint8_t  qs[kQK_K / 4];
    uint8_t  qh[kQK_K / 32];
    uint8_t  scales[kQK_K / 32];
};

// IQ3_XXS: qs[8g + 2r + h] is the kIq3xxsGrid index of half h of run r. qs[64 + 4g .. 64 + 4g + 3], a uint32
// w: sign indices and scale s placed as in IQ2_XXS. value = d * (0.5 + s) / 2 * grid byte, signed.
struct BlockIQ3_XXS {
    static constexpr ggml_type kType = GGML_TYPE_IQ3_XXS;

    uint16_t d;
    uint8_t  qs[3 * kQK_K / 8];
};

// IQ3_S: the kIq3sGrid index of half h of run r of group g is qs[8g + 2r + h] | (bit 2r + h of qh[g]) << 8; the
// run's signs are the whole byte signs[4g + r]. scales[g / 2]: nibble g % 2 (low first) is s.
// value = d * (1 + 2s) * grid byte, signed.
struct BlockIQ3_S {
    static constexpr ggml_type kType = GGML_TYPE_IQ3_S;

    uint16_t d;
    uint8_t  qs[kQK_K / 4];
    uint8_t  qh[kQK_K / 32];
    uint8_t  signs[kQK_K / 8];
    uint8_t  scales[kQK_K / 64];
};

// IQ1_S: the kIq1sGrid index of run r of group g is qs[4g + r] | (bits 3r .. 3r + 2 of qh[g]) << 8; bits 12..14
// of qh[g] are the scale s, bit 15 the sign of the shift. value = d * (2s + 1) * (grid value +- kIq1Delta).
struct BlockIQ1_S {
    static constexpr ggml_type kType = GGML_TYPE_IQ1_S;

    uint16_t d;
    uint8_t  qs[kQK_K / 8];
    uint16_t qh[kQK_K / 32];
};

// IQ1_M: index of run r of group g = qs[4g + r] | (low 3 bits of nibble r % 2 of qh[2g + r / 2]) << 8, bit 3
// of that nibble the sign of the shift. scales is four uint16 words: word g / 2 holds the 3-bit scale of runs
// 0-1 of group g at bit 6 (g % 2) and that of runs 2-3 at bit 6 (g % 2) + 3; the top nibbles of words 0..3 are
// bits 0-3, 4-7, 8-11, 12-15 of the fp16 super-scale d. value as IQ1_S.
struct BlockIQ1_M {
    static constexpr ggml_type kType = GGML_TYPE_IQ1_M;

    uint8_t qs[kQK_K / 8];
    uint8_t qh[kQK_K / 16];
    uint8_t scales[kQK_K / 32];
};

// TQ1_0 (ternary): value = (t - 1) * d with t in {0, 1, 2}. Five trits per byte, written as the byte
// ceil(256 * T / 243) where T = t0 * 81 + t1 * 27 + t2 * 9 + t3 * 3 + t4 (so trit n is the top base-3 digit of
// the byte times 3^n, taken mod 256). qs[m], m < 32: trit n is element 32n + m; qs[32 + m], m < 16: element
// 160 + 16n + m. qh[m] keeps four trits (t4 = 0): trit n is element 240 + 4n + m.
struct BlockTQ1_0 {
    static constexpr ggml_type kType = GGML_TYPE_TQ1_0;

    uint8_t  qs[(kQK_K - 4 * kQK_K / 64) / 5];
    uint8_t  qh[kQK_K / 64];
    uint16_t d;
};

static_assert(sizeof(BlockIQ2_XXS) == 66 && offsetof(BlockIQ2_XXS, qs) == 2);
static_assert(sizeof(BlockIQ2_XS) == 74 && offsetof(BlockIQ2_XS, qs) == 2 && offsetof(BlockIQ2_XS, scales) == 66);
static_assert(sizeof(BlockIQ2_S) == 82 && offsetof(BlockIQ2_S, qs) == 2 && offsetof(BlockIQ2_S, qh) == 66 &&
              offsetof(BlockIQ2_S, scales) == 74);
static_assert(sizeof(BlockIQ3_XXS) == 98 && offsetof(BlockIQ3_XXS, qs) == 2);
static_assert(sizeof(BlockIQ3_S) == 110 && offsetof(BlockIQ3_S, qs) == 2 && offsetof(BlockIQ3_S, qh) == 66 &&
              offsetof(BlockIQ3_S, signs) == 74 && offsetof(BlockIQ3_S, scales) == 106);
static_assert(sizeof(BlockIQ1_S) == 50 && offsetof(BlockIQ1_S, qs) == 2 && offsetof(BlockIQ1_S, qh) == 34);
static_assert(sizeof(BlockIQ1_M) == 56 && offsetof(BlockIQ1_M, qh) == 32 && offsetof(BlockIQ1_M, scales) == 48);
static_assert(sizeof(BlockTQ1_0) == 54 && offsetof(BlockTQ1_0, qh) == 48 && offsetof(BlockTQ1_0, d) == 52);

} // namespace switchyard::quant
