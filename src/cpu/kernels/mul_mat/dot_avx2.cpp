// AVX2 + FMA dot products (compiled with -mavx2 -mfma; called only when the CPU has them).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dot.h"

#include <immintrin.h>

namespace switchyard::cpu::kernels {

namespace {

float hsum(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v);
    __m128 hi = _mm256_extractf128_ps(v, 1);
    lo        = _mm_add_ps(lo, hi);
    lo        = _mm_hadd_ps(lo, lo);
    lo        = _mm_hadd_ps(lo, lo);
    return _mm_cvtss_f32(lo);
}

} // namespace

float dot_f32_avx2(const float * x, const float * y, int64_t n) {
    __m256  a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t i  = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);
    }
    for (; i + 8 <= n; i += 8) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a0);
    }
    float sum = hsum(_mm256_add_ps(a0, a1));
    for (; i < n; ++i) {
        sum += x[i] * y[i];
    }
    return sum;
}

void dot4_f32_avx2(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                   float * out) {
    __m256  a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    int64_t i  = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 xv = _mm256_loadu_ps(x + i);
        a0              = _mm256_fmadd_ps(xv, _mm256_loadu_ps(y0 + i), a0);
        a1              = _mm256_fmadd_ps(xv, _mm256_loadu_ps(y1 + i), a1);
        a2              = _mm256_fmadd_ps(xv, _mm256_loadu_ps(y2 + i), a2);
        a3              = _mm256_fmadd_ps(xv, _mm256_loadu_ps(y3 + i), a3);
    }
    float s0 = hsum(a0), s1 = hsum(a1), s2 = hsum(a2), s3 = hsum(a3);
    for (; i < n; ++i) {
        s0 += x[i] * y0[i];
        s1 += x[i] * y1[i];
        s2 += x[i] * y2[i];
        s3 += x[i] * y3[i];
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

const DotKernels & dot_kernels_avx2() {
    static constexpr DotKernels k{dot_f32_avx2, dot4_f32_avx2, dot4x4_via_dot4<dot4_f32_avx2>, "avx2"};
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
