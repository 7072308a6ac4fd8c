// The rotation of ROPE on F32 rows with adjacent elements, written once over a Vec type (simd/vec_scalar.h) and
// instantiated per ISA into a RopeRows table: rope.cpp (scalar), rope_avx2.cpp, rope_avx512.cpp. rope_rows()
// gives the table the kernel registry selects (cpu/kernel_registry.h).
//
// cos / sin hold the (already scaled) cosines and sines of n pairs. y may be x (in place): every element is read
// before it is written. Thread-safe, no allocation.
#pragma once

#include "cpu/simd/vec_scalar.h"

#include <cstdint>

namespace switchyard::cpu::kernels {

struct RopeRows {
    // NEOX: pair i is (x[i], x[i + half]).
    void (*neox)(const float * x, float * y, const float * cos, const float * sin, int64_t n, int64_t half) = nullptr;
    // NORMAL: pair i is (x[2i], x[2i + 1]).
    void (*normal)(const float * x, float * y, const float * cos, const float * sin, int64_t n) = nullptr;
};

// The table the registry selects, and the per-ISA tables its columns hold (call an ISA's only where the CPU runs
// it).
const RopeRows & rope_rows();
const RopeRows & rope_rows_scalar();
const RopeRows & rope_rows_avx2();
const RopeRows & rope_rows_avx512();

namespace {

template <class V>
void rope_neox_row(const float * x, float * y, const float * cos, const float * sin, int64_t n, int64_t half) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        const V x0 = V::load(x + i), x1 = V::load(x + i + half);
        const V c = V::load(cos + i), s = V::load(sin + i);
        (x0 * c - x1 * s).store(y + i);
        (x0 * s + x1 * c).store(y + i + half);
    }
    for (; i < n; ++i) {
        const float x0 = x[i], x1 = x[i + half];
        y[i]           = x0 * cos[i] - x1 * sin[i];
        y[i + half]    = x0 * sin[i] + x1 * cos[i];
    }
}

// Adjacent pairs need lane shuffles the Vec types do not have: a plain loop, which the compiler may vectorise.
inline void rope_normal_row(const float * x, float * y, const float * cos, const float * sin, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        const float x0 = x[2 * i], x1 = x[2 * i + 1];
        y[2 * i]       = x0 * cos[i] - x1 * sin[i];
        y[2 * i + 1]   = x0 * sin[i] + x1 * cos[i];
    }
}

template <class V>
RopeRows make_rope_rows() {
    return RopeRows{rope_neox_row<V>, rope_normal_row};
}

} // namespace
} // namespace switchyard::cpu::kernels
