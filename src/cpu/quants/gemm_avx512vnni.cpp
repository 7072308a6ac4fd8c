// The integer GEMM tile on AVX-512 VNNI (gemm.h): 16 weight rows (the lanes of a zmm), or two panels' 32, times up
// to 8 activation columns. Per group and column, G / 4 vpdpbusd add the biased levels' products (a quad of the panel
// is one zmm, the column's four levels are broadcast), starting from the column's -bias * sum(q); then a conversion
// and multiply-adds scale the group into the column's float accumulator, in gemm.h's float order.
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

// One group's integer sums of kPanels panels times kCols columns: acc[i][c] from the column's -bias * sum(q) (zero
// with a min term), G / 4 vpdpbusd each; p: the panels' groups, x: the chunk's group.
template <int kCols, int kQuads, bool kMin, int kPanels>
inline void group_sums(const uint8_t * const * p, const uint8_t * x, const Aux * aux, __m512i (*acc)[kCols]) {
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
}

inline float min_sum_of(const Aux & aux) {
    float v;
    std::memcpy(&v, &aux.word, sizeof(v));
    return v;
}

// kPanels 2: the call's two panels (GemmTileArgs::panel2) in one pass, each broadcast column word feeding both (on a
// Zen 5 core the tile alone, its panels in L2, ran 1.2 x the one-panel pass). Each output's arithmetic is the
// one-panel tile's, so the products are the same bits. kSb: the super-block order (gemm.h: q8_K activations), the
// groups of a super-block summed in t before one multiply-add by the column's da.
template <int kCols, int kQuads, bool kMin, int kPanels, bool kSb>
void tile(const GemmTileArgs & a) {
    constexpr size_t  kGroup      = kQuads * 4;
    constexpr size_t  kGroupBytes = kGroup * kGemmRows + 2 * kGemmRows * sizeof(float);
    constexpr size_t  kChunkBytes = kGroup * kGemmMaxCols + kGemmMaxCols * sizeof(Aux);
    constexpr int64_t kPer        = kSb ? kGemmSuperblock / static_cast<int64_t>(kGroup) : 1; // groups per scaling
    const int64_t     ng          = a.k / static_cast<int64_t>(kGroup);
    const uint8_t *   p[kPanels];
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
    for (int64_t g0 = 0; g0 < ng; g0 += kPer) {
        // the super-block's da (its first group's)
        [[maybe_unused]] const auto * aux0 = reinterpret_cast<const Aux *>(x + kGroup * kGemmMaxCols);
        __m512       t[kPanels][kCols]; // the super-block's sums before da (kSb; unused otherwise)
        for (int i = 0; i < kPanels; ++i) {
            for (int c = 0; c < kCols; ++c) {
                t[i][c] = _mm512_setzero_ps();
            }
        }
        for (int64_t g = 0; g < kPer; ++g, x += kChunkBytes) {
            const auto * aux = reinterpret_cast<const Aux *>(x + kGroup * kGemmMaxCols);
            __m512i      acc[kPanels][kCols];
            group_sums<kCols, kQuads, kMin, kPanels>(p, x, aux, acc);
            for (int i = 0; i < kPanels; ++i) {
                const __m512 s = _mm512_loadu_ps(p[i] + kGroup * kGemmRows);
                const __m512 m = _mm512_loadu_ps(p[i] + kGroup * kGemmRows + kGemmRows * sizeof(float));
                for (int c = 0; c < kCols; ++c) {
                    // into the super-block's t by s, or into the output by s * da
                    __m512 &     into   = kSb ? t[i][c] : out[i][c];
                    const __m512 factor = kSb ? s : _mm512_mul_ps(s, _mm512_set1_ps(aux[c].da));
                    into = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xffff, acc[i][c]), factor, into);
                    if constexpr (kMin) {
                        into = _mm512_fmadd_ps(m, _mm512_set1_ps(min_sum_of(aux[c])), into);
                    }
                }
                p[i] += kGroupBytes;
            }
        }
        if constexpr (kSb) {
            for (int i = 0; i < kPanels; ++i) {
                for (int c = 0; c < kCols; ++c) {
                    out[i][c] = _mm512_fmadd_ps(t[i][c], _mm512_set1_ps(aux0[c].da), out[i][c]);
                }
            }
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

template <int kQuads, bool kMin, bool kSb>
void tile_cols(const GemmTileArgs & a) {
    if (a.panel2 != nullptr) {
        with_cols(a.n_cols, [&](auto c) { tile<decltype(c)::value, kQuads, kMin, 2, kSb>(a); });
    } else {
        with_cols(a.n_cols, [&](auto c) { tile<decltype(c)::value, kQuads, kMin, 1, kSb>(a); });
    }
}

template <bool kSb>
void tile_format(const GemmFormat & f, const GemmTileArgs & a) {
    if (f.group == 32) {
        f.has_min ? tile_cols<8, true, kSb>(a) : tile_cols<8, false, kSb>(a);
    } else {
        f.has_min ? tile_cols<4, true, kSb>(a) : tile_cols<4, false, kSb>(a);
    }
}

} // namespace

void gemm_tile_avx512vnni(const GemmFormat & f, const GemmTileArgs & a) {
    static_assert(kGemmRows == 16 && kGemmMaxCols == 8, "the tile holds 16 rows in a zmm and 8 columns");
    gemm_scales_per_superblock(f) ? tile_format<true>(f, a) : tile_format<false>(f, a);
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
