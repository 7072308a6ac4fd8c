// The x86 helpers that spread a K-quant form's sub-block scales over the 16 per-16 int16 lanes the matrix-vector
// kernels scale by (and the Scales they hold them in), shared by the AVX2 and AVX-512 VNNI kernels (kquants_avx2.cpp,
// kquants_avx512vnni.cpp). In an unnamed namespace, as upstream_sums_x86.h: each ISA's file compiles its own copy
// with its own flags.
#pragma once

#if defined(__x86_64__)

#include "cpu/simd/intrinsics.h"

#include <cstdint>

namespace switchyard::cpu::quants {
namespace {

// Per super-block values a format decodes once, in registers: the 16 sub-block scales (int16, per 16 elements), the
// 16 factors of the bsums term (mins, q6_K's 32 * scale, iq1_s's (2 s + 1) * delta; unused where the format has
// no such term), d and the bsums term's factor (-dmin; q3_K / q6_K: -d, unused; iq1: d / 8).
struct Scales {
    __m256i scale, factor;
    float   d, bsum_d;
};

// 8 per-32 int16 values as 16 per-16 int16 (each twice).
inline __m256i per16_twice(__m128i x) {
    const __m256i w = _mm256_cvtepu16_epi32(x);
    return _mm256_or_si256(w, _mm256_slli_epi32(w, 16));
}

// 8 per-32 values (bytes of v) as 16 per-16 int16 (each twice).
inline __m256i per16_from_per32(uint64_t v) {
    return per16_twice(_mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<long long>(v))));
}

// The grid formats' scales 2 s + 1 as 16 per-16 int16, from their scale word (grid_levels.h: Grid::scale_word): 16
// nibbles per 16 elements (low nibble first; kPer16) or 8 bytes per 32 elements.
template <bool kPer16>
inline __m256i odd_scales(uint64_t w) {
    __m256i s;
    if constexpr (kPer16) {
        const __m128i b = _mm_cvtsi64_si128(static_cast<long long>(w)), low4 = _mm_set1_epi8(0x0f);
        s = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(_mm_and_si128(b, low4), _mm_and_si128(_mm_srli_epi16(b, 4), low4)));
    } else {
        s = per16_from_per32(w);
    }
    return _mm256_add_epi16(_mm256_add_epi16(s, s), _mm256_set1_epi16(1));
}

} // namespace
} // namespace switchyard::cpu::quants

#endif // __x86_64__
