// Float lanes for AVX2 + FMA: VecAvx2, eight floats (the Vec concept: see vec_scalar.h). Only translation units
// compiled with -mavx2 -mfma (file names ending in _avx2 and above) see it; their code runs only after the
// selector (simd/isa.h) has checked the CPU.
#pragma once

#include "cpu/simd/vec_scalar.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "cpu/simd/intrinsics.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

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

    // Storage formats (x86 levels): kLanes fp16 / bf16 values as floats; the _partial forms read the first n only.
    static VecAvx2 load_f16(const void * p) { return {_mm256_cvtph_ps(_mm_loadu_si128(static_cast<const __m128i *>(p)))}; }
    static VecAvx2 load_bf16(const void * p) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(static_cast<const __m128i *>(p)));
        return {_mm256_castsi256_ps(_mm256_slli_epi32(w, 16))};
    }
    // (AVX2 has no 16-bit masked load: the tail goes through a zeroed copy)
    static VecAvx2 load_f16_partial(const void * p, int64_t n) { return load_f16(half_tail(p, n).data()); }
    static VecAvx2 load_bf16_partial(const void * p, int64_t n) { return load_bf16(half_tail(p, n).data()); }
    // Lanes part * 8 .. part * 8 + 7 of sixteen bytes (signed or unsigned) minus offset, as floats.
    template <bool kSigned>
    static VecAvx2 from_bytes(__m128i bytes, int part, int offset) {
        const __m128i half = part == 0 ? bytes : _mm_srli_si128(bytes, 8);
        const __m256i q    = kSigned ? _mm256_cvtepi8_epi32(half) : _mm256_cvtepu8_epi32(half);
        return {_mm256_cvtepi32_ps(_mm256_sub_epi32(q, _mm256_set1_epi32(offset)))};
    }

  private:
    static std::array<uint16_t, 8> half_tail(const void * p, int64_t n) {
        std::array<uint16_t, 8> t{};
        std::memcpy(t.data(), p, static_cast<size_t>(n) * 2);
        return t;
    }
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
// x with the sign bit of s or-ed in (x >= 0: x with the sign of s)
inline VecAvx2 with_sign_of(VecAvx2 x, VecAvx2 s) { return {_mm256_or_ps(x.v, _mm256_and_ps(s.v, _mm256_set1_ps(-0.0f)))}; }
// x[0] + ... + x[n - 1] in double: four accumulators of four lanes, sixteen floats a step, then the tail.
inline double sum_in_double(VecAvx2, const float * x, int64_t n) {
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i  = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)));
        a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 8)));
        a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 12)));
    }
    const __m256d s = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    double        total = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
    for (; i < n; ++i) {
        total += static_cast<double>(x[i]);
    }
    return total;
}
inline float hsum(VecAvx2 a) {
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}
// The lane sums of a, b, c, d into out[0..3]: one reduction tree, the same for every call (hsum4_128 also serves
// the AVX-512 level after its halves are added).
inline __m128 hsum4_128(__m256 a, __m256 b, __m256 c, __m256 d) {
    const __m256 ab = _mm256_add_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
    const __m256 cd = _mm256_add_ps(_mm256_unpacklo_ps(c, d), _mm256_unpackhi_ps(c, d));
    const __m256 s  = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}

inline void hsum4(VecAvx2 a, VecAvx2 b, VecAvx2 c, VecAvx2 d, float * out) {
    _mm_storeu_ps(out, hsum4_128(a.v, b.v, c.v, d.v));
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

inline VecAvx2 vfloor(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vceil(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vtrunc(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)}; }


} // namespace
} // namespace switchyard::cpu::simd

#include "cpu/simd/vec_math.h"

#endif // __AVX2__ && __FMA__
