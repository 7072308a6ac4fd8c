// The AMX integer GEMM's super-block form (gemm.h: GemmFormat::superblocks) for q4_K, q5_K (groups of 32 with
// 6-bit scales and mins) and q6_K (groups of 16 with int8 scales, levels biased by 32): integer group scales sc
// under one d per 256 elements. Per super-block the weight levels are multiplied by their scales at packing
// (w = sc * (u - bias): q4_K / q5_K 0..1953, q6_K -4096..4064), split into a low byte L (unsigned) and a high byte
// H (signed), and laid out as B tiles of 64-byte rows: per super-block, L as [4 steps of 64 elements][16 quads][16
// rows][4 bytes], H likewise, then d (16 floats) and the min terms m = -dmin * min (8 groups x 16 rows, floats;
// zero for q6_K). The tile then sums a whole super-block in integers (the columns' signed q8_K levels times L with
// tdpbsud, times H with tdpbssd, K = 64 per product): sum(w * q) = 256 * sum(H * q) + sum(L * q), exact in int32;
// AVX-512 applies one float scale d * da per super-block (and for q4_K / q5_K the eight min terms m * (da *
// sum(q)), the activation chunk's per-group sums), instead of a scale per group.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/amx_tiles.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/type_rows.h"

#include <immintrin.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {

namespace {

constexpr int    kSteps     = kQK_K / 64;                       // K = 64 per tile product
constexpr int    kGroups    = kQK_K / kQK32;                    // groups of 32 per super-block
constexpr size_t kStepBytes = static_cast<size_t>(64) * kGemmRows; // one B tile
constexpr int    kHalf      = kGemmAmxIntCols / 2;              // columns per A tile

// ---- packing ---------------------------------------------------------------------------------------------------

// The panel's super-block sb (gemm.h's byte offsets).
struct SbPanel {
    uint8_t * l;
    uint8_t * h;
    float *   d;
    float *   m; // [group][row]
};

SbPanel sb_panel(void * panel, int64_t sb) {
    auto * p = static_cast<uint8_t *>(panel) + static_cast<size_t>(sb) * kGemmAmxSbPanelBytes;
    auto * d = reinterpret_cast<float *>(p + 2 * kSteps * kStepBytes);
    return {p, p + kSteps * kStepBytes, d, d + kGemmRows};
}

// Each row's d and integer group scales of super-block sb (zero past `rows`).
template <class Block>
void row_scales(const void * w, size_t w_row, int rows, int64_t sb, float * d, int16_t (*sc)[kGemmRows]) {
    constexpr int kN = std::is_same_v<Block, quant::BlockQ6_K> ? kQK_K / 16 : kGroups;
    for (int r = 0; r < kGemmRows; ++r) {
        d[r] = 0.0f;
        for (int j = 0; j < kN; ++j) {
            sc[j][r] = 0;
        }
        if (r >= rows) {
            continue;
        }
        const Block & b = reinterpret_cast<const Block *>(static_cast<const char *>(w) + r * w_row)[sb];
        d[r]            = fp16_to_fp32(b.d);
        for (int j = 0; j < kN; ++j) {
            if constexpr (std::is_same_v<Block, quant::BlockQ6_K>) {
                sc[j][r] = b.scales[j];
            } else {
                uint8_t s, m;
                quant::unpack_scale_min_k4(j, b.scales, s, m);
                sc[j][r] = s;
            }
        }
    }
}

// Group j of the common form (gemm.h: [G / 4 quads][16 rows][4 bytes] of u, then s and m) times its rows' scales,
// into the super-block's L and H tiles.
void scale_group(const GemmFormat & f, const uint8_t * levels, const int16_t * sc, int j, const SbPanel & o) {
    // lane word i of a row half: the scale of row i / 4 (rows 0..7), of row 8 + i / 4 (rows 8..15)
    alignas(64) static constexpr int16_t kRowOf[2][32] = {
        {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7},
        {8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15}};
    const __m512i scales = _mm512_maskz_loadu_epi16(0xffff, sc);
    const __m512i lo_sc  = _mm512_permutexvar_epi16(_mm512_load_si512(kRowOf[0]), scales);
    const __m512i hi_sc  = _mm512_permutexvar_epi16(_mm512_load_si512(kRowOf[1]), scales);
    const __m512i bias  = _mm512_set1_epi16(static_cast<int16_t>(f.bias));
    const int     e0    = j * f.group; // the group's first element in the super-block
    const size_t  base  = static_cast<size_t>(e0 / 64) * kStepBytes + static_cast<size_t>(e0 % 64 / 4) * 64;
    const auto narrow = [](__m512i w) { return _mm512_maskz_cvtepi16_epi8(~__mmask32{0}, w); }; // (maskz: GCC 12 warns on the plain forms)
    const auto widen  = [&](const uint8_t * u) {
        return _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(u))), bias);
    };
    for (int q = 0; q < f.group / 4; ++q) {
        const uint8_t * u  = levels + q * 64;
        const __m512i   w0 = _mm512_mullo_epi16(widen(u), lo_sc);
        const __m512i   w1 = _mm512_mullo_epi16(widen(u + 32), hi_sc);
        auto * l = reinterpret_cast<__m256i *>(o.l + base + q * 64);
        auto * h = reinterpret_cast<__m256i *>(o.h + base + q * 64);
        _mm256_storeu_si256(l, narrow(w0));
        _mm256_storeu_si256(l + 1, narrow(w1));
        _mm256_storeu_si256(h, narrow(_mm512_srai_epi16(w0, 8)));
        _mm256_storeu_si256(h + 1, narrow(_mm512_srai_epi16(w1, 8)));
    }
}

template <class Block>
void pack(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    // The common form (gemm_pack) goes to the panel's tail, which is larger than it; super-block sb is then
    // rewritten in place, front to back: its bytes end before those of the common form's super-block sb + 1 begin
    // (kGemmAmxSbPanelBytes >= the common form's bytes per super-block), and its own are copied out first.
    const GemmFormat f      = gemm_format(weight);
    const int        groups = kQK_K / f.group;
    const int64_t    nsb    = k / kQK_K;
    const size_t     common = gemm_group_bytes(f) * static_cast<size_t>(groups);
    auto *           tail   = static_cast<uint8_t *>(panel) + static_cast<size_t>(nsb) * (kGemmAmxSbPanelBytes - common);
    gemm_pack(weight, w, w_row, rows, k, tail);
    alignas(64) uint8_t one[kQK_K / 16 * (16 * kGemmRows + 2 * kGemmRows * sizeof(float))]; // the largest: groups of 16
    static_assert(sizeof(one) <= kGemmAmxSbPanelBytes, "the super-block form is larger than the common one");
    for (int64_t sb = 0; sb < nsb; ++sb) {
        std::memcpy(one, tail + static_cast<size_t>(sb) * common, common);
        const SbPanel o = sb_panel(panel, sb);
        int16_t       sc[kQK_K / 16][kGemmRows];
        row_scales<Block>(w, w_row, rows, sb, o.d, sc);
        for (int j = 0; j < groups; ++j) {
            scale_group(f, one + j * gemm_group_bytes(f), sc[j], j, o);
        }
        for (int j = 0; j < kGroups; ++j) { // the min terms of the groups of 32 (none for q6_K)
            float * m = o.m + j * kGemmRows;
            if (f.has_min) {
                std::memcpy(m, one + j * gemm_group_bytes(f) + f.group * kGemmRows + kGemmRows * sizeof(float),
                            kGemmRows * sizeof(float));
            } else {
                std::fill(m, m + kGemmRows, 0.0f);
            }
        }
    }
}

// ---- the tile --------------------------------------------------------------------------------------------------

// Tiles (amx_tiles.h): tmm0 / tmm1 the L / H sums of columns 0..15, tmm2 / tmm3 those of columns 16..31; tmm4 /
// tmm5 the two halves of the columns (A); tmm6 / tmm7 the panel's L / H (B).

// A chunk's super-block sb (gemm.h's byte offsets).
struct SbChunk {
    const int8_t * q;  // [32 columns][256]
    const float *  da; // [32]
    const float *  s;  // [group][32 columns]: da * sum(q)
};

SbChunk sb_chunk(const void * chunk, int64_t sb) {
    const auto * p  = static_cast<const uint8_t *>(chunk) + static_cast<size_t>(sb) * kGemmAmxSbChunkBytes;
    const auto * da = reinterpret_cast<const float *>(p + static_cast<size_t>(kGemmAmxIntCols) * kQK_K);
    return {reinterpret_cast<const int8_t *>(p), da, da + kGemmAmxIntCols};
}

template <bool kTwoHalves>
inline void issue(const SbChunk & x, const SbPanel & p) {
    _tile_zero(0);
    _tile_zero(1);
    if constexpr (kTwoHalves) {
        _tile_zero(2);
        _tile_zero(3);
    }
    for (int s = 0; s < kSteps; ++s) {
        _tile_loadd(4, x.q + s * 64, kQK_K);
        _tile_loadd(6, p.l + s * kStepBytes, 64);
        _tile_loadd(7, p.h + s * kStepBytes, 64);
        _tile_dpbsud(0, 4, 6);
        _tile_dpbssd(1, 4, 7);
        if constexpr (kTwoHalves) {
            _tile_loadd(5, x.q + kHalf * kQK_K + s * 64, kQK_K);
            _tile_dpbsud(2, 5, 6);
            _tile_dpbssd(3, 5, 7);
        }
    }
}

// One super-block's sums: [L, H][column] x 16 rows.
struct alignas(64) Sums {
    int32_t v[2][kGemmAmxIntCols][16];
};

template <bool kTwoHalves>
inline void store(Sums & s) {
    _tile_stored(0, s.v[0][0], 64);
    _tile_stored(1, s.v[1][0], 64);
    if constexpr (kTwoHalves) {
        _tile_stored(2, s.v[0][kHalf], 64);
        _tile_stored(3, s.v[1][kHalf], 64);
    }
}

template <bool kTwoHalves, bool kMin>
struct Pipeline {
    const void * chunk;
    void *       panel;
    int          n;
    int64_t      nsb;
    Sums         sums[2]; // by super-block parity
    alignas(64) float acc[kGemmAmxIntCols][16];

    // acc[c] += float(256 H + L) * (d * da) (+ for the formats with a min: the groups' m * (da * sum(q)))
    void scale(int64_t sb) {
        const Sums &  s = sums[sb % 2];
        const SbChunk x = sb_chunk(chunk, sb);
        const SbPanel p = sb_panel(panel, sb);
        const __m512  d = _mm512_loadu_ps(p.d);
        for (int c = 0; c < n; ++c) {
            const __m512i i = _mm512_add_epi32(_mm512_maskz_slli_epi32(0xffff, _mm512_load_si512(s.v[1][c]), 8), _mm512_load_si512(s.v[0][c]));
            __m512 a = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xffff, i), _mm512_mul_ps(d, _mm512_set1_ps(x.da[c])),
                                       _mm512_load_ps(acc[c]));
            if constexpr (kMin) {
                for (int j = 0; j < kGroups; ++j) {
                    a = _mm512_fmadd_ps(_mm512_loadu_ps(p.m + j * kGemmRows), _mm512_set1_ps(x.s[j * kGemmAmxIntCols + c]), a);
                }
            }
            _mm512_store_ps(acc[c], a);
        }
    }

    void run() {
        std::memset(acc, 0, sizeof(acc));
        run_tile_pipeline(
            nsb, [&](int64_t sb) { issue<kTwoHalves>(sb_chunk(chunk, sb), sb_panel(panel, sb)); },
            [&](int64_t sb) { store<kTwoHalves>(sums[sb % 2]); }, [&](int64_t sb) { scale(sb); });
    }
};

template <bool kTwoHalves, bool kMin>
void panel_tile(const void * panel, int rows, const GemmTileArgs & a, float * out) {
    const int     n  = a.n_cols;
    const int     lo = kTwoHalves ? kHalf : n;
    AmxTileConfig cfg; // unused tiles stay unset (rows and bytes 0: ldtilecfg faults on a half-set one)
    cfg.set(0, lo, 64);
    cfg.set(1, lo, 64);
    cfg.set(4, lo, 64);
    cfg.set(6, 16, 64);
    cfg.set(7, 16, 64);
    if constexpr (kTwoHalves) {
        cfg.set(2, n - lo, 64);
        cfg.set(3, n - lo, 64);
        cfg.set(5, n - lo, 64);
    }
    _tile_loadconfig(&cfg);
    Pipeline<kTwoHalves, kMin> pipe{a.chunk, const_cast<void *>(panel), n, a.k / kQK_K, {}, {}};
    pipe.run();
    _tile_release();
    const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1u);
    for (int c = 0; c < n; ++c) {
        _mm512_mask_storeu_ps(out + c * a.out_col, mask, _mm512_load_ps(pipe.acc[c]));
    }
}

template <bool kMin>
void one_panel(const void * panel, int rows, const GemmTileArgs & a, float * out) {
    a.n_cols > kHalf ? panel_tile<true, kMin>(panel, rows, a, out) : panel_tile<false, kMin>(panel, rows, a, out);
}

template <bool kMin>
void panels(const GemmTileArgs & a) {
    one_panel<kMin>(a.panel, a.rows, a, a.out);
    if (a.panel2 != nullptr) {
        one_panel<kMin>(a.panel2, a.rows2, a, a.out + kGemmRows);
    }
}

} // namespace

void gemm_pack_amx_superblocks(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    // called only for the types whose row has the super-block form (gemm_format(weight).superblocks)
    with_type_row(weight, [&]<ggml_type T>() {
        if constexpr (cpu_type_row(T).gemm_superblocks) {
            pack<quant::BlockOf<T>>(weight, w, w_row, rows, k, panel);
        }
    });
}

void gemm_tile_amx_superblocks(const GemmFormat & f, const GemmTileArgs & a) {
    f.has_min ? panels<true>(a) : panels<false>(a);
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
