// The AVX-512 BF16 level of the matrix-vector table: bf16 weights times bf16 activations with vdpbf16ps (32 pairs
// per instruction, products exact, sums in float; like upstream's ggml_vec_dot_bf16 it treats subnormal inputs as
// zero). The other types come from the levels below.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_isa.h"

#include "cpu/simd/intrinsics.h"
#include "cpu/simd/prefetch.h"

#include <cstdint>

namespace switchyard::cpu::quants {

namespace {

inline __m512bh load_bf16(const void * p, __mmask32 m) { return (__m512bh) _mm512_maskz_loadu_epi16(m, p); }

template <int C>
void row_times_columns(const MatVecArgs & a, const char * w, float * out) {
    const char * act = static_cast<const char *>(a.act);
    __m512       acc0[C], acc1[C];
    for (int c = 0; c < C; ++c) {
        acc0[c] = acc1[c] = _mm512_setzero_ps();
    }
    constexpr __mmask32 kAll = 0xffffffffu;
    int64_t             i    = 0;
    for (; i + 64 <= a.k; i += 64) {
        simd::prefetch_lines<128>(w + 2 * i + simd::kPrefetchBytes);
        const __m512bh w0 = load_bf16(w + 2 * i, kAll), w1 = load_bf16(w + 2 * (i + 32), kAll);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm512_dpbf16_ps(acc0[c], w0, load_bf16(y + 2 * i, kAll));
            acc1[c]        = _mm512_dpbf16_ps(acc1[c], w1, load_bf16(y + 2 * (i + 32), kAll));
        }
    }
    for (; i < a.k; i += 32) {
        const int64_t   n  = a.k - i < 32 ? a.k - i : 32;
        const __mmask32 m  = n == 32 ? kAll : static_cast<__mmask32>((1u << n) - 1);
        const __m512bh  w0 = load_bf16(w + 2 * i, m);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = _mm512_dpbf16_ps(acc0[c], w0, load_bf16(y + 2 * i, m));
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[c], acc1[c]));
    }
}

template <int C>
void rows_times_columns(const MatVecArgs & a) {
    const char * w = static_cast<const char *>(a.w);
    for (int64_t r = 0; r < a.rows; ++r) {
        row_times_columns<C>(a, w + static_cast<size_t>(r) * a.w_row, a.out + r * a.out_row);
    }
}

void bf16_kernel(const MatVecArgs & a) {
    switch (a.cols) {
        case 1:  rows_times_columns<1>(a); break;
        case 2:  rows_times_columns<2>(a); break;
        case 3:  rows_times_columns<3>(a); break;
        default: rows_times_columns<4>(a); break;
    }
}

} // namespace

MatVecFn matvec_avx512bf16(ggml_type weight) { return weight == GGML_TYPE_BF16 ? bf16_kernel : nullptr; }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
