// The row steps of SOFT_MAX, written once over a Vec type (simd/vec_scalar.h) and instantiated per ISA into a
// SoftmaxRows table: softmax.cpp (scalar), softmax_avx2.cpp, softmax_avx512.cpp. softmax_rows() gives the table
// the kernel registry selects (cpu/kernel_registry.h).
//
// All three take float rows with adjacent elements; x may be a (in place). Thread-safe, no allocation.
#pragma once

#include "cpu/simd/vec_scalar.h"

#include <cmath>
#include <cstdint>

namespace switchyard::cpu::kernels {

struct SoftmaxRows {
    // x[i] = a[i] * scale + slope * mask[i] (mask may be nullptr: no mask term); returns the largest x[i]
    // (-inf for an empty row; a NaN in x may or may not show).
    float (*logits)(const float * a, const float * mask, float scale, float slope, float * x, int64_t n) = nullptr;
    // x[i] = exp(x[i] - max); returns the sum of the new x[i] (float lanes per chunk, chunks added in double).
    double (*exp_sum)(float * x, int64_t n, float max) = nullptr;
    // x[i] *= s
    void (*scale)(float * x, int64_t n, float s) = nullptr;
};

// The table the registry selects, and the per-ISA tables its columns hold (call an ISA's only where the CPU runs
// it).
const SoftmaxRows & softmax_rows();
const SoftmaxRows & softmax_rows_scalar();
const SoftmaxRows & softmax_rows_avx2();
const SoftmaxRows & softmax_rows_avx512();

namespace {

// Elements whose exponentials are summed in float lanes before the total goes to double.
constexpr int64_t kSoftmaxSumChunk = 256;

template <class V>
float softmax_logits_row(const float * a, const float * mask, float scale, float slope, float * x, int64_t n) {
    const V sc = V::splat(scale), sl = V::splat(slope);
    V       mx = V::splat(-INFINITY);
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        V v = V::load(a + i) * sc;
        if (mask) {
            v = v + sl * V::load(mask + i);
        }
        v.store(x + i);
        mx = vmax(mx, v);
    }
    alignas(64) float lanes[V::kLanes];
    mx.store(lanes);
    float m = -INFINITY;
    for (float l : lanes) {
        m = l > m ? l : m;
    }
    for (; i < n; ++i) {
        float v = a[i] * scale;
        if (mask) {
            v += slope * mask[i];
        }
        x[i] = v;
        m    = v > m ? v : m;
    }
    return m;
}

template <class V>
double softmax_exp_sum_row(float * x, int64_t n, float max) {
    const V mx    = V::splat(max);
    double  total = 0.0;
    for (int64_t c = 0; c < n; c += kSoftmaxSumChunk) {
        const int64_t end = c + kSoftmaxSumChunk < n ? c + kSoftmaxSumChunk : n;
        V             acc = V::splat(0.0f);
        int64_t       i   = c;
        for (; i + V::kLanes <= end; i += V::kLanes) {
            const V e = vexp(V::load(x + i) - mx);
            e.store(x + i);
            acc = acc + e;
        }
        float rest = 0.0f;
        for (; i < end; ++i) {
            x[i] = std::exp(x[i] - max);
            rest += x[i];
        }
        total += static_cast<double>(hsum(acc)) + static_cast<double>(rest);
    }
    return total;
}

template <class V>
void softmax_scale_row(float * x, int64_t n, float s) {
    const V sv = V::splat(s);
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        (V::load(x + i) * sv).store(x + i);
    }
    for (; i < n; ++i) {
        x[i] *= s;
    }
}

template <class V>
SoftmaxRows make_softmax_rows() {
    return SoftmaxRows{softmax_logits_row<V>, softmax_exp_sum_row<V>, softmax_scale_row<V>};
}

} // namespace
} // namespace switchyard::cpu::kernels
