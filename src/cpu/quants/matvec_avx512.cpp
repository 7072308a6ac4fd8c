// The AVX-512 level (F, BW, VL, DQ) of the matrix-vector table: the float formats f32, f16 (vcvtph2ps) and bf16
// (by shifting), 32 elements per step into two accumulators per column, the tail with masked loads. The
// quantized formats fall back to the AVX2 level here; the AVX-512 VNNI level has their integer kernels.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/simd/intrinsics.h"
#include "cpu/simd/prefetch.h"

#include <cstdint>

namespace switchyard::cpu::quants {

namespace {

// Sixteen elements as floats; the masked variant reads only the lanes of m.
struct F32 {
    static constexpr size_t kSize = 4;
    static __m512 load(const void * p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
};

struct F16 {
    static constexpr size_t kSize = 2;
    static __m512 load(const void * p, __mmask16 m) { return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p)); }
};

struct BF16 {
    static constexpr size_t kSize = 2;
    static __m512 load(const void * p, __mmask16 m) {
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
    }
};

template <class T, int C>
void row_times_columns(const MatVecArgs & a, const char * w, float * out) {
    const char * act = static_cast<const char *>(a.act);
    __m512       acc0[C], acc1[C];
    for (int c = 0; c < C; ++c) {
        acc0[c] = acc1[c] = _mm512_setzero_ps();
    }
    constexpr __mmask16 kAll = 0xffff;
    int64_t             i    = 0;
    for (; i + 32 <= a.k; i += 32) {
        simd::prefetch_lines<32 * T::kSize>(w + i * T::kSize + simd::kPrefetchBytes);
        const __m512 w0 = T::load(w + i * T::kSize, kAll), w1 = T::load(w + (i + 16) * T::kSize, kAll);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm512_fmadd_ps(w0, T::load(y + i * T::kSize, kAll), acc0[c]);
            acc1[c]        = _mm512_fmadd_ps(w1, T::load(y + (i + 16) * T::kSize, kAll), acc1[c]);
        }
    }
    for (; i < a.k; i += 16) {
        const int64_t   n  = a.k - i < 16 ? a.k - i : 16;
        const __mmask16 m  = static_cast<__mmask16>((1u << n) - 1);
        const __m512    w0 = T::load(w + i * T::kSize, m);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm512_fmadd_ps(w0, T::load(y + i * T::kSize, m), acc0[c]);
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[c], acc1[c]));
    }
}

template <class T>
void float_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) {
            row_times_columns<T, C>(a, reinterpret_cast<const char *>(w), out);
        });
    });
}

} // namespace

MatVecFn matvec_avx512(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F32:  return float_kernel<F32>;
        case GGML_TYPE_F16:  return float_kernel<F16>;
        case GGML_TYPE_BF16: return float_kernel<BF16>;
        default:             return nullptr;
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
