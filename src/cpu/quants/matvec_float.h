// The float formats' matrix-vector kernels (f32, f16, bf16) written once over the Vec lanes (simd/vec_scalar.h:
// the concept and the x86 levels' format loads); matvec_avx2.cpp and matvec_avx512.cpp instantiate them. Per
// weight row and column count C (matvec_driver.h): 2 x kLanes elements per step into two accumulators per
// column, the tail kLanes at a time with partial loads, one hsum per column. Included only by the levels' files,
// inside their ISA flags: everything here sits in an unnamed namespace.
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

template <class V, class T, int C>
void float_row_times_columns(const MatVecArgs & a, const char * w, float * out) {
    constexpr int L   = V::kLanes;
    const char *  act = static_cast<const char *>(a.act);
    V             acc0[C], acc1[C];
    for (int c = 0; c < C; ++c) {
        acc0[c] = acc1[c] = V::splat(0.0f);
    }
    int64_t i = 0;
    for (; i + 2 * L <= a.k; i += 2 * L) {
        simd::prefetch_lines<2 * L * T::kSize>(w + i * T::kSize + simd::kPrefetchBytes);
        const V w0 = T::template load<V>(w + i * T::kSize), w1 = T::template load<V>(w + (i + L) * T::kSize);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = vfma(w0, T::template load<V>(y + i * T::kSize), acc0[c]);
            acc1[c]        = vfma(w1, T::template load<V>(y + (i + L) * T::kSize), acc1[c]);
        }
    }
    for (; i < a.k; i += L) {
        const int64_t n  = a.k - i < L ? a.k - i : L;
        const V       w0 = T::template load_partial<V>(w + i * T::kSize, n);
        for (int c = 0; c < C; ++c) {
            const char * y = act + static_cast<size_t>(c) * a.act_col;
            acc0[c]        = vfma(w0, T::template load_partial<V>(y + i * T::kSize, n), acc0[c]);
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = hsum(acc0[c] + acc1[c]);
    }
}

template <class V, class T>
void float_kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) {
            float_row_times_columns<V, T, C>(a, reinterpret_cast<const char *>(w), out);
        });
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
