// The repacked layout's expander on AVX-512 VBMI (format.h: expand_panel): a stored panel becomes the integer
// GEMM's byte panel (src/cpu/quants/gemm.h), the bytes gemm_pack writes from the original weights, so that
// MUL_MAT by many columns unpacks the nibbles once per pass and runs the GEMM's tile on them for every chunk.
//
// Per group of 32 elements: each nibble vector (two quads of the 16 rows) gives its low quad with one AND and its
// high quad with a shift and an AND; iq4_nl, iq4_xs and mxfp4 map both with one vpermb each (the 16-entry table
// repeated four times, so that vpermb's six index bits read the nibble alone: no AND for the low quad), zeroing the
// rows past `rows` (whose index 0 would map to a level above 0); q5_K adds each quad's fifth bit. The factors: s = f16
// scale (q4_0, iq4_nl, q8_0) or mxfp4's E8M0 2^(e - 128), or for q4_K / q5_K s = d * scale and m = -dmin * min in
// float as gemm.cpp's packer computes them (iq4_xs: s = d * scale; q2_K, q3_K, q6_K: the same per group of 16, m zero
// but q2_K's; tq1_0, tq2_0: s = d), the rows past `rows` zero. The stored levels of the missing rows are zero
// (format.h), and so are the levels q4_0, q8_0, the K-quants, tq1_0 and tq2_0 expand them to.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/repack/format.h"
#include "cpu/repack/lanes_avx512.h"
#include "quant/blocks.h"

#include <immintrin.h>

namespace switchyard::cpu::repack {

namespace {

constexpr size_t kQuadBytes      = 4 * kPanelRows;                           // one quad of 16 rows
constexpr size_t kGemmLevels     = 32 * kPanelRows;                          // a GEMM group's levels
constexpr size_t kGemmGroupBytes = kGemmLevels + 2 * kPanelRows * sizeof(float); // + s[16], m[16]

inline __m512i load(const uint8_t * p) { return _mm512_loadu_si512(p); }
inline void    store(uint8_t * p, __m512i v) { _mm512_storeu_si512(p, v); }

// Bytes of the rows below `rows` (4 a row) and their float lanes.
inline __mmask64 live_bytes(int rows) { return rows >= kPanelRows ? ~__mmask64{0} : (__mmask64{1} << (4 * rows)) - 1; }
inline __mmask16 live_lanes(int rows) { return static_cast<__mmask16>((1u << rows) - 1u); }

// One group's four nibble vectors into the GEMM group's eight quads: vector j holds quads j and j + 4.
template <bool kMap>
inline void nibble_group(const uint8_t * lv, uint8_t * out, __m512i table, __mmask64 live) {
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    for (int j = 0; j < 4; ++j) {
        const __m512i v     = load(lv + j * kNibbleGroupBytes / 4);
        const __m512i shift = _mm512_srli_epi16(v, 4);
        if constexpr (kMap) {
            store(out + j * kQuadBytes, _mm512_maskz_permutexvar_epi8(live, v, table));
            store(out + (j + 4) * kQuadBytes, _mm512_maskz_permutexvar_epi8(live, shift, table));
        } else {
            store(out + j * kQuadBytes, _mm512_and_si512(v, low4));
            store(out + (j + 4) * kQuadBytes, _mm512_and_si512(shift, low4));
        }
    }
}

inline void store_factors(uint8_t * out, __m512 s, __m512 m) {
    _mm512_storeu_ps(out + kGemmLevels, s);
    _mm512_storeu_ps(out + kGemmLevels + kPanelRows * sizeof(float), m);
}

// One group's four nibble vectors and its vector of fifth bits (q5_0, q5_1, q5_K) into the GEMM group's eight quads.
inline void fifth_bit_group(const uint8_t * lv, const uint8_t * high, uint8_t * out) {
    const __m512i h = load(high);
    for (int j = 0; j < 4; ++j) {
        __m512i lo, hi;
        fifth_bit_levels(load(lv + j * kQuadBytes), h, j, lo, hi);
        store(out + j * kQuadBytes, lo);
        store(out + (j + 4) * kQuadBytes, hi);
    }
}

// The 32-element formats: all groups' levels (q5_0 / q5_1: then each group's fifth bits), then all groups' factors
// (f16 scales; q4_1 / q5_1: then the mins) (format.h).
template <ggml_type kType>
void expand_legacy(const uint8_t * panel, int rows, int64_t k, uint8_t * out) {
    constexpr size_t kGroupBytes  = kLegacyLevelBytes<kType>;
    constexpr size_t kFactorBytes = kLegacyFactorBytes<kType>;
    const int64_t    ng           = k / quant::kQK32;
    const uint8_t *  sc           = panel + static_cast<size_t>(ng) * kGroupBytes;
    const __m512i    table        = level_table_zmm<kType>();
    const __mmask64  live         = live_bytes(rows);
    const __mmask16  lanes        = live_lanes(rows);
    for (int64_t g = 0; g < ng; ++g, panel += kGroupBytes, sc += kFactorBytes, out += kGemmGroupBytes) {
        if constexpr (kByteLevels<kType>) {
            for (int q = 0; q < 8; ++q) {
                store(out + q * kQuadBytes, load(panel + q * kQuadBytes));
            }
        } else if constexpr (kLegacyFifthBits<kType>) {
            fifth_bit_group(panel, panel + 4 * kQuadBytes, out);
        } else {
            nibble_group<kLevelTable<kType> != nullptr>(panel, out, table, live);
        }
        const __m512 s = _mm512_maskz_mov_ps(lanes, group_scales<kType>(sc));
        const __m512 m = kLegacyMin<kType> ? _mm512_maskz_mov_ps(lanes, halves_to_floats(sc + kScaleGroupBytes))
                                           : _mm512_setzero_ps();
        store_factors(out, s, m);
    }
}

// q4_K, q5_K: per super-block the header (d, dmin, scales, mins), then 8 groups of nibbles (q5_K: then their 8
// vectors of fifth bits); iq4_xs: d and the signed scales, then 8 groups of table nibbles.
template <ggml_type kType>
void expand_k4(const uint8_t * panel, int rows, int64_t k, uint8_t * out) {
    constexpr bool  kXs   = kType == GGML_TYPE_IQ4_XS;
    const int64_t   nsb   = k / quant::kQK_K;
    const __mmask16 lanes = live_lanes(rows);
    const __m512i   table = level_table_zmm<kType>();
    for (int64_t b = 0; b < nsb; ++b, panel += superblock_bytes(quants::cpu_type_row(kType).repack)) {
        const __m512 d    = halves_to_floats(panel);
        const __m512 dmin = kXs ? _mm512_setzero_ps() : negated_halves_to_floats(panel + 32);
        for (int j = 0; j < 8; ++j, out += kGemmGroupBytes) {
            const uint8_t * lv = panel + (kXs ? kIQ4XSHeaderBytes : kQ4KHeaderBytes) + j * kNibbleGroupBytes;
            __m512          s, m;
            if constexpr (kXs) { // the rows past `rows` zeroed: their index 0 maps to a level above 0
                nibble_group<true>(lv, out, table, live_bytes(rows));
                s = _mm512_maskz_mul_ps(lanes, d, signed_bytes_to_floats(panel + kIQ4XSScalesAt + j * kPanelRows));
                m = _mm512_setzero_ps();
            } else {
                if constexpr (kType == GGML_TYPE_Q5_K) {
                    fifth_bit_group(lv, panel + kQ5KHighAt + j * 64, out);
                } else {
                    nibble_group<false>(lv, out, _mm512_setzero_si512(), 0);
                }
                s = _mm512_maskz_mul_ps(lanes, d, bytes_to_floats(panel + kQ4KScalesAt + j * kPanelRows));
                m = _mm512_maskz_mul_ps(lanes, dmin, bytes_to_floats(panel + kQ4KMinsAt + j * kPanelRows));
            }
            store_factors(out, s, m);
        }
    }
}

// q2_K, q3_K, q6_K: per super-block the header, then 8 pairs of GEMM groups of 16 (4 quads of levels each).
template <ggml_type kType>
void expand_k16(const uint8_t * panel, int rows, int64_t k, uint8_t * out) {
    constexpr size_t kGroup16Bytes = 16 * kPanelRows + 2 * kPanelRows * sizeof(float);
    const int64_t    nsb           = k / quant::kQK_K;
    const __mmask16  lanes         = live_lanes(rows);
    const auto       group         = [&](const __m512i * u, const K16Factors & f, uint8_t * o) {
        for (int i = 0; i < 4; ++i) {
            store(o + i * kQuadBytes, u[i]);
        }
        _mm512_storeu_ps(o + 16 * kPanelRows, _mm512_maskz_mov_ps(lanes, f.s));
        _mm512_storeu_ps(o + 16 * kPanelRows + kPanelRows * sizeof(float), _mm512_maskz_mov_ps(lanes, f.m));
    };
    for (int64_t b = 0; b < nsb; ++b, panel += superblock_bytes(quants::cpu_type_row(kType).repack)) {
        const __m512 d        = halves_to_floats(panel);
        const __m512 neg_dmin = kType == GGML_TYPE_Q2_K ? negated_halves_to_floats(panel + 32) : _mm512_setzero_ps();
        for (int j = 0; j < 8; ++j, out += 2 * kGroup16Bytes) {
            __m512i u[4]; // the stored rows past `rows` are zero: so are their levels
            k16_levels<kType, 0>(panel + kQ6KHeaderBytes, j, u);
            group(u, k16_factors<kType>(panel, 2 * j, d, neg_dmin), out);
            k16_levels<kType, 1>(panel + kQ6KHeaderBytes, j, u);
            group(u, k16_factors<kType>(panel, 2 * j + 1, d, neg_dmin), out + kGroup16Bytes);
        }
    }
}

// tq1_0, tq2_0: all super-blocks' levels (decoded a group at a time by TritGroups), then their d: s = d, m zero.
template <ggml_type kType>
void expand_trits(const uint8_t * panel, int rows, int64_t k, uint8_t * out) {
    constexpr size_t kLevelBytes = kTritLevelBytes<kType>;
    const int64_t    nsb         = k / quant::kQK_K;
    const __mmask16  lanes       = live_lanes(rows);
    const uint8_t *  dp          = panel + static_cast<size_t>(nsb) * kLevelBytes;
    for (int64_t b = 0; b < nsb; ++b, dp += kScaleGroupBytes, panel += kLevelBytes) {
        const __m512      s = _mm512_maskz_mov_ps(lanes, halves_to_floats(dp));
        TritGroups<kType> groups(panel);
        for (int j = 0; j < 8; ++j, out += kGemmGroupBytes) {
            __m512i u[8];
            groups.next(u);
            for (int q = 0; q < 8; ++q) {
                store(out + q * kQuadBytes, u[q]);
            }
            store_factors(out, s, _mm512_setzero_ps());
        }
    }
}

} // namespace

void expand_panel_avx512vnni(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel) {
    static_assert(kPanelRows == 16, "a quad of the 16 rows is one zmm");
    const auto * p   = static_cast<const uint8_t *>(panel);
    auto *       out = static_cast<uint8_t *>(gemm_panel);
    quants::with_type_row(type, [&]<ggml_type T>() {
        constexpr RepackForm form = quants::cpu_type_row(T).repack;
        if constexpr (form == RepackForm::kNibbles || form == RepackForm::kBytes) {
            expand_legacy<T>(p, rows, k, out);
        } else if constexpr (form == RepackForm::kQ4KBlocks || form == RepackForm::kQ5KBlocks ||
                             form == RepackForm::kIQ4XSBlocks) {
            expand_k4<T>(p, rows, k, out);
        } else if constexpr (form == RepackForm::kQ2KBlocks || form == RepackForm::kQ3KBlocks ||
                             form == RepackForm::kQ6KBlocks) {
            expand_k16<T>(p, rows, k, out);
        } else if constexpr (trit_form(form)) {
            expand_trits<T>(p, rows, k, out);
        }
    });
}

} // namespace switchyard::cpu::repack

#endif // __x86_64__
