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
