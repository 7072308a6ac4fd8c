// AVX-512 helpers the repacked layout's vector tile and expander share (tile_avx512vnni.cpp,
// expand_avx512vnni.cpp): included only by those files, inside their ISA flags.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace switchyard::cpu::repack {
namespace {

// every lane: the zero-masking forms of the conversions and broadcasts, because the plain ones trip GCC 12's
// -Wmaybe-uninitialized (they start from an undefined vector)
constexpr __mmask16 kAll = 0xffff;

// 16 f16 values / 16 unsigned bytes as floats.
inline __m512 halves_to_floats(const uint8_t * p) {
    return _mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}

inline __m512 bytes_to_floats(const uint8_t * p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepu8_epi32(kAll, bytes));
}

inline __m512 signed_bytes_to_floats(const uint8_t * p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepi8_epi32(kAll, bytes));
}

// The levels u = low | high << 4 (0..63) of group h (0, 1) of a q6_K pair of groups (format.h): quad i of the group
// is the low (h = 0) or high (h = 1) nibbles of nibble vector i with bits 2i, 2i + 1 of high-bit vector h on top.
template <int kHalf>
inline void q6_K_levels(const uint8_t * pair, __m512i * u) {
    const __m512i low4  = _mm512_set1_epi8(0x0f);
    const __m512i bits  = _mm512_set1_epi8(0x30);
    const __m512i highs = _mm512_loadu_si512(pair + (4 + kHalf) * 64);
    const __m512i hi[4] = {_mm512_slli_epi16(highs, 4), _mm512_slli_epi16(highs, 2), highs,
                           _mm512_srli_epi16(highs, 2)}; // quad i's two bits at bits 4, 5
    for (int i = 0; i < 4; ++i) {
        __m512i nib = _mm512_loadu_si512(pair + i * 64);
        if constexpr (kHalf == 1) {
            nib = _mm512_srli_epi16(nib, 4);
        }
        // (nib & 0x0f) | (hi & 0x30) as one ternary function of (nib, hi & 0x30, 0x0f): (a & c) | b = 0xEC
        u[i] = _mm512_ternarylogic_epi32(nib, _mm512_and_si512(hi[i], bits), low4, 0xEC);
    }
}

// q5_K's levels of nibble vector j of a group (format.h): quads j (low nibbles) and j + 4 (high ones), each with its
// fifth bit (bit j, j + 4 of the group's high vector `high`) on top as 0x10.
inline void fifth_bit_levels(__m512i v, __m512i high, int j, __m512i & lo, __m512i & hi) {
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    // bit j to bit 4: shift left by 4 - j; bit j + 4 is bit 4 after a right shift by j (16-bit shifts: the AND
    // drops what crosses bytes)
    const __m512i b_lo = _mm512_and_si512(_mm512_sll_epi16(high, _mm_cvtsi32_si128(4 - j)), bit4);
    const __m512i b_hi = _mm512_and_si512(_mm512_srl_epi16(high, _mm_cvtsi32_si128(j)), bit4);
    lo = _mm512_ternarylogic_epi32(v, b_lo, low4, 0xEC); // (a & c) | b, as q6_K_levels
    hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(v, 4), b_hi, low4, 0xEC);
}

// A value table's levels + 128 (iq4_nl's) in every 16-byte lane, for vpshufb and for vpermb (whose index bits 4
// and 5 then select equal lanes).
inline __m512i level_table_zmm(const int8_t * values) {
    alignas(16) int8_t t[16];
    for (int i = 0; i < 16; ++i) {
        t[i] = static_cast<int8_t>(values[i] + 128);
    }
    return _mm512_maskz_broadcast_i32x4(kAll, _mm_load_si128(reinterpret_cast<const __m128i *>(t)));
}

} // namespace
} // namespace switchyard::cpu::repack
