// The steps of attention_tile.h written once over a Vec type (simd/vec_scalar.h); included only by the files that
// instantiate them (attention_tile.cpp, attention_avx2.cpp, attention_avx512.cpp). Unnamed namespace: every
// translation unit keeps its own copies, so an AVX2 instantiation is never the one the scalar path links to.
//
// Layouts are row-major throughout: Q rows (queries of one GQA group), K and V rows (keys of one tile), score rows
// (one per query row, one column per key), O rows (one per query row). Scores are dot products with the lanes
// along the head dimension, reduced by hsum4 (four dot products at once); the accumulation keeps O in registers
// across the keys of the tile and broadcasts one probability per row and key.
#pragma once

#include "cpu/kernels/attention_tile.h"
#include "cpu/simd/vec_scalar.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace switchyard::cpu::kernels {
namespace {

using simd::VecScalar;

// Lane numbers, to blend away the lanes past a row's end.
alignas(64) constexpr float kLaneIndex[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// out[0..4) = the lane sums of a, b, c, d: one reduction tree per ISA, the same for every call.
inline void hsum4(VecScalar a, VecScalar b, VecScalar c, VecScalar d, float * out) {
    out[0] = a.v;
    out[1] = b.v;
    out[2] = c.v;
    out[3] = d.v;
}

#if defined(SWITCHYARD_SIMD_HAVE_AVX2)
inline __m128 hsum4_128(__m256 a, __m256 b, __m256 c, __m256 d) {
    const __m256 ab = _mm256_add_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
    const __m256 cd = _mm256_add_ps(_mm256_unpacklo_ps(c, d), _mm256_unpackhi_ps(c, d));
    const __m256 s  = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}

inline void hsum4(simd::VecAvx2 a, simd::VecAvx2 b, simd::VecAvx2 c, simd::VecAvx2 d, float * out) {
    _mm_storeu_ps(out, hsum4_128(a.v, b.v, c.v, d.v));
}
#endif

#if defined(SWITCHYARD_SIMD_HAVE_AVX512)
// Halves first (256-bit adds), then the AVX2 tree.
inline void hsum4(simd::VecAvx512 a, simd::VecAvx512 b, simd::VecAvx512 c, simd::VecAvx512 d, float * out) {
    const auto half = [](__m512 x) { return _mm256_add_ps(_mm512_castps512_ps256(x), _mm512_extractf32x8_ps(x, 1)); };
    _mm_storeu_ps(out, hsum4_128(half(a.v), half(b.v), half(c.v), half(d.v)));
}
#endif

// Scores of RB query rows against 4 key rows k[0..3] (some may repeat a row: the caller keeps only nk_keep).
template <class V, int RB>
void score_block(const float * q, int64_t ldq, const float * const * k, int64_t n, float * s, int64_t lds, int64_t nk_keep) {
    V acc[RB][4];
    for (int r = 0; r < RB; ++r) {
        for (int j = 0; j < 4; ++j) acc[r][j] = V::splat(0.0f);
    }
    int64_t d = 0;
    for (; d + V::kLanes <= n; d += V::kLanes) {
        const V k0 = V::load(k[0] + d), k1 = V::load(k[1] + d), k2 = V::load(k[2] + d), k3 = V::load(k[3] + d);
        for (int r = 0; r < RB; ++r) {
            const V qv = V::load(q + r * ldq + d);
            acc[r][0]  = vfma(qv, k0, acc[r][0]);
            acc[r][1]  = vfma(qv, k1, acc[r][1]);
            acc[r][2]  = vfma(qv, k2, acc[r][2]);
            acc[r][3]  = vfma(qv, k3, acc[r][3]);
        }
    }
    if (d < n) { // the partial vector: missing lanes read as 0
        const int64_t rest = n - d;
        const V k0 = V::load_partial(k[0] + d, rest), k1 = V::load_partial(k[1] + d, rest);
        const V k2 = V::load_partial(k[2] + d, rest), k3 = V::load_partial(k[3] + d, rest);
        for (int r = 0; r < RB; ++r) {
            const V qv = V::load_partial(q + r * ldq + d, rest);
            acc[r][0]  = vfma(qv, k0, acc[r][0]);
            acc[r][1]  = vfma(qv, k1, acc[r][1]);
            acc[r][2]  = vfma(qv, k2, acc[r][2]);
            acc[r][3]  = vfma(qv, k3, acc[r][3]);
        }
    }
    for (int r = 0; r < RB; ++r) {
        float sums[4];
        hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3], sums);
        std::copy(sums, sums + nk_keep, s + r * lds);
    }
}

template <class V, int RB>
void scores_rows(const float * q, int64_t ldq, int64_t nr, const float * k, int64_t ldk, int64_t nk, int64_t n, float * s, int64_t lds) {
    for (int64_t j = 0; j < nk; j += 4) {
        const int64_t keep = std::min<int64_t>(4, nk - j);
        const float * kr[4];
        for (int64_t c = 0; c < 4; ++c) kr[c] = k + (j + std::min(c, keep - 1)) * ldk;
        int64_t r = 0;
        for (; r + RB <= nr; r += RB) score_block<V, RB>(q + r * ldq, ldq, kr, n, s + r * lds + j, lds, keep);
        for (; r < nr; ++r) score_block<V, 1>(q + r * ldq, ldq, kr, n, s + r * lds + j, lds, keep);
    }
}

template <class V>
float finish_row_impl(float * s, const float * mv, int64_t n, float softcap) {
    const V ninf = V::splat(-INFINITY), cap = V::splat(softcap);
    V       mx   = ninf;
    for (int64_t j = 0; j < n; j += V::kLanes) {
        const int64_t w = std::min<int64_t>(V::kLanes, n - j);
        V             x = V::load_partial(s + j, w);
        if (softcap != 0.0f) {
            x = cap * vtanh(x);
        }
        if (mv != nullptr) {
            const V m = V::load_partial(mv + j, w);
            x         = select_gt(m, ninf, x + m, m); // -inf stays -inf, NaN stays NaN
        }
        if (w < V::kLanes) {
            x.store_partial(s + j, w);
            x = select_gt(V::splat(static_cast<float>(w)), V::load(kLaneIndex), x, ninf);
        } else {
            x.store(s + j);
        }
        mx = vmax(x, mx); // a NaN in x keeps mx
    }
    alignas(64) float lanes[V::kLanes];
    mx.store(lanes);
    float m = -INFINITY;
    for (float l : lanes) m = std::max(m, l);
    return m;
}

template <class V>
float exp_row_impl(float * s, int64_t n, float m) {
    const V vm  = V::splat(m);
    V       sum = V::splat(0.0f);
    for (int64_t j = 0; j < n; j += V::kLanes) {
        const int64_t w = std::min<int64_t>(V::kLanes, n - j);
        const V       e = vexp(V::load_partial(s + j, w) - vm);
        if (w < V::kLanes) {
            e.store_partial(s + j, w);
            sum = sum + select_gt(V::splat(static_cast<float>(w)), V::load(kLaneIndex), e, V::splat(0.0f));
        } else {
            e.store(s + j);
            sum = sum + e;
        }
    }
    return hsum(sum);
}

template <class V>
void scale_row_impl(float * o, int64_t n, float c) {
    const V vc = V::splat(c);
    for (int64_t d = 0; d < n; d += V::kLanes) {
        const int64_t w = std::min<int64_t>(V::kLanes, n - d);
        (V::load_partial(o + d, w) * vc).store_partial(o + d, w);
    }
}

// Columns [d, d + CB vectors) of RB rows of O, in registers over the nk keys.
template <class V, int RB, int CB>
void acc_block(float * o, int64_t ldo, const float * p, int64_t ldp, const float * v, int64_t ldv, int64_t nk) {
    V acc[RB][CB];
    for (int r = 0; r < RB; ++r) {
        for (int c = 0; c < CB; ++c) acc[r][c] = V::load(o + r * ldo + c * V::kLanes);
    }
    for (int64_t j = 0; j < nk; ++j) {
        V vv[CB];
        for (int c = 0; c < CB; ++c) vv[c] = V::load(v + j * ldv + c * V::kLanes);
        for (int r = 0; r < RB; ++r) {
            const V pr = V::splat(p[r * ldp + j]);
            for (int c = 0; c < CB; ++c) acc[r][c] = vfma(pr, vv[c], acc[r][c]);
        }
    }
    for (int r = 0; r < RB; ++r) {
        for (int c = 0; c < CB; ++c) acc[r][c].store(o + r * ldo + c * V::kLanes);
    }
}

// The same for one vector of which the first w lanes are O's columns.
template <class V, int RB>
void acc_block_tail(float * o, int64_t ldo, const float * p, int64_t ldp, const float * v, int64_t ldv, int64_t nk, int64_t w) {
    V acc[RB];
    for (int r = 0; r < RB; ++r) acc[r] = V::load_partial(o + r * ldo, w);
    for (int64_t j = 0; j < nk; ++j) {
        const V vv = V::load_partial(v + j * ldv, w);
        for (int r = 0; r < RB; ++r) acc[r] = vfma(V::splat(p[r * ldp + j]), vv, acc[r]);
    }
    for (int r = 0; r < RB; ++r) acc[r].store_partial(o + r * ldo, w);
}

template <class V, int RB>
void acc_rows_block(float * o, int64_t ldo, const float * p, int64_t ldp, const float * v, int64_t ldv, int64_t nk, int64_t n) {
    constexpr int64_t kWide = 4 * V::kLanes;
    int64_t           d     = 0;
    for (; d + kWide <= n; d += kWide) acc_block<V, RB, 4>(o + d, ldo, p, ldp, v + d, ldv, nk);
    for (; d + V::kLanes <= n; d += V::kLanes) acc_block<V, RB, 1>(o + d, ldo, p, ldp, v + d, ldv, nk);
    if (d < n) acc_block_tail<V, RB>(o + d, ldo, p, ldp, v + d, ldv, nk, n - d);
}

template <class V, int RB>
void accumulate_impl(float * o, int64_t ldo, int64_t nr, const float * p, int64_t ldp, const float * v, int64_t ldv, int64_t nk,
                     int64_t n) {
    int64_t r = 0;
    for (; r + RB <= nr; r += RB) acc_rows_block<V, RB>(o + r * ldo, ldo, p + r * ldp, ldp, v, ldv, nk, n);
    for (; r < nr; ++r) acc_rows_block<V, 1>(o + r * ldo, ldo, p + r * ldp, ldp, v, ldv, nk, n);
}

// RB: query rows per register block (scores: RB x 4 accumulators; accumulation: RB x 4 vectors of O).
template <class V, int RB>
AttnTileKernels make_attn_tile_kernels(const char * isa) {
    AttnTileKernels k{};
    k.scores     = scores_rows<V, RB>;
    k.finish_row = finish_row_impl<V>;
    k.exp_row    = exp_row_impl<V>;
    k.scale_row  = scale_row_impl<V>;
    k.accumulate = accumulate_impl<V, RB>;
    k.isa        = isa;
    return k;
}

} // namespace
} // namespace switchyard::cpu::kernels
