// The float dot products of dot.h written once over the Vec lanes (simd/vec_scalar.h: the concept); each x86
// level's file (dot_avx2.cpp, dot_avx512.cpp) instantiates them with its lanes. Included only by those files,
// inside their ISA flags: everything here sits in an unnamed namespace, one copy per level.
//
// dot: two accumulators, 2 x kLanes elements per step, then one step of kLanes, then the masked tail, one hsum.
// dot4x4: 16 accumulators (4 rows of a x 4 columns of b), 8 loads per 16 multiply-adds, a masked tail step, the
// rows' sums by hsum4. dot4 is one row of dot4x4 with the same steps and reduction, so a row gives the same bits
// either way (results must not depend on how rows were split among threads). Levels with too few registers for
// the 4 x 4 tile (AVX2: 16) take dot4x4 as four dot4 calls: the same bits again.
#pragma once

#include "cpu/kernels/mul_mat/dot.h"

#include <cstdint>

namespace switchyard::cpu::kernels {
namespace {

template <class V>
float dot_lanes(const float * x, const float * y, int64_t n) {
    constexpr int L  = V::kLanes;
    V             a0 = V::splat(0.0f), a1 = V::splat(0.0f);
    int64_t       i  = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
        a0 = vfma(V::load(x + i), V::load(y + i), a0);
        a1 = vfma(V::load(x + i + L), V::load(y + i + L), a1);
    }
    for (; i + L <= n; i += L) {
        a0 = vfma(V::load(x + i), V::load(y + i), a0);
    }
    if (i < n) {
        a1 = vfma(V::load_partial(x + i, n - i), V::load_partial(y + i, n - i), a1);
    }
    return hsum(a0 + a1);
}

// One row of a tile: c[j] += av * b[j] for the four columns.
template <class V>
struct TileRow {
    V c[4] = {V::splat(0.0f), V::splat(0.0f), V::splat(0.0f), V::splat(0.0f)};

    void fma(V av, const V * b) {
        for (int j = 0; j < 4; ++j) {
            c[j] = vfma(av, b[j], c[j]);
        }
    }
    void store(float * out) const { hsum4(c[0], c[1], c[2], c[3], out); }
};

// The four columns' lanes at i: whole, or the first n when n < kLanes.
template <class V>
void load_columns(const float * const * b, int64_t i, int64_t n, V * v) {
    for (int j = 0; j < 4; ++j) {
        v[j] = n < V::kLanes ? V::load_partial(b[j] + i, n) : V::load(b[j] + i);
    }
}

template <class V>
void dot4x4_lanes(const float * a, int64_t lda, const float * const * b, int64_t n, float * out) {
    constexpr int L = V::kLanes;
    TileRow<V>    r[4];
    for (int64_t i = 0; i < n; i += L) {
        const int64_t m = n - i < L ? n - i : L;
        V             bv[4];
        load_columns(b, i, m, bv);
        for (int k = 0; k < 4; ++k) {
            const float * ak = a + k * lda + i;
            r[k].fma(m < L ? V::load_partial(ak, m) : V::load(ak), bv);
        }
    }
    for (int k = 0; k < 4; ++k) {
        r[k].store(out + 4 * k);
    }
}

template <class V>
void dot4_lanes(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                float * out) {
    constexpr int       L    = V::kLanes;
    const float * const b[4] = {y0, y1, y2, y3};
    TileRow<V>          r;
    for (int64_t i = 0; i < n; i += L) {
        const int64_t m = n - i < L ? n - i : L;
        V             bv[4];
        load_columns(b, i, m, bv);
        r.fma(m < L ? V::load_partial(x + i, m) : V::load(x + i), bv);
    }
    r.store(out);
}

// A level's table: kTile4x4 when the level has registers for the 16 accumulators.
template <class V, bool kTile4x4>
constexpr DotKernels dot_table(const char * isa) {
    if constexpr (kTile4x4) {
        return {dot_lanes<V>, dot4_lanes<V>, dot4x4_lanes<V>, isa};
    } else {
        return {dot_lanes<V>, dot4_lanes<V>, dot4x4_via_dot4<dot4_lanes<V>>, isa};
    }
}

} // namespace
} // namespace switchyard::cpu::kernels
