// The float formats' matrix-vector kernels (f32, f16, bf16) written once over the Vec lanes (simd/vec_scalar.h:
// the concept and the x86 levels' format loads); matvec_avx2.cpp and matvec_avx512.cpp instantiate them. Per
// weight row and column count C (matvec_driver.h), kLanes elements at a time into A accumulators per (row,
// column) in turn, the tail with partial loads into the first, one hsum per (row, column). Included only by the
// levels' files, inside their ISA flags: everything here sits in an unnamed namespace.
//
// The shape per level and format (FloatShape): on AVX-512, f32 takes six rows at a time with one accumulator per
// output for more than one column, so a step loads 6 weight and C activation vectors for 6 C FMAs; f16 three rows
// with two accumulators, its activations as f32; AVX2 one row with two accumulators. An output's sum has the same
// steps in the same order whatever the number of rows or columns beside it, so a column gives the same bits alone
// or in a batch.
#pragma once

#include "cpu/quants/matvec_driver.h"
#include "cpu/simd/prefetch.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace switchyard::cpu::quants {
namespace {

// kLanes elements of a float format as lanes; the partial form reads the first n only.
struct F32Format {
    static constexpr size_t kSize = 4;
    template <class V> static V load(const char * p) { return V::load(reinterpret_cast<const float *>(p)); }
    template <class V> static V load_partial(const char * p, int64_t n) {
        return V::load_partial(reinterpret_cast<const float *>(p), n);
    }
};

struct F16Format {
    static constexpr size_t kSize = 2;
    template <class V> static V load(const char * p) { return V::load_f16(p); }
    template <class V> static V load_partial(const char * p, int64_t n) { return V::load_f16_partial(p, n); }
};

struct BF16Format {
    static constexpr size_t kSize = 2;
    template <class V> static V load(const char * p) { return V::load_bf16(p); }
    template <class V> static V load_partial(const char * p, int64_t n) { return V::load_bf16_partial(p, n); }
};

// Rows and accumulators per level and format. With 32 vector registers (AVX-512), f32 takes one accumulator per
// output: six rows share each activation load for more than one column (6 x 4 + 6 + 1 registers), three for one
// column (three independent FMA chains). f16 keeps two accumulators per output (three rows for more than one
// column: 2 x 3 x 4 + 3 + 1 registers; one row for one column): its decode measured 0.83 x as fast with one
// accumulator and three rows, for 1.15 x at 16-32 columns, and decode matters more. Leftover rows go three, then
// one at a time. With 16 registers (AVX2), one row with two accumulators.
//
// Act: the format activations arrive in (matvec.h: act_layout_for, the same rule by level). With three rows per
// activation vector, f16 activations come as f32 holding their f16 values, so that only the weights are
// converted (1.15-1.20 x at 16-32 columns); with one row that would only double the bytes read.
template <class V, class T> struct FloatShape {
    static constexpr bool kWide = V::kLanes >= 16;
    using Act                   = std::conditional_t<kWide && std::is_same_v<T, F16Format>, F32Format, T>;
    static constexpr int  kAccs = kWide && !std::is_same_v<T, F16Format> ? 1 : 2;
    static constexpr int  rows(int columns) {
        if (!kWide) {
            return 1;
        }
        return kAccs == 1 ? (columns > 1 ? 6 : 3) : (columns > 1 ? 3 : 1);
    }
};

// R weight rows (w, w_row bytes apart) times C columns into out (rows out_row apart), A accumulators per (row,
// column) taking the steps in turn. A group of rows loads (and converts) each activation vector once for all of
// them.
template <class V, class T, int A, int R, int C>
void float_rows_times_columns(const MatVecArgs & a, const char * w, size_t w_row, float * out) {
    constexpr int L   = V::kLanes;
    const char *  act = static_cast<const char *>(a.act);
    V             acc[A][R][C];
    // The loops over rows and columns are unrolled outright (#pragma GCC unroll): otherwise GCC keeps the
    // accumulator arrays on the stack and stores them at every step.
#pragma GCC unroll 16
    for (int s = 0; s < A; ++s) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int c = 0; c < C; ++c) {
                acc[s][r][c] = V::splat(0.0f);
            }
        }
    }
    // n elements from i0 (kLanes, or fewer in the tail: partial loads) of every row and column into acc[s]; R
    // weight vectors live at a time
    const auto lanes = [&](int64_t i0, int64_t n, V (&sum)[R][C]) __attribute__((always_inline)) {
        const auto load = [&]<class F>(const char * p) {
            return n == L ? F::template load<V>(p) : F::template load_partial<V>(p, n);
        };
        using Act = typename FloatShape<V, T>::Act;
        V wv[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            wv[r] = load.template operator()<T>(w + r * w_row + i0 * T::kSize);
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const V y = load.template operator()<Act>(act + static_cast<size_t>(c) * a.act_col + i0 * Act::kSize);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                sum[r][c] = vfma(wv[r], y, sum[r][c]);
            }
        }
    };
    int64_t i = 0;
    for (; i + 2 * L <= a.k; i += 2 * L) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            simd::prefetch_lines<2 * L * T::kSize>(w + r * w_row + i * T::kSize + simd::kPrefetchBytes);
        }
        lanes(i, L, acc[0]);
        lanes(i + L, L, acc[A - 1]);
    }
    for (; i < a.k; i += L) {
        lanes(i, a.k - i < L ? a.k - i : L, acc[0]);
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            V total = acc[0][r][c];
#pragma GCC unroll 16
            for (int s = 1; s < A; ++s) {
                total = total + acc[s][r][c];
            }
            out[r * a.out_row + c * a.out_col] = hsum(total);
        }
    }
}

template <class V, class T>
void float_kernel(const MatVecArgs & a) {
    using S = FloatShape<V, T>;
    for_column_count(a, [&]<int C>() {
        const char * w   = static_cast<const char *>(a.w);
        int64_t      r   = 0;
        const auto   run = [&]<int R>() {
            for (; r + R <= a.rows; r += R) {
                float_rows_times_columns<V, T, S::kAccs, R, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
            }
        };
        run.template operator()<S::rows(C)>();
        if constexpr (S::rows(C) > 3) {
            run.template operator()<3>();
        }
        if constexpr (S::rows(C) > 1) {
            run.template operator()<1>();
        }
    });
}

// The level's kernel for a float weight type, or nullptr for the other types.
template <class V>
MatVecFn float_matvec(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F32:  return float_kernel<V, F32Format>;
        case GGML_TYPE_F16:  return float_kernel<V, F16Format>;
        case GGML_TYPE_BF16: return float_kernel<V, BF16Format>;
        default:             return nullptr;
    }
}

} // namespace
} // namespace switchyard::cpu::quants
