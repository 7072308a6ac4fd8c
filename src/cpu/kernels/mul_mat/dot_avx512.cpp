// AVX-512 dot products (compiled with -mavx512f...; called only when the CPU has AVX-512F).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dot.h"

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

namespace {

// four accumulators of one tile row: c_col += av * b_col
struct TileRow {
    __m512 c0 = _mm512_setzero_ps(), c1 = _mm512_setzero_ps(), c2 = _mm512_setzero_ps(), c3 = _mm512_setzero_ps();

    void fma(__m512 av, __m512 b0, __m512 b1, __m512 b2, __m512 b3) {
        c0 = _mm512_fmadd_ps(av, b0, c0);
        c1 = _mm512_fmadd_ps(av, b1, c1);
        c2 = _mm512_fmadd_ps(av, b2, c2);
        c3 = _mm512_fmadd_ps(av, b3, c3);
    }
    // the four sums into out[0..3]: halves added, then three rounds of pairwise adds across the four rows
    void store(float * out) const {
        const __m256 y0 = halves(c0), y1 = halves(c1), y2 = halves(c2), y3 = halves(c3);
        const __m256 t  = _mm256_hadd_ps(_mm256_hadd_ps(y0, y1), _mm256_hadd_ps(y2, y3));
        _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)));
    }
    static __m256 halves(__m512 v) {
        const __m256d lo = _mm512_maskz_extractf64x4_pd(0xf, _mm512_castps_pd(v), 0); // masked: see hsum
        const __m256d hi = _mm512_maskz_extractf64x4_pd(0xf, _mm512_castps_pd(v), 1);
        return _mm256_add_ps(_mm256_castpd_ps(lo), _mm256_castpd_ps(hi));
    }
};

} // namespace

// 4 rows of a x 4 columns b: 16 accumulators in registers, 8 loads per 16 FMAs; a masked step takes n % 16
void dot4x4_f32_avx512(const float * a, int64_t lda, const float * const * b, int64_t n, float * out) {
    const float * a0 = a, * a1 = a + lda, * a2 = a + 2 * lda, * a3 = a + 3 * lda;
    const float * b0 = b[0], * b1 = b[1], * b2 = b[2], * b3 = b[3];
    TileRow       r0, r1, r2, r3;
    int64_t       i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v0 = _mm512_loadu_ps(b0 + i), v1 = _mm512_loadu_ps(b1 + i);
        const __m512 v2 = _mm512_loadu_ps(b2 + i), v3 = _mm512_loadu_ps(b3 + i);
        r0.fma(_mm512_loadu_ps(a0 + i), v0, v1, v2, v3);
        r1.fma(_mm512_loadu_ps(a1 + i), v0, v1, v2, v3);
        r2.fma(_mm512_loadu_ps(a2 + i), v0, v1, v2, v3);
        r3.fma(_mm512_loadu_ps(a3 + i), v0, v1, v2, v3);
    }
    if (i < n) {
        const __mmask16 m  = static_cast<__mmask16>((1u << (n - i)) - 1);
        const __m512    v0 = _mm512_maskz_loadu_ps(m, b0 + i), v1 = _mm512_maskz_loadu_ps(m, b1 + i);
        const __m512    v2 = _mm512_maskz_loadu_ps(m, b2 + i), v3 = _mm512_maskz_loadu_ps(m, b3 + i);
        r0.fma(_mm512_maskz_loadu_ps(m, a0 + i), v0, v1, v2, v3);
        r1.fma(_mm512_maskz_loadu_ps(m, a1 + i), v0, v1, v2, v3);
        r2.fma(_mm512_maskz_loadu_ps(m, a2 + i), v0, v1, v2, v3);
        r3.fma(_mm512_maskz_loadu_ps(m, a3 + i), v0, v1, v2, v3);
    }
    r0.store(out);
    r1.store(out + 4);
    r2.store(out + 8);
    r3.store(out + 12);
}

// one row of dot4x4, with the same steps and reduction, so a row gives the same bits either way (results must
// not depend on how the rows were split among threads)
void dot4_f32_avx512(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                     float * out) {
    TileRow r;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        r.fma(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y0 + i), _mm512_loadu_ps(y1 + i), _mm512_loadu_ps(y2 + i),
              _mm512_loadu_ps(y3 + i));
    }
    if (i < n) {
        const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
        r.fma(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y0 + i), _mm512_maskz_loadu_ps(m, y1 + i),
              _mm512_maskz_loadu_ps(m, y2 + i), _mm512_maskz_loadu_ps(m, y3 + i));
    }
    r.store(out);
}

const DotKernels & dot_kernels_avx512() {
    static constexpr DotKernels k{dot_f32_avx512, dot4_f32_avx512, dot4x4_f32_avx512, "avx512"};
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
