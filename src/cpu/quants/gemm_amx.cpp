// The integer GEMM tile on AMX (gemm.h): up to two panels (32 weight rows) times up to 32 activation columns.
// The panels hold signed levels here (gemm_pack_amx: u - bias, which fits in int8 for every format), so that per
// group one tdpbssd per (half of the columns, panel) (the columns' q8 levels as an A tile, the panel's quads as a
// B tile: G / 4 rows of 16 x 4 bytes) gives the exact 16 x 16 int32 sums C[column][row] with the bias already out
// of them. Per column one conversion and one or two multiply-adds then scale a panel's sums into the column's float
// accumulator group by group: acc += float(sum) * (s * da), then acc += m * (da * sum(q)) for the formats with a
// min (the VNNI tile's order for q8_0 / q8_1 activations; with q8_K ones the VNNI tile scales per super-block,
// gemm.h, so past 32 columns on AMX those products are not its bits).
//
// Two A and two B tiles feed four accumulator tiles (each tile load serves two products), and the tile unit and
// the AVX-512 scaling run side by side: per group the sums of group g are stored, the products of group g + 1 are
// issued, and then the sums of group g - 1 (stored one step earlier, so the loads never wait on a tile store) are
// scaled while the tile unit works (amx_tiles.h: run_tile_pipeline).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/amx_tiles.h"
#include "cpu/quants/gemm.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using Aux = GemmColumnAux;

constexpr int kHalf = kGemmAmxIntCols / 2; // columns per A tile

// Tiles (amx_tiles.h): tmm0 / tmm1 the sums of columns 0..15 with panel 0 / 1, tmm2 / tmm3 those of columns
// 16..31; tmm4 / tmm5 the two halves of the columns (A); tmm6 / tmm7 panel 0 / 1 (B). (GCC's tile intrinsics take
// the tile numbers as literals.)

// One group's place in the panels and the chunk.
struct Stream {
    const uint8_t * x;  // the chunk's groups
    const uint8_t * p0; // the panels' groups
    const uint8_t * p1;
    size_t          chunk_group; // bytes per group
    size_t          panel_group;
    size_t          levels; // bytes of a group's levels in a panel (the scales follow)
    int             group;

    const uint8_t * columns(int64_t g) const { return x + static_cast<size_t>(g) * chunk_group; }
    const Aux *     aux(int64_t g) const {
        return reinterpret_cast<const Aux *>(columns(g) + static_cast<size_t>(group) * kGemmAmxIntCols);
    }
    const uint8_t * panel(int p, int64_t g) const { return (p == 0 ? p0 : p1) + static_cast<size_t>(g) * panel_group; }
};

// The products of group g into the accumulator tiles (zeroed first).
template <bool kTwoPanels, bool kTwoHalves>
inline void issue(const Stream & st, int64_t g) {
    _tile_loadd(4, st.columns(g), st.group);
    _tile_loadd(6, st.panel(0, g), 64);
    _tile_zero(0);
    _tile_dpbssd(0, 4, 6);
    if constexpr (kTwoPanels) {
        _tile_loadd(7, st.panel(1, g), 64);
        _tile_zero(1);
        _tile_dpbssd(1, 4, 7);
    }
    if constexpr (kTwoHalves) {
        _tile_loadd(5, st.columns(g) + static_cast<size_t>(kHalf) * st.group, st.group);
        _tile_zero(2);
        _tile_dpbssd(2, 5, 6);
        if constexpr (kTwoPanels) {
            _tile_zero(3);
            _tile_dpbssd(3, 5, 7);
        }
    }
}

// One group's sums: [panel][column] x 16 rows.
struct alignas(64) Sums {
    int32_t v[2][kGemmAmxIntCols][16];
};

template <bool kTwoPanels, bool kTwoHalves>
inline void store(Sums & s) {
    _tile_stored(0, s.v[0][0], 64);
    if constexpr (kTwoPanels) {
        _tile_stored(1, s.v[1][0], 64);
    }
    if constexpr (kTwoHalves) {
        _tile_stored(2, s.v[0][kHalf], 64);
        if constexpr (kTwoPanels) {
            _tile_stored(3, s.v[1][kHalf], 64);
        }
    }
}

// acc[c] += the scaled sums of column c (c < n) for one panel's group: s_m the panel's 16 scales and 16 min terms.
template <bool kMin>
inline void scale_into(float (*acc)[16], const int32_t (*sums)[16], const Aux * aux, const float * s_m, int n) {
    const __m512 s = _mm512_loadu_ps(s_m);
    const __m512 m = _mm512_loadu_ps(s_m + kGemmRows);
    for (int c = 0; c < n; ++c) {
        const __m512 v  = _mm512_maskz_cvtepi32_ps(0xffff, _mm512_load_si512(sums[c])); // (maskz: GCC 12 warns on the plain form)
        const __m512 sd = _mm512_mul_ps(s, _mm512_set1_ps(aux[c].da));
        __m512       a  = _mm512_fmadd_ps(v, sd, _mm512_load_ps(acc[c]));
        if constexpr (kMin) {
            float min_sum;
            std::memcpy(&min_sum, &aux[c].word, sizeof(min_sum));
            a = _mm512_fmadd_ps(m, _mm512_set1_ps(min_sum), a);
        }
        _mm512_store_ps(acc[c], a);
    }
}

template <bool kMin, bool kTwoPanels, bool kTwoHalves>
struct Pipeline {
    const Stream & st;
    int            n;
    int64_t        ng;
    Sums           sums[2]; // by group parity
    alignas(64) float acc[2][kGemmAmxIntCols][16]; // [panel][column]

    void scale(int64_t g) {
        const Sums & s = sums[g % 2];
        scale_into<kMin>(acc[0], s.v[0], st.aux(g), reinterpret_cast<const float *>(st.panel(0, g) + st.levels), n);
        if constexpr (kTwoPanels) {
            scale_into<kMin>(acc[1], s.v[1], st.aux(g), reinterpret_cast<const float *>(st.panel(1, g) + st.levels), n);
        }
    }

    void run() {
        std::memset(acc, 0, sizeof(acc));
        run_tile_pipeline(
            ng, [&](int64_t g) { issue<kTwoPanels, kTwoHalves>(st, g); },
            [&](int64_t g) { store<kTwoPanels, kTwoHalves>(sums[g % 2]); }, [&](int64_t g) { scale(g); });
    }
};

template <bool kMin, bool kTwoPanels, bool kTwoHalves>
void tile(const GemmFormat & f, const GemmTileArgs & a) {
    const int     n     = a.n_cols;
    const int     group = f.group;
    const int     lo    = kTwoHalves ? kHalf : n; // columns of the first A tile; n - lo of the second
    AmxTileConfig cfg;
    cfg.set(0, lo, 64); // unused tiles stay unset (rows and bytes 0: ldtilecfg faults on a half-set one)
    cfg.set(4, lo, group);
    cfg.set(6, group / 4, 64);
    if constexpr (kTwoPanels) {
        cfg.set(1, lo, 64);
        cfg.set(7, group / 4, 64);
    }
    if constexpr (kTwoHalves) {
        cfg.set(2, n - lo, 64);
        cfg.set(5, n - lo, group);
        if constexpr (kTwoPanels) {
            cfg.set(3, n - lo, 64);
        }
    }
    _tile_loadconfig(&cfg);

    const size_t levels = static_cast<size_t>(group) * kGemmRows;
    const Stream st{static_cast<const uint8_t *>(a.chunk),
                    static_cast<const uint8_t *>(a.panel),
                    static_cast<const uint8_t *>(a.panel2),
                    static_cast<size_t>(group) * kGemmAmxIntCols + kGemmAmxIntCols * sizeof(Aux),
                    levels + 2 * kGemmRows * sizeof(float), // gemm_group_bytes
                    levels,
                    group};
    Pipeline<kMin, kTwoPanels, kTwoHalves> pipe{st, n, a.k / group, {}, {}};
    pipe.run();
    _tile_release();

    const __mmask16 rows0 = static_cast<__mmask16>((1u << a.rows) - 1u);
    const __mmask16 rows1 = static_cast<__mmask16>((1u << a.rows2) - 1u);
    for (int c = 0; c < n; ++c) {
        _mm512_mask_storeu_ps(a.out + c * a.out_col, rows0, _mm512_load_ps(pipe.acc[0][c]));
        if constexpr (kTwoPanels) {
            _mm512_mask_storeu_ps(a.out + kGemmRows + c * a.out_col, rows1, _mm512_load_ps(pipe.acc[1][c]));
        }
    }
}

template <bool kMin, bool kTwoPanels>
void tile_halves(const GemmFormat & f, const GemmTileArgs & a) {
    a.n_cols > kHalf ? tile<kMin, kTwoPanels, true>(f, a) : tile<kMin, kTwoPanels, false>(f, a);
}

} // namespace

bool gemm_pack_amx_int(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const GemmFormat f = gemm_format(weight);
    if (f.superblocks) {
        gemm_pack_amx_superblocks(weight, w, w_row, rows, k, panel);
        return true;
    }
    gemm_pack(weight, w, w_row, rows, k, panel);
    // u - bias as an int8 (-128..127 for every format): 16 x G level bytes per group, G / 4 zmm
    const __m512i bias = _mm512_set1_epi8(static_cast<char>(f.bias));
    auto *        p    = static_cast<uint8_t *>(panel);
    for (int64_t g = 0; g < k / f.group; ++g, p += gemm_group_bytes(f)) {
        for (int q = 0; q < f.group / 4; ++q) {
            _mm512_storeu_si512(p + q * 64, _mm512_sub_epi8(_mm512_loadu_si512(p + q * 64), bias));
        }
    }
    return true;
}

void gemm_tile_amx_int(const GemmFormat & f, const GemmTileArgs & a) {
    static_assert(kGemmRows == 16 && kGemmAmxIntCols == 32, "a tile holds 16 rows; two A tiles hold the columns");
    if (f.superblocks) {
        gemm_tile_amx_superblocks(f, a);
        return;
    }
    const bool two = a.panel2 != nullptr;
    if (f.has_min) {
        two ? tile_halves<true, true>(f, a) : tile_halves<true, false>(f, a);
    } else {
        two ? tile_halves<false, true>(f, a) : tile_halves<false, false>(f, a);
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
