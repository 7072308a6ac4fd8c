// The AVX-512 BF16 level of the matrix-vector table: bf16 weights times bf16 activations with vdpbf16ps (32 pairs
// per instruction, products exact, sums in float; like upstream's ggml_vec_dot_bf16 it treats subnormal inputs as
// zero). The other types come from the levels below.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
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

void bf16_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) {
            row_times_columns<C>(a, reinterpret_cast<const char *>(w), out);
        });
    });
}

} // namespace

MatVecFn matvec_avx512bf16(ggml_type weight) { return weight == GGML_TYPE_BF16 ? bf16_kernel : nullptr; }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
