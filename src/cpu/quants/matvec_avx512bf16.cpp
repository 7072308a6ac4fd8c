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

// R weight rows (w_row bytes apart) times C columns: per (row, column) two accumulators, 64 elements a step (32
// into each), the tail 32 at a time into the first; whatever R is a row gets the same instructions in the same
// order, so the same bits alone or in a group. A group reads each activation vector once for all its rows.
template <int R, int C>
void rows_times_columns(const MatVecArgs & a, const char * w, size_t w_row, float * out) {
    const char * act = static_cast<const char *>(a.act);
    __m512       acc0[R][C], acc1[R][C];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            acc0[r][c] = acc1[r][c] = _mm512_setzero_ps();
        }
    }
    // 32 elements from i0 (the first n where the mask says so) of every row and column into acc
    const auto half = [&](int64_t i0, __mmask32 m, __m512 (&acc)[R][C]) __attribute__((always_inline)) {
        __m512bh wv[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            wv[r] = load_bf16(w + r * w_row + 2 * i0, m);
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const __m512bh y = load_bf16(act + static_cast<size_t>(c) * a.act_col + 2 * i0, m);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                acc[r][c] = _mm512_dpbf16_ps(acc[r][c], wv[r], y);
            }
        }
    };
    constexpr __mmask32 kAll = 0xffffffffu;
    int64_t             i    = 0;
    for (; i + 64 <= a.k; i += 64) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            simd::prefetch_lines<128>(w + r * w_row + 2 * i + simd::kPrefetchBytes);
        }
        half(i, kAll, acc0);
        half(i + 32, kAll, acc1);
    }
    for (; i < a.k; i += 32) {
        const int64_t n = a.k - i < 32 ? a.k - i : 32;
        half(i, n == 32 ? kAll : static_cast<__mmask32>((1u << n) - 1), acc0);
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            out[r * a.out_row + c * a.out_col] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[r][c], acc1[r][c]));
        }
    }
}

// Three rows at a time for more than one column (2 x 3 x C + 3 + 1 of the 32 registers), one for one column.
void bf16_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        constexpr int kRows = C > 1 ? 3 : 1;
        const char *  w     = static_cast<const char *>(a.w);
        int64_t       r     = 0;
        for (; r + kRows <= a.rows; r += kRows) {
            rows_times_columns<kRows, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
        }
        for (; r < a.rows; ++r) {
            rows_times_columns<1, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
        }
    });
}

} // namespace

MatVecFn matvec_avx512bf16(ggml_type weight) { return weight == GGML_TYPE_BF16 ? bf16_kernel : nullptr; }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
