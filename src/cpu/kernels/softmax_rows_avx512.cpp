// The softmax row functions instantiated for AVX-512 (16 float lanes): the Vec type VecAvx512 (only what
// softmax_rows_impl.h uses) and its table. Compiled with -mavx512f -mfma; called only through
// softmax_row_kernels(), which checks features() first.
#include "cpu/kernels/softmax_rows_impl.h"

#include <immintrin.h>

namespace switchyard::cpu::kernels {
namespace {

struct VecAvx512 {
    static constexpr int kLanes = 16;
    __m512 v;
    static VecAvx512 load(const float * p) { return {_mm512_loadu_ps(p)}; }
    static VecAvx512 splat(float x) { return {_mm512_set1_ps(x)}; }
    void store(float * p) const { _mm512_storeu_ps(p, v); }
};

inline VecAvx512 operator+(VecAvx512 a, VecAvx512 b) { return {_mm512_add_ps(a.v, b.v)}; }
inline VecAvx512 operator-(VecAvx512 a, VecAvx512 b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline VecAvx512 operator*(VecAvx512 a, VecAvx512 b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline VecAvx512 vfma(VecAvx512 a, VecAvx512 b, VecAvx512 c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline VecAvx512 select_gt(VecAvx512 a, VecAvx512 b, VecAvx512 x, VecAvx512 y) {
    return {_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ), y.v, x.v)};
}
// Through memory, and the zero-masking forms with an all-ones mask below: g++ 12's headers warn
// (-Wmaybe-uninitialized) on the register-only reductions and several unmasked intrinsics.
inline float hsum(VecAvx512 a) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, a.v);
    float s = 0.0f;
    for (float x : lanes) {
        s += x;
    }
    return s;
}

constexpr __mmask16 kAll = 0xffff;

// out[0..4) = hsum of a, b, c, d: pairwise unpacks leave [a, b, c, d] partial sums in each 128-bit lane.
inline void hsum4(VecAvx512 a, VecAvx512 b, VecAvx512 c, VecAvx512 d, float * out) {
    const __m512 ab = _mm512_add_ps(_mm512_maskz_unpacklo_ps(kAll, a.v, b.v), _mm512_maskz_unpackhi_ps(kAll, a.v, b.v));
    const __m512 cd = _mm512_add_ps(_mm512_maskz_unpacklo_ps(kAll, c.v, d.v), _mm512_maskz_unpackhi_ps(kAll, c.v, d.v));
    const __m512 s  = _mm512_add_ps(_mm512_maskz_shuffle_ps(kAll, ab, cd, _MM_SHUFFLE(1, 0, 1, 0)), _mm512_maskz_shuffle_ps(kAll, ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, s);
    const __m128 lo = _mm_add_ps(_mm_load_ps(lanes), _mm_load_ps(lanes + 4));
    const __m128 hi = _mm_add_ps(_mm_load_ps(lanes + 8), _mm_load_ps(lanes + 12));
    _mm_storeu_ps(out, _mm_add_ps(lo, hi));
}

// exp as VecAvx2's vexp in common.h (same reduction, polynomial and two-factor scaling), 16 lanes.
inline VecAvx512 vexp(VecAvx512 a) {
    const __m512  x  = _mm512_maskz_min_ps(kAll, _mm512_maskz_max_ps(kAll, a.v, _mm512_set1_ps(-103.9f)), _mm512_set1_ps(88.7228391f));
    const __m512  n  = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512        r  = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r                = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p         = _mm512_set1_ps(1.9875691500e-4f);
    p                = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p                = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p                = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p                = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p                = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p                = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    const __m512i ni = _mm512_maskz_cvtps_epi32(kAll, n);
    const __m512i n1 = _mm512_maskz_srai_epi32(kAll, ni, 1);
    const __m512i n2 = _mm512_sub_epi32(ni, n1);
    const __m512  s1 = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_add_epi32(n1, _mm512_set1_epi32(127)), 23));
    const __m512  s2 = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_add_epi32(n2, _mm512_set1_epi32(127)), 23));
    __m512        y  = _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
    y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, _mm512_set1_ps(88.7228391f), _CMP_GT_OQ), y, _mm512_set1_ps(INFINITY));
    y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, _mm512_set1_ps(-103.9f), _CMP_LT_OQ), y, _mm512_setzero_ps());
    return {_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, a.v, _CMP_UNORD_Q), y, a.v)};
}

} // namespace

const SoftmaxRowKernels & softmax_row_kernels_avx512() {
    static const SoftmaxRowKernels k = make_softmax_row_kernels<VecAvx512, 4>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels
