// The IQ grid formats with an integer form (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s) as K-quant levels (levels.h:
// KLevels), in portable code: a super-block is 256 signed levels (a grid byte with its sign), an integer scale per 16
// elements (2 s + 1 of the format's 4-bit s) and d. Upstream's x86 vec_dot multiplies exactly these: per super-block
// eight int32 lanes of grid byte x signed activation x (2 s + 1), one fma with d_w * d_a per lane, and at the end the
// lanes' sum times the format's constant (1/8 for the IQ2 formats, 1/4 for iq3_xxs, 1 for iq3_s). A power of two
// scales every float of that sum exactly, so here d carries the constant (d = f16 d x 1/8) and the kernels sum as
// for the K-quants (upstream_order.h) to upstream's bits.
//
// Each format is read through one struct (Grid<Block>), which the scalar levels below and the vector kernels
// (kquants_avx2.cpp, kquants_avx512vnni.cpp) share: run i (0..31: elements 8 i .. 8 i + 7) is point(b, i), 8 grid
// bytes (the IQ3 formats' two points of 4 in one word), its signs sign_byte(b, i) (bit j: element j negative), and
// s(b, j) the 4-bit s of the 16 elements 16 j ..; b is the block's bytes. scale_word(b): all s at once, the 16
// nibbles per 16 elements (low nibble first; kPer16) or 8 bytes per 32 elements. The vector kernels decode points
// and signs in vectors of their own (a vector per run's accessor would cost twice the time). Layouts and grids:
// quant/iq_blocks.h, quant/iq_grids.h.
#pragma once

#include "cpu/quants/levels.h"
#include "cpu/quants/ternary_levels.h"

#include "quant/iq_blocks.h"
#include "quant/iq_grids.h"

#include <cstddef>
#include <type_traits>

namespace switchyard::cpu::quants {

// The block struct of a grid format with an integer form, void for every other type (quant::BlockOf holds the
// formats of blocks.h).
template <ggml_type T>
using GridBlockOf = typename quant::FindBlock<T, quant::BlockIQ2_XXS, quant::BlockIQ2_XS, quant::BlockIQ2_S,
                                              quant::BlockIQ3_XXS, quant::BlockIQ3_S>::type;
template <ggml_type T>
inline constexpr bool kGridLevels = !std::is_void_v<GridBlockOf<T>>;

// The block struct whose levels (levels.h, the grid formats' below, ternary_levels.h) the CPU's kernels read for
// type T.
template <ggml_type T>
using LevelsBlockOf = std::conditional_t<kGridLevels<T>, GridBlockOf<T>,
                                         std::conditional_t<kTernaryLevels<T>, TernaryBlockOf<T>, quant::BlockOf<T>>>;

namespace grid_detail {

inline uint32_t u32_at(const uint8_t * p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

inline uint64_t u64_at(const uint8_t * p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// IQ2_XXS / IQ3_XXS: group g's word, kStride bytes apart from `words` on: the 7-bit kEvenSigns indices of its 4 runs at
// bits 7 r, its s in the top 4 bits.
template <int kStride>
inline uint32_t group_word(const uint8_t * words, int g) {
    return u32_at(words + kStride * g);
}

// The sign byte of run r (0..3) of a group from its word.
inline unsigned even_sign(uint32_t word, int r) { return quant::kEvenSigns[(word >> (7 * r)) & 127]; }

// The s of the 8 groups' words as the bytes of one word.
template <int kStride>
inline uint64_t top_nibbles(const uint8_t * words) {
    uint64_t s = 0;
    for (int g = 0; g < 8; ++g) {
        s |= static_cast<uint64_t>(group_word<kStride>(words, g) >> 28) << (8 * g);
    }
    return s;
}

// The sign bytes of a group's 4 runs (byte r: run r's) from its word.
inline uint32_t even_signs4(uint32_t w) {
    uint32_t signs = 0;
    for (int r = 0; r < 4; ++r) {
        signs |= static_cast<uint32_t>(even_sign(w, r)) << (8 * r);
    }
    return signs;
}

inline uint16_t u16_at(const uint8_t * p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

} // namespace grid_detail

template <class Block>
struct Grid;

// iq2_xxs: group g is 8 bytes at 2 + 8 g: 4 index bytes, then a word (sign indices, s).
template <>
struct Grid<quant::BlockIQ2_XXS> {
    static constexpr float kConstant = 0.125f;
    static uint64_t        point(const uint8_t * b, int run) {
        return quant::kIq2xxsGrid[b[2 + 8 * (run / 4) + run % 4]];
    }
    static unsigned sign_byte(const uint8_t * b, int run) {
        return grid_detail::even_sign(grid_detail::group_word<8>(b + 6, run / 4), run % 4);
    }
    static unsigned s(const uint8_t * b, int j) { return grid_detail::group_word<8>(b + 6, j / 2) >> 28; }
    static constexpr bool kPer16 = false;
    static uint64_t       scale_word(const uint8_t * b) { return grid_detail::top_nibbles<8>(b + 6); }
};

// iq2_xs: 32 words at 2 (a 9-bit index, a 7-bit sign index), s nibbles at 66.
template <>
struct Grid<quant::BlockIQ2_XS> {
    static constexpr float kConstant = 0.125f;
    static uint64_t        point(const uint8_t * b, int run) {
        return quant::kIq2xsGrid[grid_detail::u16_at(b + 2 + 2 * run) & 511];
    }
    static unsigned sign_byte(const uint8_t * b, int run) {
        return quant::kEvenSigns[grid_detail::u16_at(b + 2 + 2 * run) >> 9];
    }
    static unsigned s(const uint8_t * b, int j) { return (b[66 + j / 2] >> (4 * (j % 2))) & 0xfu; }
    static constexpr bool kPer16 = true;
    static uint64_t       scale_word(const uint8_t * b) { return grid_detail::u64_at(b + 66); }
};

// iq2_s: 32 index bytes at 2, 32 sign bytes at 34, the indices' high 2 bits in qh at 66, s nibbles at 74.
template <>
struct Grid<quant::BlockIQ2_S> {
    static constexpr float kConstant = 0.125f;
    static uint64_t        point(const uint8_t * b, int run) {
        return quant::kIq2sGrid[b[2 + run] | (((b[66 + run / 4] >> (2 * (run % 4))) & 3u) << 8)];
    }
    static unsigned sign_byte(const uint8_t * b, int run) { return b[34 + run]; }
    static unsigned s(const uint8_t * b, int j) { return (b[74 + j / 2] >> (4 * (j % 2))) & 0xfu; }
    static constexpr bool kPer16 = true;
    static uint64_t       scale_word(const uint8_t * b) { return grid_detail::u64_at(b + 74); }
};

// iq3_xxs: 64 index bytes at 2 (4-byte points, two a run), then per group a word at 66 as iq2_xxs's.
template <>
struct Grid<quant::BlockIQ3_XXS> {
    static constexpr float kConstant = 0.25f;
    static uint64_t        point(const uint8_t * b, int run) {
        return quant::kIq3xxsGrid[b[2 + 2 * run]] | static_cast<uint64_t>(quant::kIq3xxsGrid[b[3 + 2 * run]]) << 32;
    }
    static unsigned sign_byte(const uint8_t * b, int run) {
        return grid_detail::even_sign(grid_detail::group_word<4>(b + 66, run / 4), run % 4);
    }
    static unsigned s(const uint8_t * b, int j) { return grid_detail::group_word<4>(b + 66, j / 2) >> 28; }
    static constexpr bool kPer16 = false;
    static uint64_t       scale_word(const uint8_t * b) { return grid_detail::top_nibbles<4>(b + 66); }
};

// iq3_s: 64 index bytes at 2 (4-byte points), their ninth bits in qh at 66, sign bytes at 74, s nibbles (per 32)
// at 106.
template <>
struct Grid<quant::BlockIQ3_S> {
    static constexpr float kConstant = 1.0f;
    static uint64_t        point(const uint8_t * b, int run) {
        const unsigned qh = b[66 + run / 4] >> (2 * (run % 4)); // bits of halves 2 (run % 4), + 1
        return quant::kIq3sGrid[b[2 + 2 * run] | ((qh & 1u) << 8)] |
               static_cast<uint64_t>(quant::kIq3sGrid[b[3 + 2 * run] | ((qh & 2u) << 7)]) << 32;
    }
    static unsigned sign_byte(const uint8_t * b, int run) { return b[74 + run]; }
    static unsigned s(const uint8_t * b, int j) { return (b[106 + j / 4] >> (4 * (j / 2 % 2))) & 0xfu; }
    static constexpr bool kPer16 = false;
    static uint64_t       scale_word(const uint8_t * b) {
        uint64_t w = 0;
        for (int g = 0; g < 8; ++g) {
            w |= static_cast<uint64_t>(s(b, 2 * g)) << (8 * g);
        }
        return w;
    }
};

// The levels of a grid super-block (the reference the vector kernels are tested against, with the tests' own).
template <class Block>
    requires requires { Grid<Block>::kConstant; }
inline KLevels levels(const Block & blk) {
    using G = Grid<Block>;
    uint8_t b[sizeof(Block)];
    std::memcpy(b, &blk, sizeof(b));
    KLevels l{};
    for (int run = 0; run < kQK_K / 8; ++run) {
        const uint64_t point = G::point(b, run);
        const unsigned signs = G::sign_byte(b, run);
        for (int j = 0; j < 8; ++j) {
            const int m      = static_cast<int>((point >> (8 * j)) & 0xffu);
            l.v[8 * run + j] = static_cast<int8_t>((signs >> j) & 1u ? -m : m);
        }
    }
    for (int j = 0; j < kQK_K / 16; ++j) {
        l.scale[j] = static_cast<int8_t>(2 * G::s(b, j) + 1);
    }
    l.d = fp16_to_fp32(grid_detail::u16_at(b)) * G::kConstant;
    return l;
}

} // namespace switchyard::cpu::quants
