// The x86 helpers of upstream's float order (upstream_order.h), shared by our AVX2 and AVX-512 VNNI
// matrix-vector kernels. Everything is in an unnamed namespace: each ISA's file compiles its own copy with its own
// flags.
#pragma once

#if defined(__x86_64__)

#include "cpu/quants/upstream_order.h"

#include "cpu/simd/intrinsics.h"

namespace switchyard::cpu::quants {
namespace {

struct UpstreamSums {
    __m256 acc   = _mm256_setzero_ps();
    __m256 acc2  = _mm256_setzero_ps(); // kDeltaLanes
    __m128 quads = _mm_setzero_ps();
    float  total = 0.0f;
};

inline float fma_ss(float a, float b, float c) {
    return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}

// c + a * b rounded twice: scalar builtins, which the compiler never contracts into an FMA.
inline float mul_add_ss(float a, float b, float c) {
    return _mm_cvtss_f32(_mm_add_ss(_mm_set_ss(c), _mm_mul_ss(_mm_set_ss(a), _mm_set_ss(b))));
}

// Upstream's hsum_float_8 order.
inline float sum_lanes8(__m256 v) {
    const __m128 r = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    const __m128 s = _mm_add_ps(r, _mm_movehl_ps(r, r));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

inline int sum_i32x8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s         = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    s         = _mm_add_epi32(s, _mm_shuffle_epi32(s, 1));
    return _mm_cvtsi128_si32(s);
}

// One K-quant super-block: lanes as above (for q6_K before the subtraction), mins the eight mins_l (kDeltaLanes:
// the second lanes, dmin their factor).
template <MinTerm M>
inline void add_super_block(UpstreamSums & s, __m256i lanes, __m256i mins, float d, float dmin) {
    if constexpr (M == MinTerm::kLanes) {
        s.acc = _mm256_fmadd_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(mins), s.acc);
    }
    if constexpr (M == MinTerm::kSubtract) {
        lanes = _mm256_sub_epi32(lanes, mins);
    }
    s.acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(lanes), s.acc);
    if constexpr (M == MinTerm::kQuads) {
        const __m128i quads = _mm_hadd_epi32(_mm256_castsi256_si128(mins), _mm256_extracti128_si256(mins, 1));
        s.quads             = _mm_fmadd_ps(_mm_set1_ps(dmin), _mm_cvtepi32_ps(quads), s.quads);
    }
    if constexpr (M == MinTerm::kTotal) {
        s.total = fma_ss(dmin, static_cast<float>(sum_i32x8(mins)), s.total);
    }
    if constexpr (M == MinTerm::kDeltaLanes) {
        s.acc2 = _mm256_fmadd_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(mins), s.acc2);
    }
}

template <MinTerm M>
inline float finish(const UpstreamSums & s) {
    const float v = sum_lanes8(s.acc);
    if constexpr (M == MinTerm::kQuads) {
        const __m128 h = _mm_add_ps(s.quads, _mm_movehl_ps(s.quads, s.quads));
        return v + _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
    } else if constexpr (M == MinTerm::kTotal) {
        return v + s.total;
    } else if constexpr (M == MinTerm::kDeltaLanes) {
        return v + sum_lanes8(s.acc2);
    } else {
        return v;
    }
}

} // namespace
} // namespace switchyard::cpu::quants

#endif // __x86_64__
