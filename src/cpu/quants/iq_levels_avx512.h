// One super-block of the i-quants whose levels come from grids (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s: decoded by
// grid_avx512.h; iq1_s, iq1_m: ternary_x86.h) as the integer GEMM takes it (gemm.h): the 256 biased levels
// u = v + 128 as four vectors of 64 in element order, and the float scale s of each of the form's groups, computed
// as the portable packer computes them (gemm.cpp, from grid_levels.h / ternary_levels.h). Shared by the GEMM's
// packer (gemm_pack_avx512vnni.cpp) and the repacked rows form's tile (repack/tile_rows_avx512vnni.cpp), both
// compiled with the AVX-512 VNNI level's flags; included only by them.
#pragma once

#include "cpu/quants/grid_avx512.h"
#include "cpu/quants/grid_levels.h"
#include "cpu/quants/ternary_x86.h"
#include "cpu/quants/type_rows.h"

#include "base/fp16.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {
namespace {

// Whether these functions have the block (the rows form's types).
template <class Block>
inline constexpr bool kIqLevels = kGridLevels<Block::kType> || kIq1<Block>;

// Block b's 256 levels, biased, into u[0..3].
template <class Block>
    requires kIqLevels<Block>
inline void iq_codes(const uint8_t * b, __m512i * u) {
    const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80)); // + 128 of a two's complement byte
    if constexpr (kIq1<Block>) { // 8 g + delta per element: the grid bytes, the shifts' signs as masks
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
            const __m512i g  = iq1_points<Block>(b, q);
            const __m512i g2 = _mm512_add_epi8(g, g), g4 = _mm512_add_epi8(g2, g2);
            const __m512i v  = _mm512_add_epi8(_mm512_add_epi8(g4, g4), _mm512_set1_epi8(1)); // 8 g + 1
            u[q] = _mm512_xor_si512(_mm512_mask_sub_epi8(v, iq1_negative_shifts<Block>(b, q), v, _mm512_set1_epi8(2)),
                                    sign); // 8 g - 1 where the shift is negative
        }
    } else { // the grid bytes with their signs
        __mmask64 negs[4];
        grid_codes<Block>(b, u, negs);
        for (int q = 0; q < 4; ++q) {
            u[q] = _mm512_xor_si512(_mm512_mask_sub_epi8(u[q], negs[q], _mm512_setzero_si512(), u[q]), sign);
        }
    }
}

// Block b's d as f16 bits, and the constant it is scaled by: group j's scale is d x (2 s_j + 1), d = the bits' value
// x the constant (iq_d).
template <class Block>
    requires kIqLevels<Block>
inline uint16_t iq_d_bits(const uint8_t * b) {
    if constexpr (kIq1<Block>) {
        return iq1_d_bits<Block>(b);
    } else {
        return grid_detail::u16_at(b);
    }
}

template <class Block>
    requires kIqLevels<Block>
constexpr float iq_d_constant() {
    if constexpr (kIq1<Block>) {
        return 0.125f;
    } else {
        return Grid<Block>::kConstant;
    }
}

template <class Block>
    requires kIqLevels<Block>
inline float iq_d(const uint8_t * b) {
    return fp16_to_fp32(iq_d_bits<Block>(b)) * iq_d_constant<Block>();
}

// Block b's s_j (0..15) as byte j, for its 8 groups of 32 or 16 groups of 16 (grid_levels.h: Grid::s of the group's
// first 16 elements, as Grid::scale_word holds them, whose loop the vectors below replace where it has one;
// ternary_levels.h: iq1_run's scale of its first run, before 2 s + 1).
template <class Block>
    requires kIqLevels<Block>
inline __m128i iq_group_s(const uint8_t * b) {
    const auto nibbles = [](__m128i x) { // bytes 2 i, 2 i + 1: the low and the high nibble of byte i
        const __m128i low4 = _mm_set1_epi8(0x0f);
        return _mm_unpacklo_epi8(_mm_and_si128(x, low4), _mm_and_si128(_mm_srli_epi16(x, 4), low4));
    };
    using quant::BlockIQ1_M, quant::BlockIQ1_S, quant::BlockIQ2_S, quant::BlockIQ2_XS, quant::BlockIQ2_XXS,
        quant::BlockIQ3_S, quant::BlockIQ3_XXS;
    if constexpr (std::is_same_v<Block, BlockIQ2_XXS>) { // the top nibble of each group's second word
        return _mm512_cvtepi64_epi8(_mm512_srli_epi64(_mm512_loadu_si512(b + 2), 60));
    } else if constexpr (std::is_same_v<Block, BlockIQ3_XXS>) { // the top nibble of each group's word
        return _mm256_cvtepi32_epi8(_mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 66)), 28));
    } else if constexpr (std::is_same_v<Block, BlockIQ3_S>) { // 8 nibbles at 106
        return nibbles(_mm_cvtsi32_si128(static_cast<int>(grid_detail::u32_at(b + 106))));
    } else if constexpr (std::is_same_v<Block, BlockIQ2_XS> || std::is_same_v<Block, BlockIQ2_S>) { // 16 nibbles
        return nibbles(_mm_cvtsi64_si128(static_cast<long long>(Grid<Block>::scale_word(b))));
    } else if constexpr (std::is_same_v<Block, BlockIQ1_S>) { // bits 12..14 of each group's qh word
        const __m128i qh = _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + offsetof(BlockIQ1_S, qh)));
        return _mm_packus_epi16(_mm_and_si128(_mm_srli_epi16(qh, 12), _mm_set1_epi16(7)), _mm_setzero_si128());
    } else { // iq1_m: 3 bits per 16 elements, four to a scale word (its top 4 bits are d's)
        uint64_t words;
        std::memcpy(&words, b + offsetof(BlockIQ1_M, scales), sizeof(words));
        const __m128i at = _mm_setr_epi8(0, 3, 6, 9, 16, 19, 22, 25, 32, 35, 38, 41, 48, 51, 54, 57);
        return _mm_and_si128(_mm_multishift_epi64_epi8(at, _mm_set1_epi64x(static_cast<long long>(words))),
                             _mm_set1_epi8(7));
    }
}

} // namespace
} // namespace switchyard::cpu::quants
