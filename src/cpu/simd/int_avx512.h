// Integer lanes for AVX-512 (64 bytes, 32 int16, 16 int32) and the operations the quantized kernels of the
// AVX-512 VNNI level are built from: masked loads for the tails, byte and word gathers from a 128-byte window
// (VBMI / BW permutes), fp16 expansion and the horizontal sums. Only translation units compiled for AVX-512 VNNI
// + VBMI include it (names ending in _avx512vnni); their code runs after the selector (simd/isa.h) checked the CPU.
#pragma once

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
#include "cpu/simd/intrinsics.h"
#include "cpu/simd/prefetch.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace switchyard::cpu::simd {
namespace {

// The first n (may be <= 0 or >= 64) of 64 byte lanes.
inline __mmask64 first_bytes(int64_t n) {
    if (n <= 0) {
        return 0;
    }
    return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

// 64 bytes at p; only the first n are read (the rest are zero) when n < 64: a row's tail never reads past it.
inline __m512i load_bytes(const void * p, int64_t n) { return _mm512_maskz_loadu_epi8(first_bytes(n), p); }
inline __m512i load512(const void * p) { return _mm512_loadu_si512(p); }

// A constant vector from a table of 64 bytes / 32 words / 16 dwords.
inline __m512i vector_of(const std::array<uint8_t, 64> & t) { return _mm512_loadu_si512(t.data()); }
inline __m512i vector_of(const std::array<uint16_t, 32> & t) { return _mm512_loadu_si512(t.data()); }

// The fp16 value at p (F16C).
inline float half(const void * p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof(h));
    return _cvtsh_ss(h);
}

// The 16 fp16 values in the low 256 bits of v as floats.
inline __m512 halves_to_floats(__m512i v) { return _mm512_cvtph_ps(_mm512_castsi512_si256(v)); }

// 256 bits of 16 int16 as 16 floats.
inline __m512 i16_to_floats(__m256i v) { return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(v)); }

inline float hsum(__m512 v) { return _mm512_reduce_add_ps(v); }

inline float hsum(__m256 v) {
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}

} // namespace
} // namespace switchyard::cpu::simd

#endif
