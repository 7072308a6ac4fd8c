// The steps of tile.h written once over a Vec type (simd/vec_scalar.h); included only by the files that
// instantiate them (tile.cpp, flash_attn_avx2.cpp, flash_attn_avx512.cpp). Unnamed namespace: every
// translation unit keeps its own copies, so an AVX2 instantiation is never the one the scalar path links to.
//
// Layouts are row-major throughout: Q rows (queries of one GQA group), K and V rows (keys of one tile), score rows
// (one per query row, one column per key), O rows (one per query row). Scores are dot products with the lanes along
// the head dimension, reduced by hsum4 (four dot products at once); the accumulation keeps O in registers across
// the keys of the tile and broadcasts one probability per row and key.
// K and V rows may be f32 or f16 (converted as loaded: the results are the same).
#pragma once

#include "cpu/kernels/flash_attn/tile.h"
#include "cpu/simd/vec_scalar.h"

#include "base/fp16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace switchyard::cpu::kernels {
namespace {

using simd::VecScalar;

// Lane numbers, to blend away the lanes past a row's end.
alignas(64) constexpr float kLaneIndex[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// Loads of V lanes from f16 (converted exactly); the ISA files specialise the full load.
template <class V>
struct HalfLoad {
    static V load_partial(const uint16_t * p, int64_t n) {
        alignas(64) float t[V::kLanes] = {};
        for (int64_t i = 0; i < std::min<int64_t>(n, V::kLanes); ++i) t[i] = fp16_to_fp32(p[i]);
        return V::load(t);
    }
    static V load(const uint16_t * p) { return load_partial(p, V::kLanes); }
};

#if defined(SWITCHYARD_SIMD_HAVE_AVX2)
template <>
inline simd::VecAvx2 HalfLoad<simd::VecAvx2>::load(const uint16_t * p) {
    return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)))};
}
#endif
#if defined(SWITCHYARD_SIMD_HAVE_AVX512)
template <>
inline simd::VecAvx512 HalfLoad<simd::VecAvx512>::load(const uint16_t * p) {
    return {_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)))};
}
#endif

// Rows of f16 are read straight from K / V in memory, once: the kernels that read them prefetch the rows
// kStreamAhead bytes ahead into L2 as they go (a burst per tile would stall on the fill buffers).
constexpr int64_t kStreamAhead = 4096;

// Prefetches the lines of [p, p + bytes) of a row kStreamAhead bytes of rows ahead (f16 rows only: float rows
// are scratch, already in cache). ld: elements between rows.
template <class T>
void prefetch_ahead(const T * p, int64_t ld, int64_t bytes) {
    if constexpr (sizeof(T) == sizeof(uint16_t)) {
        const int64_t row   = ld * static_cast<int64_t>(sizeof(T));
        const char *  ahead = reinterpret_cast<const char *>(p) + std::max<int64_t>(1, kStreamAhead / row) * row;
        for (int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(ahead + o, 0, 2);
    }
}

template <class V>
V load_at(const float * p) {
    return V::load(p);
}
template <class V>
V load_at(const uint16_t * p) {
    return HalfLoad<V>::load(p);
}
template <class V>
V load_partial_at(const float * p, int64_t n) {
    return V::load_partial(p, n);
}
template <class V>
V load_partial_at(const uint16_t * p, int64_t n) {
    return HalfLoad<V>::load_partial(p, n);
}

// hsum4 (the four lane sums at once) is the Vec concept's: one reduction tree per ISA, the same for every call.

// The lane sums of RB x 4 dot products into s[r * lds + j] for j < nk_keep.
template <class V, int RB>
void store_sums(const V (&acc)[RB][4], float * s, int64_t lds, int64_t nk_keep) {
    for (int r = 0; r < RB; ++r) {
        float sums[4];
        hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3], sums);
        std::copy(sums, sums + nk_keep, s + r * lds);
    }
}

#if defined(SWITCHYARD_SIMD_HAVE_AVX512)
// Four rows at once: every sum is hsum4's (the same additions in the same order, so a row's scores do not depend
// on the rows computed with it), in 31 shuffles instead of 44.
inline void store_sums(const simd::VecAvx512 (&acc)[4][4], float * s, int64_t lds, int64_t nk_keep) {
    __m512 q[4];
    for (int r = 0; r < 4; ++r) {
        __m512 half[2]; // [keys 0 | 1] and [keys 2 | 3], each the low + high 256 bits of its key
        for (int h = 0; h < 2; ++h) {
            const __m512 a = acc[r][2 * h].v, b = acc[r][2 * h + 1].v;
            half[h]        = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                                           _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
        }
        q[r] = _mm512_add_ps(_mm512_unpacklo_ps(half[0], half[1]), _mm512_unpackhi_ps(half[0], half[1]));
    }
    const auto pair = [](__m512 a, __m512 b) {
        return _mm512_add_ps(_mm512_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
    };
    const __m512 s01 = pair(q[0], q[1]), s23 = pair(q[2], q[3]);
    const __m512 sum = _mm512_add_ps(_mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
                                     _mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
    // sum's 128-bit lanes: [r0k0 r0k2 r1k0 r1k2] [r0k1 r0k3 r1k1 r1k3] [r2k0 r2k2 r3k0 r3k2] [r2k1 r2k3 r3k1 r3k3]
    const __m512i     order = _mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    alignas(64) float sums[16];
    _mm512_store_ps(sums, _mm512_permutexvar_ps(order, sum));
    for (int r = 0; r < 4; ++r) std::copy(sums + 4 * r, sums + 4 * r + nk_keep, s + r * lds);
}
#endif

// Scores of RB query rows against 4 key rows k[0..3] (some may repeat a row: the caller keeps only nk_keep).
template <class V, int RB, class T>
void score_block(const float * q, int64_t ldq, const T * const * k, int64_t n, float * s, int64_t lds, int64_t nk_keep) {
    V acc[RB][4];
    for (int r = 0; r < RB; ++r) {
        for (int j = 0; j < 4; ++j) acc[r][j] = V::splat(0.0f);
    }
    int64_t d = 0;
    for (; d + V::kLanes <= n; d += V::kLanes) {
        const V k0 = load_at<V>(k[0] + d), k1 = load_at<V>(k[1] + d), k2 = load_at<V>(k[2] + d), k3 = load_at<V>(k[3] + d);
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
        const V k0 = load_partial_at<V>(k[0] + d, rest), k1 = load_partial_at<V>(k[1] + d, rest);
        const V k2 = load_partial_at<V>(k[2] + d, rest), k3 = load_partial_at<V>(k[3] + d, rest);
        for (int r = 0; r < RB; ++r) {
            const V qv = V::load_partial(q + r * ldq + d, rest);
            acc[r][0]  = vfma(qv, k0, acc[r][0]);
            acc[r][1]  = vfma(qv, k1, acc[r][1]);
            acc[r][2]  = vfma(qv, k2, acc[r][2]);
            acc[r][3]  = vfma(qv, k3, acc[r][3]);
        }
    }
    store_sums(acc, s, lds, nk_keep);
}

template <class V, int RB, class T>
void scores_rows(const float * q, int64_t ldq, int64_t nr, const T * k, int64_t ldk, int64_t nk, int64_t n, float * s, int64_t lds) {
    for (int64_t j = 0; j < nk; j += 4) {
        const int64_t keep = std::min<int64_t>(4, nk - j);
        const T *     kr[4];
        for (int64_t c = 0; c < 4; ++c) kr[c] = k + (j + std::min(c, keep - 1)) * ldk;
        for (int64_t c = 0; c < keep; ++c) prefetch_ahead(kr[c], ldk, n * static_cast<int64_t>(sizeof(T)));
        int64_t r = 0;
        for (; r + RB <= nr; r += RB) score_block<V, RB>(q + r * ldq, ldq, kr, n, s + r * lds + j, lds, keep);
        for (; r < nr; ++r) score_block<V, 1>(q + r * ldq, ldq, kr, n, s + r * lds + j, lds, keep);
    }
}

template <class V>
void convert_f16_impl(const uint16_t * src, int64_t lds, int64_t nk, int64_t n, float * dst, int64_t ldd) {
    for (int64_t j = 0; j < nk; ++j) {
        int64_t d = 0;
        for (; d + V::kLanes <= n; d += V::kLanes) load_at<V>(src + j * lds + d).store(dst + j * ldd + d);
        for (; d < n; ++d) dst[j * ldd + d] = fp16_to_fp32(src[j * lds + d]);
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
template <class V, int RB, int CB, class T>
void acc_block(float * o, int64_t ldo, const float * p, int64_t ldp, const T * v, int64_t ldv, int64_t nk) {
    V acc[RB][CB];
    for (int r = 0; r < RB; ++r) {
        for (int c = 0; c < CB; ++c) acc[r][c] = V::load(o + r * ldo + c * V::kLanes);
    }
    for (int64_t j = 0; j < nk; ++j) {
        prefetch_ahead(v + j * ldv, ldv, CB * V::kLanes * static_cast<int64_t>(sizeof(T)));
        V vv[CB];
        for (int c = 0; c < CB; ++c) vv[c] = load_at<V>(v + j * ldv + c * V::kLanes);
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
template <class V, int RB, class T>
void acc_block_tail(float * o, int64_t ldo, const float * p, int64_t ldp, const T * v, int64_t ldv, int64_t nk, int64_t w) {
    V acc[RB];
    for (int r = 0; r < RB; ++r) acc[r] = V::load_partial(o + r * ldo, w);
    for (int64_t j = 0; j < nk; ++j) {
        const V vv = load_partial_at<V>(v + j * ldv, w);
        for (int r = 0; r < RB; ++r) acc[r] = vfma(V::splat(p[r * ldp + j]), vv, acc[r]);
    }
    for (int r = 0; r < RB; ++r) acc[r].store_partial(o + r * ldo, w);
}

template <class V, int RB, class T>
void acc_rows_block(float * o, int64_t ldo, const float * p, int64_t ldp, const T * v, int64_t ldv, int64_t nk, int64_t n) {
    constexpr int64_t kWide = 4 * V::kLanes;
    int64_t           d     = 0;
    for (; d + kWide <= n; d += kWide) acc_block<V, RB, 4, T>(o + d, ldo, p, ldp, v + d, ldv, nk);
    for (; d + V::kLanes <= n; d += V::kLanes) acc_block<V, RB, 1, T>(o + d, ldo, p, ldp, v + d, ldv, nk);
    if (d < n) acc_block_tail<V, RB>(o + d, ldo, p, ldp, v + d, ldv, nk, n - d);
}

// The last nr < RB rows: one block of nr rows.
template <class V, int RB, class T>
void acc_rows_rest(float * o, int64_t ldo, int64_t nr, const float * p, int64_t ldp, const T * v, int64_t ldv, int64_t nk, int64_t n) {
    if constexpr (RB > 1) {
        if (nr == RB - 1) {
            acc_rows_block<V, RB - 1, T>(o, ldo, p, ldp, v, ldv, nk, n);
        } else {
            acc_rows_rest<V, RB - 1, T>(o, ldo, nr, p, ldp, v, ldv, nk, n);
        }
    }
}

template <class V, int RB, class T>
void accumulate_impl(float * o, int64_t ldo, int64_t nr, const float * p, int64_t ldp, const T * v, int64_t ldv, int64_t nk,
                     int64_t n) {
    int64_t r = 0;
    for (; r + RB <= nr; r += RB) acc_rows_block<V, RB, T>(o + r * ldo, ldo, p + r * ldp, ldp, v, ldv, nk, n);
    if (r < nr) acc_rows_rest<V, RB, T>(o + r * ldo, ldo, nr - r, p + r * ldp, ldp, v, ldv, nk, n);
}

// RB: query rows per register block of scores (RB x 4 accumulators). TB: rows per register block of the
// accumulation (TB x 4 vectors of O).
template <class V, int RB, int TB>
AttnTileKernels make_attn_tile_kernels(const char * isa) {
    AttnTileKernels k{};
    k.scores         = scores_rows<V, RB, float>;
    k.scores_f16     = scores_rows<V, RB, uint16_t>;
    k.convert_f16    = convert_f16_impl<V>;
    k.finish_row     = finish_row_impl<V>;
    k.exp_row        = exp_row_impl<V>;
    k.scale_row      = scale_row_impl<V>;
    k.accumulate     = accumulate_impl<V, TB, float>;
    k.accumulate_f16 = accumulate_impl<V, TB, uint16_t>;
    k.isa            = isa;
    return k;
}

} // namespace
} // namespace switchyard::cpu::kernels
