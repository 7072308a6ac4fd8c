// Integer lanes for AVX2 (32 bytes, 16 int16, 8 int32) and the few operations the quantized kernels are built
// from: level unpacking (nibbles, bit planes, table lookup), the int8 dot product with int32 pair sums, the one
// horizontal sum per type, fp16 scalars and masked tail loads. Only translation units compiled with AVX2 + FMA +
// F16C include it (names ending in _avx2); their code runs after the selector (simd/isa.h) checked the CPU.
#pragma once

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include "cpu/simd/intrinsics.h"
#include "cpu/simd/prefetch.h"

#include <cstdint>
#include <cstring>

namespace switchyard::cpu::simd {
namespace {

inline __m128i load128(const void * p) { return _mm_loadu_si128(static_cast<const __m128i *>(p)); }
inline __m256i load256(const void * p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }

inline float half_to_float(const void * p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof(h));
    return _cvtsh_ss(h);
}

inline float hsum_f32x8(__m256 v) {
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}

inline int hsum_i32x8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s         = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    s         = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
}

// The 32 nibbles of 16 bytes in element order: the low nibbles (elements 0..15), then the high ones (16..31).
inline __m256i nibbles32(const void * qs) {
    const __m128i b = load128(qs);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(b, 4), b), _mm256_set1_epi8(0x0f));
}

// Byte j of the result is 0xff when bit j of the 32 bits at p equals kSet, else 0 (bits32: the set bits;
// clear_bits32: the clear ones, one compare either way).
template <bool kSet>
inline __m256i bit_bytes32(const void * p) {
    uint32_t bits;
    std::memcpy(&bits, p, sizeof(bits));
    // each byte takes the byte of `bits` that holds its bit (shuffles stay inside 128-bit lanes; the broadcast
    // puts all four bytes in each), then tests its own bit
    const __m256i byte_of = _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303);
    const __m256i which   = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), byte_of);
    const __m256i mask    = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
    return _mm256_cmpeq_epi8(_mm256_and_si256(which, mask), kSet ? mask : _mm256_setzero_si256());
}

inline __m256i bits32(const void * p) { return bit_bytes32<true>(p); }
inline __m256i clear_bits32(const void * p) { return bit_bytes32<false>(p); }

// Pair sums of x * y for signed bytes (|x| <= 128, y > -128): 8 int32 lanes, each the sum of 4 products.
inline __m256i dot_i8(__m256i x, __m256i y) {
    const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
}

// Pair sums of u * y for unsigned u (u * 127 * 2 < 32768) and signed y, as 16 int16 lanes (elements 2i, 2i + 1).
inline __m256i dot_u8_i16(__m256i u, __m256i y) { return _mm256_maddubs_epi16(u, y); }

} // namespace
} // namespace switchyard::cpu::simd

#endif
