// The AVX2 level of the matrix-vector table: the float formats here (f32, f16 through F16C, bf16 by shifting),
// the 32-element formats in legacy_avx2.cpp, the K-quants in kquants_avx2.cpp. Float rows are taken 16 elements
// per step into two accumulators per column, the tail with masked loads.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/simd/int_avx2.h"
#include "cpu/simd/vec_avx2.h"

namespace switchyard::cpu::quants {

namespace {

using namespace simd;

// Eight elements of a float format as floats; the masked variant reads only the first n (< 8).
struct F32 {
    static constexpr size_t kSize = 4;
    static __m256 load(const void * p) { return _mm256_loadu_ps(static_cast<const float *>(p)); }
    static __m256 load_first(const void * p, int64_t n) {
        return _mm256_maskload_ps(static_cast<const float *>(p), first_lanes_avx2(n));
    }
};

// 16-bit formats: the tail goes through a zeroed stack copy (AVX2 has no 16-bit masked load)
template <class Self>
struct Half16 {
    static constexpr size_t kSize = 2;
    static __m256 load_first(const void * p, int64_t n) {
        alignas(16) uint16_t t[8] = {};
        std::memcpy(t, p, static_cast<size_t>(n) * 2);
        return Self::load(t);
    }
};

struct F16 : Half16<F16> {
    static __m256 load(const void * p) { return _mm256_cvtph_ps(load128(p)); }
};

struct BF16 : Half16<BF16> {
    static __m256 load(const void * p) {
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(p)), 16));
    }
};

template <class T, int C>
void row_times_columns(const MatVecArgs & a, const char * w, float * out) {
    const char * act = static_cast<const char *>(a.act);
    __m256       acc0[C], acc1[C];
    for (int c = 0; c < C; ++c) {
        acc0[c] = acc1[c] = _mm256_setzero_ps();
    }
    int64_t i = 0;
    for (; i + 16 <= a.k; i += 16) {
        prefetch_lines<16 * T::kSize>(w + i * T::kSize + kPrefetchBytes);
        const __m256 w0 = T::load(w + i * T::kSize), w1 = T::load(w + (i + 8) * T::kSize);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm256_fmadd_ps(w0, T::load(y + i * T::kSize), acc0[c]);
            acc1[c]        = _mm256_fmadd_ps(w1, T::load(y + (i + 8) * T::kSize), acc1[c]);
        }
    }
    for (; i < a.k; i += 8) {
        const int64_t n  = a.k - i < 8 ? a.k - i : 8;
        const __m256  w0 = T::load_first(w + i * T::kSize, n);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm256_fmadd_ps(w0, T::load_first(y + i * T::kSize, n), acc0[c]);
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = hsum_f32x8(_mm256_add_ps(acc0[c], acc1[c]));
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

MatVecFn matvec_avx2(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F32:  return float_kernel<F32>;
        case GGML_TYPE_F16:  return float_kernel<F16>;
        case GGML_TYPE_BF16: return float_kernel<BF16>;
        default:             break;
    }
    if (MatVecFn f = legacy_avx2(weight)) {
        return f;
    }
    return kquants_avx2(weight);
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
