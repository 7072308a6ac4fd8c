// AVX-512 dot products (compiled with -mavx512f...; called only when the CPU has AVX-512F).
#include "cpu/kernels/matmul_dot.h"

#include <immintrin.h>

namespace switchyard::cpu::kernels {

namespace {

// horizontal sum through memory: GCC 12's headers warn (-Wuninitialized) on the register-only reductions
float hsum(__m512 v) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    float s = 0.0f;
    for (float x : lanes) {
        s += x;
    }
    return s;
}

} // namespace

float dot_f32_avx512(const float * x, const float * y, int64_t n) {
    __m512  a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int64_t i  = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(y + i + 16), a1);
    }
    for (; i + 16 <= n; i += 16) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), a0);
    }
    if (i < n) {
        const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i), a1);
    }
    return hsum(_mm512_add_ps(a0, a1));
}

void dot4_f32_avx512(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                     float * out) {
    __m512  a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int64_t i  = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 xv = _mm512_loadu_ps(x + i);
        a0              = _mm512_fmadd_ps(xv, _mm512_loadu_ps(y0 + i), a0);
        a1              = _mm512_fmadd_ps(xv, _mm512_loadu_ps(y1 + i), a1);
        a2              = _mm512_fmadd_ps(xv, _mm512_loadu_ps(y2 + i), a2);
        a3              = _mm512_fmadd_ps(xv, _mm512_loadu_ps(y3 + i), a3);
    }
    if (i < n) {
        const __mmask16 m  = static_cast<__mmask16>((1u << (n - i)) - 1);
        const __m512    xv = _mm512_maskz_loadu_ps(m, x + i);
        a0                 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, y0 + i), a0);
        a1                 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, y1 + i), a1);
        a2                 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, y2 + i), a2);
        a3                 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, y3 + i), a3);
    }
    out[0] = hsum(a0);
    out[1] = hsum(a1);
    out[2] = hsum(a2);
    out[3] = hsum(a3);
}

} // namespace switchyard::cpu::kernels
