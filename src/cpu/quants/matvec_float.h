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
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            acc0[r][c] = acc1[r][c] = V::splat(0.0f);
        }
    }
    int64_t i = 0;
    for (; i + 2 * L <= a.k; i += 2 * L) {
        // the step's two halves one after the other: R weight vectors live at a time, and 2 R C + R + 1 registers
        // in all (R = 3, C = 4: 28 of AVX-512's 32)
        #pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            simd::prefetch_lines<2 * L * T::kSize>(w + r * w_row + i * T::kSize + simd::kPrefetchBytes);
        }
        V w0[R];
        #pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            w0[r] = T::template load<V>(w + r * w_row + i * T::kSize);
        }
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const V y0 = T::template load<V>(act + static_cast<size_t>(c) * a.act_col + i * T::kSize);
            #pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                acc0[r][c] = vfma(w0[r], y0, acc0[r][c]);
            }
        }
        #pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            w0[r] = T::template load<V>(w + r * w_row + (i + L) * T::kSize);
        }
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const V y1 = T::template load<V>(act + static_cast<size_t>(c) * a.act_col + (i + L) * T::kSize);
            #pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                acc1[r][c] = vfma(w0[r], y1, acc1[r][c]);
            }
        }
    }
    for (; i < a.k; i += L) {
        const int64_t n = a.k - i < L ? a.k - i : L;
        V             w0[R];
        #pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            w0[r] = T::template load_partial<V>(w + r * w_row + i * T::kSize, n);
        }
        #pragma GCC unroll 16
        for (int c = 0; c < C; ++c) {
            const V y0 = T::template load_partial<V>(act + static_cast<size_t>(c) * a.act_col + i * T::kSize, n);
            #pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                acc0[r][c] = vfma(w0[r], y0, acc0[r][c]);
            }
        }
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
// loads, and measured slower on L3-resident f16 weights). Three rows load each activation vector once for three
// rows: 8 columns of f32 weights ran 1.6 x faster than with pairs.
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
