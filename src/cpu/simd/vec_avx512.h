// Float lanes for AVX-512 F/BW/VL/DQ: VecAvx512, sixteen floats (the Vec concept: see simd/vec_scalar.h). Only
// translation units compiled with the AVX-512 flags (file names ending in _avx512 and above) see it; their code
// runs only after the selector (simd/isa.h) has checked the CPU.
#pragma once

#include "cpu/simd/vec_avx2.h" // hsum4_128
#include "cpu/simd/vec_scalar.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__FMA__)
#include "cpu/simd/intrinsics.h"

#include <cmath>
#include <cstdint>

#define SWITCHYARD_SIMD_HAVE_AVX512 1

namespace switchyard::cpu::simd {
namespace {

// Lane mask of the first n (0..16) lanes.
inline __mmask16 first_lanes_avx512(int64_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

struct VecAvx512 {
    static constexpr int kLanes = 16;
    __m512 v;
    static VecAvx512 load(const float * p) { return {_mm512_loadu_ps(p)}; }
    static VecAvx512 splat(float x) { return {_mm512_set1_ps(x)}; }
    void store(float * p) const { _mm512_storeu_ps(p, v); }
    static VecAvx512 load_partial(const float * p, int64_t n) {
        return {_mm512_maskz_loadu_ps(first_lanes_avx512(n), p)};
    }
    void store_partial(float * p, int64_t n) const { _mm512_mask_storeu_ps(p, first_lanes_avx512(n), v); }

    // Storage formats (x86 levels): kLanes fp16 / bf16 values as floats; the _partial forms read the first n only.
    static VecAvx512 load_f16(const void * p) { return load_f16_partial(p, 16); }
    static VecAvx512 load_bf16(const void * p) { return load_bf16_partial(p, 16); }
    static VecAvx512 load_f16_partial(const void * p, int64_t n) {
        return {_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first_lanes_avx512(n), p))};
    }
    static VecAvx512 load_bf16_partial(const void * p, int64_t n) {
        const __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes_avx512(n), p));
        return {_mm512_castsi512_ps(_mm512_slli_epi32(w, 16))};
    }
    // Sixteen bytes (signed or unsigned) minus offset, as floats (part: always 0, one vector holds them all).
    // Masked forms of the conversions: GCC 12's headers warn (-Wmaybe-uninitialized) on the unmasked ones.
    template <bool kSigned>
    static VecAvx512 from_bytes(__m128i bytes, int /*part*/, int offset) {
        constexpr __mmask16 kAll = 0xffff;
        const __m512i q = kSigned ? _mm512_maskz_cvtepi8_epi32(kAll, bytes) : _mm512_maskz_cvtepu8_epi32(kAll, bytes);
        return {_mm512_maskz_cvtepi32_ps(kAll, _mm512_sub_epi32(q, _mm512_set1_epi32(offset)))};
    }
};

inline VecAvx512 operator+(VecAvx512 a, VecAvx512 b) { return {_mm512_add_ps(a.v, b.v)}; }
inline VecAvx512 operator-(VecAvx512 a, VecAvx512 b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline VecAvx512 operator*(VecAvx512 a, VecAvx512 b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline VecAvx512 operator/(VecAvx512 a, VecAvx512 b) { return {_mm512_div_ps(a.v, b.v)}; }
inline VecAvx512 operator-(VecAvx512 a) { return {_mm512_xor_ps(a.v, _mm512_set1_ps(-0.0f))}; }
// a < b ? a : b lane-wise, as the scalar version (a NaN in a gives b)
inline VecAvx512 vmin(VecAvx512 a, VecAvx512 b) { return {_mm512_min_ps(a.v, b.v)}; }
inline VecAvx512 vmax(VecAvx512 a, VecAvx512 b) { return {_mm512_max_ps(a.v, b.v)}; }
inline VecAvx512 vabs(VecAvx512 a) { return {_mm512_andnot_ps(_mm512_set1_ps(-0.0f), a.v)}; }
inline VecAvx512 vsqrt(VecAvx512 a) { return {_mm512_sqrt_ps(a.v)}; }
inline VecAvx512 select_gt(VecAvx512 a, VecAvx512 b, VecAvx512 x, VecAvx512 y) {
    return {_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ), y.v, x.v)};
}
inline VecAvx512 select_lt(VecAvx512 a, VecAvx512 b, VecAvx512 x, VecAvx512 y) {
    return {_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ), y.v, x.v)};
}
inline VecAvx512 vfma(VecAvx512 a, VecAvx512 b, VecAvx512 c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
// x with the sign bit of s or-ed in (x >= 0: x with the sign of s)
inline VecAvx512 with_sign_of(VecAvx512 x, VecAvx512 s) { return {_mm512_or_ps(x.v, _mm512_and_ps(s.v, _mm512_set1_ps(-0.0f)))}; }
// x[0] + ... + x[n - 1] in double: four accumulators of eight lanes, thirty-two floats a step, then the tail.
inline double sum_in_double(VecAvx512, const float * x, int64_t n) {
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i  = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(x + i)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8)));
        a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 16)));
        a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 24)));
    }
    double total = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
    for (; i < n; ++i) {
        total += static_cast<double>(x[i]);
    }
    return total;
}
inline float hsum(VecAvx512 a) {
    const __m256 h  = _mm256_add_ps(_mm512_castps512_ps256(a.v), _mm512_extractf32x8_ps(a.v, 1));
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}
// The lane sums of a, b, c, d into out[0..3]: halves first (256-bit adds), then the AVX2 tree (vec_avx2.h).
inline void hsum4(VecAvx512 a, VecAvx512 b, VecAvx512 c, VecAvx512 d, float * out) {
    const auto half = [](__m512 x) { return _mm256_add_ps(_mm512_castps512_ps256(x), _mm512_extractf32x8_ps(x, 1)); };
    _mm_storeu_ps(out, hsum4_128(half(a.v), half(b.v), half(c.v), half(d.v)));
}
inline float hmax(VecAvx512 a) { return _mm512_reduce_max_ps(a.v); }

// exp: x = n*ln2 + r with |r| <= ln2/2, exp(r) by a degree-6 polynomial (Cephes coefficients), and 2^n applied by
// vscalefps, which rounds once into the subnormals and saturates to 0 / +inf. The input is clamped to
// [-104, 89] first (beyond it the result is already 0 / +inf); max(-104, x) keeps a NaN in x. Max relative
// error about 2 ulp, as VecAvx2's vexp.
inline VecAvx512 vexp(VecAvx512 a) {
    const __m512 x = _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), a.v));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512       r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r              = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p       = _mm512_set1_ps(1.9875691500e-4f);
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p              = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return {_mm512_scalef_ps(p, n)};
}

inline VecAvx512 vfloor(VecAvx512 a) { return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx512 vceil(VecAvx512 a) { return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx512 vtrunc(VecAvx512 a) { return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)}; }

} // namespace
} // namespace switchyard::cpu::simd

#include "cpu/simd/vec_math.h"

#endif // __AVX512F__ && __AVX512DQ__ && __FMA__
