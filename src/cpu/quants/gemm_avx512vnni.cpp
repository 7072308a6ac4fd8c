// The integer GEMM tile on AVX-512 VNNI (gemm.h): 16 weight rows (the lanes of a zmm), or two panels' 32, times up
// to 8 activation columns. Per group and column, G / 4 vpdpbusd add the biased levels' products (a quad of the panel
// is one zmm, the column's four levels are broadcast), starting from the column's -bias * sum(q); then one
// conversion and two multiply-adds scale the group into the column's float accumulator.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_cols.h"

#include <immintrin.h>

#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using Aux = GemmColumnAux;

inline int32_t load_i32(const void * p) {
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// kPanels 2: the call's two panels (GemmTileArgs::panel2) in one pass, each broadcast column word feeding both (on a
// Zen 5 core the tile alone, its panels in L2, ran 1.2 x the one-panel pass). Each output's arithmetic is the
// one-panel tile's, so the products are the same bits.
template <int kCols, int kQuads, bool kMin, int kPanels>
void tile(const GemmTileArgs & a) {
    constexpr size_t kGroup      = kQuads * 4;
    constexpr size_t kGroupBytes = kGroup * kGemmRows + 2 * kGemmRows * sizeof(float);
    constexpr size_t kChunkBytes = kGroup * kGemmMaxCols + kGemmMaxCols * sizeof(Aux);
    const int64_t    ng          = a.k / static_cast<int64_t>(kGroup);
    const uint8_t *  p[kPanels];
    p[0] = static_cast<const uint8_t *>(a.panel);
    if constexpr (kPanels == 2) {
        p[1] = static_cast<const uint8_t *>(a.panel2);
    }
    const auto * x = static_cast<const uint8_t *>(a.chunk);
    __m512       out[kPanels][kCols];
    for (int i = 0; i < kPanels; ++i) {
        for (int c = 0; c < kCols; ++c) {
            out[i][c] = _mm512_setzero_ps();
        }
    }
    for (int64_t g = 0; g < ng; ++g, x += kChunkBytes) {
        const auto * aux = reinterpret_cast<const Aux *>(x + kGroup * kGemmMaxCols);
        __m512i      acc[kPanels][kCols];
        for (int c = 0; c < kCols; ++c) {
            const __m512i start = kMin ? _mm512_setzero_si512() : _mm512_set1_epi32(aux[c].word);
            for (int i = 0; i < kPanels; ++i) {
                acc[i][c] = start;
            }
        }
        for (int q = 0; q < kQuads; ++q) {
            __m512i w[kPanels];
            for (int i = 0; i < kPanels; ++i) {
                w[i] = _mm512_loadu_si512(p[i] + q * 64);
            }
            for (int c = 0; c < kCols; ++c) {
                const __m512i xc = _mm512_set1_epi32(load_i32(x + (q * kGemmMaxCols + c) * 4));
                for (int i = 0; i < kPanels; ++i) {
                    acc[i][c] = _mm512_dpbusd_epi32(acc[i][c], w[i], xc);
                }
            }
        }
        for (int i = 0; i < kPanels; ++i) {
            const __m512 s = _mm512_loadu_ps(p[i] + kGroup * kGemmRows);
            const __m512 m = _mm512_loadu_ps(p[i] + kGroup * kGemmRows + kGemmRows * sizeof(float));
            for (int c = 0; c < kCols; ++c) {
                const __m512 sd = _mm512_mul_ps(s, _mm512_set1_ps(aux[c].da));
                out[i][c]       = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xffff, acc[i][c]), sd, out[i][c]);
                if constexpr (kMin) {
                    float min_sum;
                    std::memcpy(&min_sum, &aux[c].word, sizeof(min_sum));
                    out[i][c] = _mm512_fmadd_ps(m, _mm512_set1_ps(min_sum), out[i][c]);
                }
            }
            p[i] += kGroupBytes;
        }
    }
    for (int i = 0; i < kPanels; ++i) {
        const int       rows = i == 0 ? a.rows : a.rows2;
        const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1u);
        for (int c = 0; c < kCols; ++c) {
            _mm512_mask_storeu_ps(a.out + i * kGemmRows + c * a.out_col, mask, out[i][c]);
        }
    }
}

template <int kQuads, bool kMin>
void tile_cols(const GemmTileArgs & a) {
    if (a.panel2 != nullptr) {
        with_cols(a.n_cols, [&](auto c) { tile<decltype(c)::value, kQuads, kMin, 2>(a); });
    } else {
        with_cols(a.n_cols, [&](auto c) { tile<decltype(c)::value, kQuads, kMin, 1>(a); });
    }
}

} // namespace

void gemm_tile_avx512vnni(const GemmFormat & f, const GemmTileArgs & a) {
    static_assert(kGemmRows == 16 && kGemmMaxCols == 8, "the tile holds 16 rows in a zmm and 8 columns");
    if (f.group == 32) {
        f.has_min ? tile_cols<8, true>(a) : tile_cols<8, false>(a);
    } else {
        f.has_min ? tile_cols<4, true>(a) : tile_cols<4, false>(a);
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
