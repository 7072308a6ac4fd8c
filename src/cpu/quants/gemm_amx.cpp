// The integer GEMM tile on AMX (gemm.h): up to two panels (32 weight rows) times up to 16 activation columns.
// Per group, one tdpbsud per panel (the columns' signed q8 levels as the A tile, the panel's biased unsigned
// levels as the B tile: G / 4 rows of 16 x 4 bytes, exactly the panel's quads) gives the 16 x 16 int32 sums
// C[column][row]; they are stored, and per column one vector add of the column's -bias * sum(q), one conversion
// and one or two multiply-adds scale them into the column's float accumulator, as the VNNI tile does.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/amx_tiles.h"
#include "cpu/quants/gemm.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using Aux = GemmColumnAux;

// Tiles (amx_tiles.h): tmm0 / tmm1 the sums of panel 0 / 1; tmm2 the columns (A); tmm3 / tmm4 panel 0 / 1 (B).

// acc[c] += scaled sums of column c (c < n) for one panel's group: sums[c] (16 int32, row r in lane r), s / m the
// panel's 16 scales and min terms.
template <bool kMin>
inline void scale_into(__m512 * acc, const int32_t * sums, const Aux * aux, const float * s_m, int n) {
    const __m512 s = _mm512_loadu_ps(s_m);
    const __m512 m = _mm512_loadu_ps(s_m + kGemmRows);
    for (int c = 0; c < n; ++c) {
        __m512i v = _mm512_load_si512(sums + c * 16);
        if constexpr (!kMin) {
            v = _mm512_add_epi32(v, _mm512_set1_epi32(aux[c].word));
        }
        const __m512 sd = _mm512_mul_ps(s, _mm512_set1_ps(aux[c].da));
        acc[c]          = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xffff, v), sd, acc[c]); // (maskz: GCC 12 warns on the plain form)
        if constexpr (kMin) {
            float min_sum;
            std::memcpy(&min_sum, &aux[c].word, sizeof(min_sum));
            acc[c] = _mm512_fmadd_ps(m, _mm512_set1_ps(min_sum), acc[c]);
        }
    }
}

template <bool kMin, bool kTwoPanels>
void tile(const GemmFormat & f, const GemmTileArgs & a) {
    const int    n     = a.n_cols;
    const int    group = f.group;
    AmxTileConfig cfg;
    cfg.set(0, n, 64);
    cfg.set(2, n, group);
    cfg.set(3, group / 4, 64);
    if constexpr (kTwoPanels) {
        cfg.set(1, n, 64);
        cfg.set(4, group / 4, 64);
    }
    _tile_loadconfig(&cfg);

    const size_t levels      = static_cast<size_t>(group) * kGemmRows;
    const size_t group_bytes = levels + 2 * kGemmRows * sizeof(float); // gemm_group_bytes
    const size_t chunk_group = static_cast<size_t>(group) * kGemmAmxIntCols + kGemmAmxIntCols * sizeof(Aux);
    const auto * x           = static_cast<const uint8_t *>(a.chunk);
    const auto * p0          = static_cast<const uint8_t *>(a.panel);
    const auto * p1          = static_cast<const uint8_t *>(a.panel2);
    alignas(64) int32_t sums0[16 * 16], sums1[16 * 16];
    __m512              acc0[16], acc1[16];
    for (int c = 0; c < 16; ++c) {
        acc0[c] = acc1[c] = _mm512_setzero_ps();
    }
    const int64_t ng = a.k / group;
    for (int64_t g = 0; g < ng; ++g, x += chunk_group, p0 += group_bytes) {
        const auto * aux = reinterpret_cast<const Aux *>(x + static_cast<size_t>(group) * kGemmAmxIntCols);
        _tile_zero(0);
        _tile_loadd(2, x, group);
        _tile_loadd(3, p0, 64);
        _tile_dpbsud(0, 2, 3);
        if constexpr (kTwoPanels) {
            _tile_zero(1);
            _tile_loadd(4, p1, 64);
            _tile_dpbsud(1, 2, 4);
            _tile_stored(1, sums1, 64);
        }
        _tile_stored(0, sums0, 64);
        scale_into<kMin>(acc0, sums0, aux, reinterpret_cast<const float *>(p0 + levels), n);
        if constexpr (kTwoPanels) {
            scale_into<kMin>(acc1, sums1, aux, reinterpret_cast<const float *>(p1 + levels), n);
            p1 += group_bytes;
        }
    }
    _tile_release();
    const __mmask16 rows0 = static_cast<__mmask16>((1u << a.rows) - 1u);
    const __mmask16 rows1 = static_cast<__mmask16>((1u << a.rows2) - 1u);
    for (int c = 0; c < n; ++c) {
        _mm512_mask_storeu_ps(a.out + c * a.out_col, rows0, acc0[c]);
        if constexpr (kTwoPanels) {
            _mm512_mask_storeu_ps(a.out + kGemmRows + c * a.out_col, rows1, acc1[c]);
        }
    }
}

} // namespace

void gemm_tile_amx_int(const GemmFormat & f, const GemmTileArgs & a) {
    static_assert(kGemmRows == 16 && kGemmAmxIntCols == 16, "a tile holds 16 rows and 16 columns");
    const bool two = a.panel2 != nullptr;
    if (f.has_min) {
        two ? tile<true, true>(f, a) : tile<true, false>(f, a);
    } else {
        two ? tile<false, true>(f, a) : tile<false, false>(f, a);
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
