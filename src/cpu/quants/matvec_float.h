// The float formats' matrix-vector kernels (f32, f16, bf16) written once over the Vec lanes (simd/vec_scalar.h:
// the concept and the x86 levels' format loads); matvec_avx2.cpp and matvec_avx512.cpp instantiate them. Per
// weight row and column count C (matvec_driver.h): 2 x kLanes elements per step into two accumulators per
// column, the tail kLanes at a time with partial loads, one hsum per column. Included only by the levels' files,
// inside their ISA flags: everything here sits in an unnamed namespace. On AVX-512 the weight rows go three at a
// time for more than one column (float_kernel), with the same bits as one at a time.
#pragma once

#include "cpu/quants/matvec_driver.h"
#include "cpu/simd/prefetch.h"

#include <cstddef>
#include <cstdint>

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

// R weight rows (w, w_row bytes apart) times C columns into out (rows out_row apart). Each (row, column) sum has
// the same two accumulators and the same steps whatever R is, so a row gives the same bits alone or in a group;
// a group loads (and converts) each activation vector once for all its rows.
template <class V, class T, int R, int C>
void float_rows_times_columns(const MatVecArgs & a, const char * w, size_t w_row, float * out) {
    constexpr int L   = V::kLanes;
    const char *  act = static_cast<const char *>(a.act);
    V             acc0[R][C], acc1[R][C];
    // The loops over rows and columns are unrolled outright (#pragma GCC unroll): otherwise GCC keeps the
    // accumulator arrays on the stack and stores them at every step.
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            acc0[r][c] = acc1[r][c] = V::splat(0.0f);
        }
    }
    // n elements from i0 (kLanes, or fewer in the tail: partial loads) of every row and column into acc; R
    // weight vectors live at a time, 2 R C + R + 1 registers in all (R = 3, C = 4: 28 of AVX-512's 32)
    const auto lanes = [&](int64_t i0, int64_t n, V (&acc)[R][C]) __attribute__((always_inline)) {
        const auto load = [&](const char * p) {
            return n == L ? T::template load<V>(p) : T::template load_partial<V>(p, n);
        };
        V wv[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            wv[r] = load(w + r * w_row + i0 * T::kSize);
        }
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const V y = load(act + static_cast<size_t>(c) * a.act_col + i0 * T::kSize);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                acc[r][c] = vfma(wv[r], y, acc[r][c]);
            }
        }
    };
    int64_t i = 0;
    for (; i + 2 * L <= a.k; i += 2 * L) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            simd::prefetch_lines<2 * L * T::kSize>(w + r * w_row + i * T::kSize + simd::kPrefetchBytes);
        }
        lanes(i, L, acc0);
        lanes(i + L, L, acc1);
    }
    for (; i < a.k; i += L) {
        lanes(i, a.k - i < L ? a.k - i : L, acc0);
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            out[r * a.out_row + c * a.out_col] = hsum(acc0[r][c] + acc1[r][c]);
        }
    }
}

// Rows three at a time for more than one column where the level has the registers for 2 x 3 x C accumulators (32
// vector registers: AVX-512), one at a time otherwise (one column: a second weight stream saves no activation
// loads, and measured slower on L3-resident f16 weights). Three rows load (and convert) each activation vector once
// for three rows.
constexpr int kFloatRows = 3;

template <class V, class T>
void float_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        constexpr int kPair = V::kLanes >= 16 && C > 1 ? kFloatRows : 1;
        const char * w = static_cast<const char *>(a.w);
        int64_t      r = 0;
        for (; r + kPair <= a.rows; r += kPair) {
            float_rows_times_columns<V, T, kPair, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
        }
        for (; r < a.rows; ++r) {
            float_rows_times_columns<V, T, 1, C>(a, w + r * a.w_row, a.w_row, a.out + r * a.out_row);
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
