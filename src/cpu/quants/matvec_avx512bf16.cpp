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

// R weight rows (w_row bytes apart) times C columns: per (row, column) one accumulator taking 32 elements a
// step, the tail through a mask; whatever R and C are an output gets the same instructions in the same order,
// so the same bits alone or in a group. A group reads each activation vector once for all its rows.
template <int R, int C>
void rows_times_columns(const MatVecArgs & a, const char * w, size_t w_row, float * out) {
    const char * act = static_cast<const char *>(a.act);
    __m512       acc[R][C];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            acc[r][c] = _mm512_setzero_ps();
        }
    }
    // 32 elements from i0 (the first n where the mask says so) of every row and column into acc
    const auto step = [&](int64_t i0, __mmask32 m) __attribute__((always_inline)) {
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
        step(i, kAll);
        step(i + 32, kAll);
    }
    for (; i < a.k; i += 32) {
        const int64_t n = a.k - i < 32 ? a.k - i : 32;
        step(i, n == 32 ? kAll : static_cast<__mmask32>((1u << n) - 1));
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            out[r * a.out_row + c * a.out_col] = _mm512_reduce_add_ps(acc[r][c]);
        }
    }
}

// Six rows at a time for more than one column (6 x C accumulators + 6 + 1 of the 32 registers), leftover rows
// three, then one at a time; two rows for one column (two independent chains: on DRAM-resident weights one row
// ran at parity and three measured 0.77-1.04 x the two-accumulator single row this replaced; on L3-resident ones
// one row fell to 0.87 x, two measured 0.93-0.97 x, within this machine's noise).
void bf16_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        const char * w   = static_cast<const char *>(a.w);
        int64_t      r   = 0;
        const auto   run = [&]<int R>() {
            for (; r + R <= a.rows; r += R) {
                rows_times_columns<R, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
            }
        };
        if constexpr (C > 1) {
            run.template operator()<6>();
            run.template operator()<3>();
        } else {
            run.template operator()<2>();
        }
        run.template operator()<1>();
    });
}

} // namespace

MatVecFn matvec_avx512bf16(ggml_type weight) { return weight == GGML_TYPE_BF16 ? bf16_kernel : nullptr; }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
