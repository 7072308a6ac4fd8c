// Float lanes for AVX2 + FMA: VecAvx2, eight floats (the Vec concept: see vec_scalar.h). Only translation units
// compiled with -mavx2 -mfma (file names ending in _avx2 and above) see it; their code runs only after the
// selector (simd/isa.h) has checked the CPU.
#pragma once

#include "cpu/simd/vec_scalar.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "cpu/simd/intrinsics.h"

#include <cmath>
#include <cstdint>

#define SWITCHYARD_SIMD_HAVE_AVX2 1

namespace switchyard::cpu::simd {
namespace {

// Lane mask of the first n (0..8) lanes, for maskload / maskstore.
inline __m256i first_lanes_avx2(int64_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx);
}


struct VecAvx2 {
    static constexpr int kLanes = 8;
    __m256 v;
    static VecAvx2 load(const float * p) { return {_mm256_loadu_ps(p)}; }
    static VecAvx2 splat(float x) { return {_mm256_set1_ps(x)}; }
    void store(float * p) const { _mm256_storeu_ps(p, v); }
    static VecAvx2 load_partial(const float * p, int64_t n) { return {_mm256_maskload_ps(p, first_lanes_avx2(n))}; }
    void store_partial(float * p, int64_t n) const { _mm256_maskstore_ps(p, first_lanes_avx2(n), v); }
};

inline VecAvx2 operator+(VecAvx2 a, VecAvx2 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline VecAvx2 operator-(VecAvx2 a, VecAvx2 b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline VecAvx2 operator*(VecAvx2 a, VecAvx2 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline VecAvx2 operator/(VecAvx2 a, VecAvx2 b) { return {_mm256_div_ps(a.v, b.v)}; }
inline VecAvx2 operator-(VecAvx2 a) { return {_mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f))}; }
// a < b ? a : b lane-wise, as the scalar version (a NaN in a gives b)
inline VecAvx2 vmin(VecAvx2 a, VecAvx2 b) { return {_mm256_min_ps(a.v, b.v)}; }
inline VecAvx2 vmax(VecAvx2 a, VecAvx2 b) { return {_mm256_max_ps(a.v, b.v)}; }
inline VecAvx2 vabs(VecAvx2 a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline VecAvx2 vsqrt(VecAvx2 a) { return {_mm256_sqrt_ps(a.v)}; }
inline VecAvx2 select_gt(VecAvx2 a, VecAvx2 b, VecAvx2 x, VecAvx2 y) {
    return {_mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ))};
}
inline VecAvx2 select_lt(VecAvx2 a, VecAvx2 b, VecAvx2 x, VecAvx2 y) {
    return {_mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ))};
}
inline VecAvx2 vfma(VecAvx2 a, VecAvx2 b, VecAvx2 c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline float hsum(VecAvx2 a) {
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}

// Applies a scalar function to each lane (for the functions without a vector version here).
template <class F>
VecAvx2 lanewise(VecAvx2 a, F f) {
    alignas(32) float t[8];
    _mm256_store_ps(t, a.v);
    for (float & x : t) {
        x = f(x);
    }
    return {_mm256_load_ps(t)};
}

// exp: x = n*ln2 + r with |r| <= ln2/2, exp(r) by a degree-6 polynomial (Cephes coefficients), times 2^n applied
// as two factors so that every step stays a normal float. Max relative error about 2 ulp; overflow gives +inf,
// underflow gives subnormals and then 0; NaN stays NaN.
inline VecAvx2 vexp(VecAvx2 a) {
    const __m256  x  = _mm256_min_ps(_mm256_max_ps(a.v, _mm256_set1_ps(-103.9f)), _mm256_set1_ps(88.7228391f));
    const __m256  n  = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256        r  = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r                = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p         = _mm256_set1_ps(1.9875691500e-4f);
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p                = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256  s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
    const __m256  s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
    __m256        y  = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
    y = _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(a.v, _mm256_set1_ps(88.7228391f), _CMP_GT_OQ));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(a.v, _mm256_set1_ps(-103.9f), _CMP_LT_OQ));
    return {_mm256_blendv_ps(y, a.v, _mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q))};
}

// tanh: odd Taylor polynomial for |x| < 0.3, 1 - 2 / (exp(2|x|) + 1) with the sign of x above.
inline VecAvx2 vtanh(VecAvx2 a) {
    const VecAvx2 ax  = vabs(a);
    const VecAvx2 one = VecAvx2::splat(1.0f);
    const VecAvx2 big = one - VecAvx2::splat(2.0f) / (vexp(ax + ax) + one);
    const VecAvx2 x2  = a * a;
    VecAvx2       p   = VecAvx2::splat(-1382.0f / 155925.0f);
    p                 = p * x2 + VecAvx2::splat(62.0f / 2835.0f);
    p                 = p * x2 + VecAvx2::splat(-17.0f / 315.0f);
    p                 = p * x2 + VecAvx2::splat(2.0f / 15.0f);
    p                 = p * x2 + VecAvx2::splat(-1.0f / 3.0f);
    const VecAvx2 small = a + a * x2 * p;
    const VecAvx2 signed_big{_mm256_or_ps(big.v, _mm256_and_ps(a.v, _mm256_set1_ps(-0.0f)))};
    return select_lt(ax, VecAvx2::splat(0.3f), small, signed_big);
}

inline VecAvx2 vexpm1(VecAvx2 a) { return lanewise(a, [](float x) { return std::expm1(x); }); }
inline VecAvx2 verf(VecAvx2 a) { return lanewise(a, [](float x) { return std::erf(x); }); }
inline VecAvx2 vlog(VecAvx2 a) { return lanewise(a, [](float x) { return std::log(x); }); }
inline VecAvx2 vlog1p(VecAvx2 a) { return lanewise(a, [](float x) { return std::log1p(x); }); }
inline VecAvx2 vsin(VecAvx2 a) { return lanewise(a, [](float x) { return std::sin(x); }); }
inline VecAvx2 vcos(VecAvx2 a) { return lanewise(a, [](float x) { return std::cos(x); }); }
inline VecAvx2 vround(VecAvx2 a) { return lanewise(a, [](float x) { return std::round(x); }); }
inline VecAvx2 vfloor(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vceil(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vtrunc(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)}; }


} // namespace
} // namespace switchyard::cpu::simd

#endif // __AVX2__ && __FMA__
