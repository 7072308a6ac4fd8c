// The repacked layout's tile on AVX-512 VNNI (format.h): 16 weight rows (the lanes of a zmm) times 1..8
// activation columns, straight from the stored panel. A nibble vector gives two quads of byte levels with one AND
// and one shift + AND (iq4_nl, iq4_xs and mxfp4 map the low nibbles with one vpermb of their table repeated four times,
// which ignores the high nibble, and the high ones with a shift + vpermb; q6_K puts its two high bits on top with a
// shift, an AND and one ternary logic op, lanes_avx512.h); tq2_0's 2-bit vector gives four quads with shifts and
// ANDs, tq1_0's base-3 vector five with two additions and two compares each (Tq1Groups). Per group and column G / 4
// vpdpbusd add the products, then one conversion and one or two multiply-adds scale the group into the column's
// float accumulator (for q8_K activations into the super-block's, which then adds into the column's once), in the
// order of the GEMM's tile (src/cpu/quants/gemm_avx512vnni.cpp, quants/gemm.h), so both give the same floats.
//
// One column (decode) must keep up with DRAM: its eight vpdpbusd per group are split over two accumulators (the
// low and the high quads), which halves the dependency chain; with more columns the columns are independent. Fewer
// than 8 columns come as a narrow chunk of just those (GemmTileArgs::chunk_cols; one column: 40 bytes a group of 32
// rather than 320), which stays in L1 beside the streamed panel: measured on a Zen 5 class EPYC (2 threads, decode
// of q4_K and tq2_0 at DRAM), 0.6-0.75 -> 0.8-0.95 of the DRAM read rate.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm_cols.h"
#include "cpu/repack/format.h"
#include "cpu/repack/lanes_avx512.h"
#include "cpu/simd/prefetch.h"
#include "quant/blocks.h"

#include <immintrin.h>

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

// every byte: the zero-masking form of the permutes (lanes_avx512.h: kAll, for the same reason)
constexpr __mmask64 kAllBytes = ~__mmask64{0};

using quants::GemmTileArgs;
using quants::kGemmMaxCols;

inline __m512i bcast(const uint8_t * p) {
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    return _mm512_set1_epi32(v);
}

// Column c's pair of a chunk group of `group` elements (32, or 16) in a chunk of kCC columns (8, or 1).
template <int kCC>
inline ChunkAux aux_of(const uint8_t * cg, int c, int group = 32) {
    ChunkAux a;
    std::memcpy(&a, cg + group * kCC + c * sizeof(ChunkAux), sizeof(a));
    return a;
}

// Column c's levels of quad q in a chunk group of kCC columns.
template <int kCC>
inline __m512i quad_of(const uint8_t * cg, int q, int c) {
    return bcast(cg + (q * kCC + c) * 4);
}

// The tile's float accumulators, one per column (16 rows each): zero at the start, stored masked to a.rows.
template <int kCols>
struct Outputs {
    __m512 v[kCols];

    Outputs() {
        for (int c = 0; c < kCols; ++c) {
            v[c] = _mm512_setzero_ps();
        }
    }
    void store(const GemmTileArgs & a) const {
        const auto rows = static_cast<__mmask16>((1u << a.rows) - 1u);
        for (int c = 0; c < kCols; ++c) {
            _mm512_mask_storeu_ps(a.out + c * a.out_col, rows, v[c]);
        }
    }
};

// One group's integer sums into a column's accumulator, as the GEMM's tile scales them (quants/gemm.h's float
// order). q8_0 / q8_1 activations (scale_group): out += float(sums) * (s * da), then for the formats with a min
// out += m * (da * sum(q)) (the column's pair x). q8_K activations (sum_group): the super-block's t += float(sums) * s,
// then t += m * sum(q); the super-block then adds t * da once (scale_superblock).
template <bool kMin>
inline __m512 sum_group(__m512 t, __m512i sums, __m512 s, __m512 m, const ChunkAux & x) {
    t = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAll, sums), s, t);
    if constexpr (kMin) {
        float min_sum;
        std::memcpy(&min_sum, &x.word, sizeof(min_sum));
        t = _mm512_fmadd_ps(m, _mm512_set1_ps(min_sum), t);
    }
    return t;
}

template <bool kMin>
inline __m512 scale_group(__m512 out, __m512i sums, __m512 s, __m512 m, const ChunkAux & x) {
    return sum_group<kMin>(out, sums, _mm512_mul_ps(s, _mm512_set1_ps(x.da)), m, x);
}

// A super-block's sums t[c] into the outputs (times the column's da: cg, the super-block's first chunk group of
// `group` elements), and t zeroed for the next.
template <int kCols, int kCC>
inline void scale_superblock(Outputs<kCols> & out, __m512 * t, const uint8_t * cg, int group) {
    for (int c = 0; c < kCols; ++c) {
        out.v[c] = _mm512_fmadd_ps(t[c], _mm512_set1_ps(aux_of<kCC>(cg, c, group).da), out.v[c]);
        t[c]     = _mm512_setzero_ps();
    }
}

// The integer sums of one group (32 elements) for kCols columns of a chunk of kCC: acc[c] (+ acc2[c] when split) start
// from init[c].
template <int kCols, ggml_type kType, int kCC>
struct GroupSums {
    static constexpr bool kSplit = kCols <= 2;
    __m512i               acc[kCols];
    __m512i               acc2[kSplit ? kCols : 1];

    // high: the group's vector of fifth bits (quad q in bit q; q5_0, q5_1, q5_K), unused for the other types
    void run(const uint8_t * lv, const uint8_t * cg, const __m512i * init, const __m512i & table,
             const uint8_t * high = nullptr) {
        const __m512i low4 = _mm512_set1_epi8(0x0f);
        for (int c = 0; c < kCols; ++c) {
            acc[c] = init[c];
            if constexpr (kSplit) {
                acc2[c] = _mm512_setzero_si512();
            }
        }
        if constexpr (kByteLevels<kType>) {
            for (int q = 0; q < 8; ++q) {
                const __m512i w = _mm512_loadu_si512(lv + q * 64);
                for (int c = 0; c < kCols; ++c) {
                    __m512i & a = kSplit && q >= 4 ? acc2[kSplit ? c : 0] : acc[c];
                    a           = _mm512_dpbusd_epi32(a, w, quad_of<kCC>(cg, q, c));
                }
            }
        } else {
            for (int j = 0; j < 4; ++j) {
                const __m512i v = _mm512_loadu_si512(lv + j * 64);
                __m512i       lo, hi;
                if constexpr (kLevelTable<kType> != nullptr) { // vpermb reads six index bits: the table repeats per 16
                    lo = _mm512_maskz_permutexvar_epi8(kAllBytes, v, table);
                    hi = _mm512_maskz_permutexvar_epi8(kAllBytes, _mm512_srli_epi16(v, 4), table);
                } else if constexpr (kType == GGML_TYPE_Q5_K || kLegacyFifthBits<kType>) {
                    fifth_bit_levels(v, _mm512_loadu_si512(high), j, lo, hi);
                } else {
                    lo = _mm512_and_si512(v, low4);
                    hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);
                }
                for (int c = 0; c < kCols; ++c) {
                    acc[c]     = _mm512_dpbusd_epi32(acc[c], lo, quad_of<kCC>(cg, j, c));
                    __m512i & a = kSplit ? acc2[kSplit ? c : 0] : acc[c];
                    a           = _mm512_dpbusd_epi32(a, hi, quad_of<kCC>(cg, j + 4, c));
                }
            }
        }
        if constexpr (kSplit) {
            for (int c = 0; c < kCols; ++c) {
                acc[c] = _mm512_add_epi32(acc[c], acc2[c]);
            }
        }
    }

    // A group's eight quads already decoded (u: byte levels; tq1_0).
    void run_quads(const __m512i * u, const uint8_t * cg, const __m512i * init) {
        for (int c = 0; c < kCols; ++c) {
            acc[c] = init[c];
            if constexpr (kSplit) {
                acc2[c] = _mm512_setzero_si512();
            }
        }
        for (int q = 0; q < 8; ++q) {
            for (int c = 0; c < kCols; ++c) {
                __m512i & a = kSplit && q >= 4 ? acc2[kSplit ? c : 0] : acc[c];
                a           = _mm512_dpbusd_epi32(a, u[q], quad_of<kCC>(cg, q, c));
            }
        }
        if constexpr (kSplit) {
            for (int c = 0; c < kCols; ++c) {
                acc[c] = _mm512_add_epi32(acc[c], acc2[c]);
            }
        }
    }
};

// The 32-element formats: all groups' levels (q5_0 / q5_1: then each group's fifth bits), then all groups' factors
// (f16 scales; q4_1 / q5_1: then the mins).
template <int kCols, ggml_type kType, int kCC>
void legacy_tile(const GemmTileArgs & a) {
    constexpr size_t kGroupBytes  = kLegacyLevelBytes<kType>;
    constexpr size_t kFactorBytes = kLegacyFactorBytes<kType>;
    constexpr bool   kMin         = kLegacyMin<kType>;
    const int64_t    ng           = a.k / 32;
    const auto *     lv           = static_cast<const uint8_t *>(a.panel);
    const auto *     sc           = lv + static_cast<size_t>(ng) * kGroupBytes;
    const auto *     cg           = static_cast<const uint8_t *>(a.chunk);
    const __m512i    table        = level_table_zmm<kType>();
    Outputs<kCols>               out;
    GroupSums<kCols, kType, kCC> sums;
    for (int64_t g = 0; g < ng; ++g, lv += kGroupBytes, sc += kFactorBytes, cg += chunk_group_bytes(32, kCC)) {
        // both streams of the panel prefetched as far ahead in time (simd/prefetch.h): the hardware prefetchers
        // ramp up too slowly at the start of the small matrices of a model's decode step
        simd::prefetch_lines<kGroupBytes>(lv + simd::kPrefetchBytes);
        simd::prefetch_lines<kFactorBytes>(sc + simd::kPrefetchBytes * kFactorBytes / kGroupBytes);
        __m512i init[kCols];
        for (int c = 0; c < kCols; ++c) {
            init[c] = _mm512_set1_epi32(kMin ? 0 : aux_of<kCC>(cg, c).word);
        }
        sums.run(lv, cg, init, table, lv + 4 * 64);
        const __m512 s = group_scales<kType>(sc);
        const __m512 m = kMin ? halves_to_floats(sc + kScaleGroupBytes) : _mm512_setzero_ps();
        for (int c = 0; c < kCols; ++c) {
            out.v[c] = scale_group<kMin>(out.v[c], sums.acc[c], s, m, aux_of<kCC>(cg, c));
        }
    }
    out.store(a);
}

// q4_K, q5_K: per super-block the header (d, dmin, scales, mins), then 8 groups of nibbles (and q5_K's 8 vectors of
// fifth bits); s = d * scale and m = -dmin * min in float, as gemm.cpp packs them. iq4_xs: the header d and the
// signed scales, then 8 groups of table nibbles; s = d * scale, the sums from the column's -128 * sum(q), no min.
template <int kCols, ggml_type kType, int kCC>
void k4_tile(const GemmTileArgs & a) {
    constexpr bool   kXs         = kType == GGML_TYPE_IQ4_XS;
    constexpr size_t kBlockBytes = superblock_bytes(quants::cpu_type_row(kType).repack);
    constexpr size_t kLevelsAt   = kXs ? kIQ4XSHeaderBytes : kQ4KHeaderBytes;
    const int64_t    nsb         = a.k / quant::kQK_K;
    const auto *     blk         = static_cast<const uint8_t *>(a.panel);
    const auto *     cg          = static_cast<const uint8_t *>(a.chunk);
    const __m512i    table       = level_table_zmm<kType>();
    Outputs<kCols>   out;
    __m512           t[kCols];
    for (int c = 0; c < kCols; ++c) {
        t[c] = _mm512_setzero_ps();
    }
    GroupSums<kCols, kType, kCC> sums;
    for (int64_t b = 0; b < nsb; ++b, blk += kBlockBytes) {
        simd::prefetch_lines<kBlockBytes>(blk + simd::kPrefetchBytes); // as in legacy_tile
        const __m512    d    = halves_to_floats(blk);
        const __m512    dmin = kXs ? _mm512_setzero_ps() : negated_halves_to_floats(blk + 32);
        const uint8_t * cg0  = cg;
        for (int j = 0; j < 8; ++j, cg += chunk_group_bytes(32, kCC)) {
            __m512i init[kCols];
            for (int c = 0; c < kCols; ++c) {
                init[c] = _mm512_set1_epi32(kXs ? aux_of<kCC>(cg, c).word : 0);
            }
            sums.run(blk + kLevelsAt + j * kNibbleGroupBytes, cg, init, table, blk + kQ5KHighAt + j * 64);
            __m512 s, m;
            if constexpr (kXs) {
                s = _mm512_mul_ps(d, signed_bytes_to_floats(blk + kIQ4XSScalesAt + j * kPanelRows));
                m = _mm512_setzero_ps();
            } else {
                s = _mm512_mul_ps(d, bytes_to_floats(blk + kQ4KScalesAt + j * kPanelRows));
                m = _mm512_mul_ps(dmin, bytes_to_floats(blk + kQ4KMinsAt + j * kPanelRows));
            }
            for (int c = 0; c < kCols; ++c) {
                t[c] = sum_group<!kXs>(t[c], sums.acc[c], s, m, aux_of<kCC>(cg, c));
            }
        }
        scale_superblock<kCols, kCC>(out, t, cg0, 32);
    }
    out.store(a);
}

// tq1_0, tq2_0: all super-blocks' levels, then their d; per group the eight quads decoded (TritGroups: tq2_0's two
// 2-bit vectors, tq1_0's trits of its base-3 vectors), the sums from the column's -sum(q) (bias 1), s = d.
template <int kCols, ggml_type kType, int kCC>
void trit_tile(const GemmTileArgs & a) {
    constexpr size_t kLevelBytes = kTritLevelBytes<kType>;
    const int64_t    nsb         = a.k / quant::kQK_K;
    const auto *     lv          = static_cast<const uint8_t *>(a.panel);
    const auto *     dp          = lv + static_cast<size_t>(nsb) * kLevelBytes;
    const auto *     cg          = static_cast<const uint8_t *>(a.chunk);
    Outputs<kCols>   out;
    __m512           t[kCols];
    for (int c = 0; c < kCols; ++c) {
        t[c] = _mm512_setzero_ps();
    }
    GroupSums<kCols, kType, kCC> sums;
    for (int64_t b = 0; b < nsb; ++b, lv += kLevelBytes, dp += kScaleGroupBytes) {
        simd::prefetch_lines<kScaleGroupBytes>(dp + simd::kPrefetchBytes * kScaleGroupBytes / kLevelBytes);
        const __m512       d   = halves_to_floats(dp); // s of all 8 groups
        const uint8_t *    cg0 = cg;
        TritGroups<kType> groups(lv);
        for (int j = 0; j < 8; ++j, cg += chunk_group_bytes(32, kCC)) {
            // as in legacy_tile, a group's lines at a time: a super-block's at once ran tq2_0's decode at 0.65 x
            simd::prefetch_lines<kLevelBytes / 8>(lv + j * kLevelBytes / 8 + simd::kPrefetchBytes);
            __m512i u[8];
            groups.next(u);
            __m512i init[kCols];
            for (int c = 0; c < kCols; ++c) {
                init[c] = _mm512_set1_epi32(aux_of<kCC>(cg, c).word);
            }
            sums.run_quads(u, cg, init);
            for (int c = 0; c < kCols; ++c) {
                t[c] = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAll, sums.acc[c]), d, t[c]);
            }
        }
        scale_superblock<kCols, kCC>(out, t, cg0, 32);
    }
    out.store(a);
}

// q2_K, q3_K, q6_K: per super-block the header (d, q2_K's dmin, the scales of the 16 groups of 16), then the levels;
// per group four vpdpbusd per column (from the column's -bias * sum(q), or from zero with q2_K's min), then the
// factors in float, as gemm.cpp packs them.
template <int kCols, ggml_type kType, int kCC>
void k16_tile(const GemmTileArgs & a) {
    constexpr bool   kMin        = quants::cpu_type_row(kType).has_min;
    constexpr size_t kBlockBytes = superblock_bytes(quants::cpu_type_row(kType).repack);
    const int64_t    nsb         = a.k / quant::kQK_K;
    const auto *     blk         = static_cast<const uint8_t *>(a.panel);
    const auto *     cg          = static_cast<const uint8_t *>(a.chunk);
    Outputs<kCols>   out;
    __m512           t[kCols];
    for (int c = 0; c < kCols; ++c) {
        t[c] = _mm512_setzero_ps();
    }
    const auto group = [&](const __m512i * u, const K16Factors & f, const uint8_t * x) {
        for (int c = 0; c < kCols; ++c) {
            const ChunkAux aux = aux_of<kCC>(x, c, 16);
            __m512i        acc = kMin ? _mm512_setzero_si512() : _mm512_set1_epi32(aux.word);
            for (int i = 0; i < 4; ++i) {
                acc = _mm512_dpbusd_epi32(acc, u[i], quad_of<kCC>(x, i, c));
            }
            t[c] = sum_group<kMin>(t[c], acc, f.s, f.m, aux);
        }
    };
    for (int64_t b = 0; b < nsb; ++b, blk += kBlockBytes) {
        simd::prefetch_lines<kBlockBytes>(blk + simd::kPrefetchBytes); // as in legacy_tile
        const __m512    d        = halves_to_floats(blk);
        const __m512    neg_dmin = kMin ? negated_halves_to_floats(blk + 32) : _mm512_setzero_ps();
        const uint8_t * levels   = blk + kQ6KHeaderBytes; // 320 for the three forms
        const uint8_t * cg0      = cg;
        for (int j = 0; j < 8; ++j) {
            __m512i u[4];
            k16_levels<kType, 0>(levels, j, u);
            group(u, k16_factors<kType>(blk, 2 * j, d, neg_dmin), cg);
            cg += chunk_group_bytes(16, kCC);
            k16_levels<kType, 1>(levels, j, u);
            group(u, k16_factors<kType>(blk, 2 * j + 1, d, neg_dmin), cg);
            cg += chunk_group_bytes(16, kCC);
        }
        scale_superblock<kCols, kCC>(out, t, cg0, 16);
    }
    out.store(a);
}

template <int kCols, int kCC>
void tile_of(ggml_type type, const GemmTileArgs & a) {
    quants::with_type_row(type, [&]<ggml_type T>() {
        constexpr RepackForm form = quants::cpu_type_row(T).repack;
        if constexpr (form == RepackForm::kNibbles || form == RepackForm::kBytes) {
            legacy_tile<kCols, T, kCC>(a);
        } else if constexpr (form == RepackForm::kQ4KBlocks || form == RepackForm::kQ5KBlocks ||
                             form == RepackForm::kIQ4XSBlocks) {
            k4_tile<kCols, T, kCC>(a);
        } else if constexpr (form == RepackForm::kQ2KBlocks || form == RepackForm::kQ3KBlocks ||
                             form == RepackForm::kQ6KBlocks) {
            k16_tile<kCols, T, kCC>(a);
        } else if constexpr (trit_form(form)) {
            trit_tile<kCols, T, kCC>(a);
        }
    });
}

} // namespace

void tile_avx512vnni(ggml_type type, const GemmTileArgs & a) {
    static_assert(kPanelRows == 16 && kGemmMaxCols == 8, "the tile holds 16 rows in a zmm and 8 columns");
    if (repack_form(type) == RepackForm::kRows) { // the rows form's own tile (tile_rows_avx512vnni.cpp)
        tile_rows_avx512vnni(type, a);
        return;
    }
    if (a.chunk_cols < kGemmMaxCols) { // a narrow chunk: the call takes all of its columns
        quants::with_cols(a.n_cols, [&](auto cols) { tile_of<decltype(cols)::value, decltype(cols)::value>(type, a); });
        return;
    }
    quants::with_cols(a.n_cols, [&](auto cols) { tile_of<decltype(cols)::value, kGemmMaxCols>(type, a); });
}

} // namespace switchyard::cpu::repack

#endif // __x86_64__
