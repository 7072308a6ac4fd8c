// AVX-512 VNNI kernels of the K-quants (q2_K .. q6_K), iq4_xs and the grid formats against q8_K activations. A
// super-block is four vectors of 64 level codes in element order, so the activations are used as they are (64-byte
// loads, no rearranging):
//
//  - q4_K / q5_K: two 64-byte loads of qs; low and high nibbles, regrouped by 256-bit halves into elements
//    0..63, 64..127, ...; q5_K adds its fifth bit from a broadcast of qh (one bit test per vector);
//  - q6_K: low 4 bits from ql as q4_K's, the high 2 bits from a broadcast of qh shifted per 256-bit half;
//  - q2_K / q3_K: the 2-bit planes of a broadcast of qs, shifted per half; q3_K's high bit as q5_K's;
//  - iq4_xs: nibbles as q4_K's through IQ4_NL's table, signed (their magnitudes times the signed activations);
//  - the grid formats (iq2_xxs .. iq3_s, grid_levels.h): gathered grid points, their signs as masks (below);
//  - the -1 / 0 / +1 formats (ternary_levels.h): tq2_0 as q2_K's planes, tq1_0's trits and iq1's grid bytes in
//    pieces of 32 (ternary_x86.h), iq1_m's shifts as masks per element;
//
// then vpmaddubsw (codes x levels, int16 pairs; q3_K's codes minus 4 per element, as upstream) and vpdpwssd with
// the sub-block scales spread over their lanes (int32, exact). Int32 lane m of vector q holds elements
// 64 q + 4 m .. 64 q + 4 m + 3, so upstream's lane l (the elements with (e % 32) / 4 == l) is lane l plus lane
// l + 8: the two 256-bit halves added once per super-block, then the floats in upstream's order
// (upstream_sums_x86.h). The min / offset terms go through the activations' bsums: one vpmaddwd of the 16 bsums
// with the 16 per-sub-block factors.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/grid_avx512.h"
#include "cpu/quants/grid_levels.h"
#include "cpu/quants/kquant_scales_x86.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/ternary_x86.h"
#include "cpu/quants/upstream_sums_x86.h"
#include "cpu/simd/int_avx512.h"

#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using namespace simd;

constexpr size_t kActBytes = sizeof(quant::BlockQ8_K), kActQs = 4, kActBsums = 260;

// Lane l of vector q (0..3) takes scale 4 q + l / 8 (the 32 int16 lanes of 64 elements, 8 per 16 elements).
constexpr std::array<uint16_t, 32> scale_lanes(int q) {
    std::array<uint16_t, 32> t{};
    for (int l = 0; l < 32; ++l) {
        t[l] = static_cast<uint16_t>(4 * q + l / 8);
    }
    return t;
}

inline __m256i load256(const void * p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline __m512i broadcast256(const void * p) { return _mm512_broadcast_i64x4(load256(p)); }

// 16-bit lanes shifted right by a for the low 256 bits and by b for the high 256 bits.
inline __m512i shift_halves(__m512i v, int a, int b) {
    return _mm512_srlv_epi16(v, _mm512_inserti64x4(_mm512_set1_epi16(static_cast<int16_t>(a)), _mm256_set1_epi16(static_cast<int16_t>(b)), 1));
}

// Byte lanes whose bit (a for the low half, b for the high half) is set in v.
inline __mmask64 bit_halves(__m512i v, int a, int b) {
    const __m512i bits = _mm512_inserti64x4(_mm512_set1_epi8(static_cast<char>(1 << a)),
                                            _mm256_set1_epi8(static_cast<char>(1 << b)), 1);
    return _mm512_test_epi8_mask(v, bits);
}

// Each format: kMin, how its min / offset term enters the floats; kOffset4, levels minus 4 per element (q3_K).
struct Q4_K : TypeRow<GGML_TYPE_Q4_K> {
    static constexpr MinTerm kMin     = MinTerm::kQuads;
    static constexpr bool    kOffset4 = false;
    static Scales scales(const uint8_t * b) {
        uint64_t sc, m;
        unpack_k4(b + 4, &sc, &m);
        return {per16_from_per32(sc), per16_from_per32(m), half(b), -half(b + 2)};
    }
    // elements 64 q .. 64 q + 63 for q = 0..3 from the two qs vectors
    static void codes(const uint8_t * b, __m512i * u) {
        const __m512i low4 = _mm512_set1_epi8(0x0f);
        for (int h = 0; h < 2; ++h) {
            const __m512i qs = _mm512_loadu_si512(b + 16 + 64 * h);
            const __m512i lo = _mm512_and_si512(qs, low4);                        // elements [0..31 | 64..95]
            const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(qs, 4), low4); // elements [32..63 | 96..127]
            u[2 * h]         = _mm512_shuffle_i64x2(lo, hi, 0x44);
            u[2 * h + 1]     = _mm512_shuffle_i64x2(lo, hi, 0xee);
        }
    }
};

struct Q5_K : TypeRow<GGML_TYPE_Q5_K> {
    static constexpr MinTerm kMin     = MinTerm::kTotal;
    static constexpr bool    kOffset4 = false;
    static Scales            scales(const uint8_t * b) { return Q4_K::scales(b); }
    static void             codes(const uint8_t * b, __m512i * u) {
        const __m512i low4 = _mm512_set1_epi8(0x0f), sixteen = _mm512_set1_epi8(16);
        const __m512i qh   = broadcast256(b + 16);
        for (int h = 0; h < 2; ++h) {
            const __m512i qs = _mm512_loadu_si512(b + 48 + 64 * h);
            const __m512i lo = _mm512_and_si512(qs, low4);
            const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(qs, 4), low4);
            u[2 * h]         = _mm512_shuffle_i64x2(lo, hi, 0x44);
            u[2 * h + 1]     = _mm512_shuffle_i64x2(lo, hi, 0xee);
        }
        for (int q = 0; q < 4; ++q) { // element i's fifth bit: bit i / 32 of qh[i % 32]
            u[q] = _mm512_mask_add_epi8(u[q], bit_halves(qh, 2 * q, 2 * q + 1), u[q], sixteen);
        }
    }
};

struct Q6_K : TypeRow<GGML_TYPE_Q6_K> {
    static constexpr MinTerm kMin     = MinTerm::kSubtract;
    static constexpr bool    kOffset4 = false;
    static Scales scales(const uint8_t * b) {
        const __m256i sc = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + 192)));
        const float   d  = half(b + 208);
        return {sc, _mm256_slli_epi16(sc, 5), d, -d}; // level = code - 32
    }
    static void codes(const uint8_t * b, __m512i * u) {
        const __m512i low4 = _mm512_set1_epi8(0x0f), high2 = _mm512_set1_epi8(0x30);
        for (int h = 0; h < 2; ++h) {
            const __m512i ql = _mm512_loadu_si512(b + 64 * h);
            const __m512i qh = broadcast256(b + 128 + 32 * h);
            // elements 128 h + 0..63: ql low nibbles, qh bits 0-1 | 2-3; 64..127: high nibbles, bits 4-5 | 6-7
            const __m512i hi_a = _mm512_and_si512(_mm512_sllv_epi16(qh, _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1)), high2);
            const __m512i hi_b = _mm512_and_si512(shift_halves(qh, 0, 2), high2);
            u[2 * h]           = _mm512_or_si512(_mm512_and_si512(ql, low4), hi_a);
            u[2 * h + 1]       = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), low4), hi_b);
        }
    }
};

// q2_K / q3_K: element 128 h + 32 j + l has its 2 low bits at bits 2 j of qs[32 h + l]
inline void two_bit_planes(const uint8_t * qs, __m512i * u) {
    const __m512i three = _mm512_set1_epi8(3);
    for (int h = 0; h < 2; ++h) {
        const __m512i q = broadcast256(qs + 32 * h);
        u[2 * h]        = _mm512_and_si512(shift_halves(q, 0, 2), three);
        u[2 * h + 1]    = _mm512_and_si512(shift_halves(q, 4, 6), three);
    }
}

struct Q2_K : TypeRow<GGML_TYPE_Q2_K> {
    static constexpr MinTerm kMin     = MinTerm::kLanes;
    static constexpr bool    kOffset4 = false;
    static Scales scales(const uint8_t * b) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i *>(b));
        const __m128i low4   = _mm_set1_epi8(0x0f);
        return {_mm256_cvtepu8_epi16(_mm_and_si128(packed, low4)),
                _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low4)),
                half(b + 80), -half(b + 82)};
    }
    static void codes(const uint8_t * b, __m512i * u) { two_bit_planes(b + 16, u); }
};

struct Q3_K : TypeRow<GGML_TYPE_Q3_K> {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = true;
    static Scales scales(const uint8_t * b) {
        uint32_t a[4];
        unpack_q3_k_scales(b + 96, a);
        // built in registers: a vector load of the four words just stored would stall on store forwarding
        const __m128i packed = _mm_setr_epi32(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]),
                                              static_cast<int>(a[3]));
        const __m256i sc = _mm256_sub_epi16(_mm256_cvtepu8_epi16(packed), _mm256_set1_epi16(32));
        const float   d  = half(b + 108);
        return {sc, _mm256_slli_epi16(sc, 2), d, -d}; // level = code - 4
    }
    static void codes(const uint8_t * b, __m512i * u) {
        two_bit_planes(b + 32, u);
        const __m512i hm = broadcast256(b), four = _mm512_set1_epi8(4);
        for (int q = 0; q < 4; ++q) { // element i's high bit: bit i / 32 of hmask[i % 32]
            u[q] = _mm512_mask_add_epi8(u[q], bit_halves(hm, 2 * q, 2 * q + 1), u[q], four);
        }
    }
};

// IQ4_XS: IQ4_NL's signed table levels (vpshufb of the nibbles), the 6-bit scales minus 32 per 32 elements. Its
// products are |level| times the activation with the level's sign (vpmaddubsw needs an unsigned operand), as
// upstream's mul_add_epi8 forms them, so the int16 pairs are upstream's own.
struct IQ4_XS : TypeRow<GGML_TYPE_IQ4_XS> {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static Scales scales(const uint8_t * b) {
        const uint64_t ls = iq4_xs_scale_bytes(b);
        const __m256i sc = _mm256_sub_epi16(per16_from_per32(ls), _mm256_set1_epi16(32));
        return {sc, _mm256_setzero_si256(), half(b), 0.0f};
    }
    // elements 64 q .. 64 q + 63: sub-blocks 2 q and 2 q + 1, each its 16 low nibbles, then its 16 high ones
    static void codes(const uint8_t * b, __m512i * u) {
        const __m512i low4  = _mm512_set1_epi8(0x0f);
        const __m512i table =
            _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(quant::kIq4nlValues)));
        for (int h = 0; h < 2; ++h) {
            const __m512i qs = _mm512_loadu_si512(b + 8 + 64 * h); // sub-blocks 4 h .. 4 h + 3, one per 128 bits
            const __m512i lo = _mm512_shuffle_epi8(table, _mm512_and_si512(qs, low4));
            const __m512i hi = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(qs, 4), low4));
            const __m512i a  = _mm512_shuffle_i64x2(lo, hi, 0x44); // lo 0, lo 1, hi 0, hi 1
            const __m512i c  = _mm512_shuffle_i64x2(lo, hi, 0xee); // lo 2, lo 3, hi 2, hi 3
            u[2 * h]         = _mm512_shuffle_i64x2(a, a, 0xd8);   // lo 0, hi 0, lo 1, hi 1
            u[2 * h + 1]     = _mm512_shuffle_i64x2(c, c, 0xd8);
        }
    }
};

// ---- the IQ grid formats (grid_levels.h): grid bytes with their signs, 2 s + 1 per 16 elements, d x the constant ----
// Decoded by grid_avx512.h in whole vectors (not through Grid<Block>'s per-run accessors, which would cost twice the
// time): the magnitudes and their signs as masks apart (kSplitSigns), so the activations take the signs directly.

template <class Block>
struct GridFormat : TypeRow<Block::kType> {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static constexpr bool    kSplitSigns = true; // codes() gives the magnitudes and their signs (masks) apart
    static Scales scales(const uint8_t * b) {
        using G           = Grid<Block>;
        const uint64_t sw = G::scale_word(b);
        return {odd_scales<G::kPer16>(sw), _mm256_setzero_si256(), half(b) * G::kConstant, 0.0f};
    }
    static void codes(const uint8_t * b, __m512i * u, __mmask64 * negs) { grid_codes<Block>(b, u, negs); }
};

using IQ2_XXS = GridFormat<quant::BlockIQ2_XXS>;
using IQ2_XS  = GridFormat<quant::BlockIQ2_XS>;
using IQ2_S   = GridFormat<quant::BlockIQ2_S>;
using IQ3_XXS = GridFormat<quant::BlockIQ3_XXS>;
using IQ3_S   = GridFormat<quant::BlockIQ3_S>;

// ---- the -1 / 0 / +1 formats (ternary_levels.h, decoded by ternary_x86.h) ------------------------------------------

struct TQ2_0 : TritFormat<GGML_TYPE_TQ2_0> {
    static void codes(const uint8_t * b, __m512i * u) { two_bit_planes(b, u); } // q2_K's layout of the 2-bit values
};

// tq1_0: the bytes times 3^n once each (ternary_x86.h), the top digits by two compares per 64 bytes.
struct TQ1_0 : TritFormat<GGML_TYPE_TQ1_0> {
    static __m512i top_trit(__m512i x) {
        const __m512i one = _mm512_set1_epi8(1);
        return _mm512_add_epi8(_mm512_maskz_mov_epi8(_mm512_cmpge_epu8_mask(x, _mm512_set1_epi8(86)), one),
                               _mm512_maskz_mov_epi8(_mm512_cmpge_epu8_mask(x, _mm512_set1_epi8(static_cast<char>(171))),
                                                     one));
    }
    static void codes(const uint8_t * b, __m512i * u) {
        const Tq1Powers t = tq1_powers(b);
        for (int q = 0; q < 4; ++q) {
            u[q] = top_trit(_mm512_inserti64x4(_mm512_castsi256_si512(tq1_piece_bytes(t, 2 * q)),
                                               tq1_piece_bytes(t, 2 * q + 1), 1));
        }
    }
};

// iq1 (ternary_x86.h: Iq1SFormat, Iq1MFormat): the grid bytes by scalar loads; iq1_m's shifts per element as masks
// (shifts()) into the second lanes (grid_avx512.h).
template <class Block>
__attribute__((always_inline)) inline void iq1_codes(const uint8_t * b, __m512i * u) { // kept in registers
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        u[q] = iq1_points<Block>(b, q);
    }
}

struct IQ1_S : Iq1SFormat {
    __attribute__((always_inline)) static void codes(const uint8_t * b, __m512i * u) { iq1_codes<quant::BlockIQ1_S>(b, u); }
};

struct IQ1_M : Iq1MFormat {
    __attribute__((always_inline)) static void codes(const uint8_t * b, __m512i * u) { iq1_codes<quant::BlockIQ1_M>(b, u); }
    // Per 64 elements, the elements whose shift is -1/8.
    static void shifts(const uint8_t * b, __mmask64 * neg) {
        for (int q = 0; q < 4; ++q) {
            neg[q] = iq1_negative_shifts<quant::BlockIQ1_M>(b, q);
        }
    }
};

template <class F, int C>
void row_times_columns(const MatVecArgs & a, const uint8_t * w, float * out, const __m512i * lanes) {
    const auto * act = static_cast<const uint8_t *>(a.act);
    UpstreamSums sums[C];
    for (int64_t i = 0; i < a.k / kQK_K; ++i) {
        const uint8_t * wb = w + i * F::kBytes;
        prefetch_lines<static_cast<int64_t>(F::kBytes)>(wb + kPrefetchBytes);
        const Scales s = F::scales(wb);
        __m512i      u[4];
        __mmask64    negs[4] = {};
        if constexpr (requires { F::kSplitSigns; }) {
            F::codes(wb, u, negs); // the grid formats: magnitudes, and their signs as masks
        } else {
            F::codes(wb, u);
        }
        constexpr bool kDeltas = F::kMin == MinTerm::kDeltaLanes;
        __mmask64      shift_negs[4] = {};
        if constexpr (kDeltas) {
            F::shifts(wb, shift_negs);
        }
        const __m512i sc = _mm512_castsi256_si512(s.scale);
        __m512i       dot[C], dot2[C];
        for (int c = 0; c < C; ++c) {
            dot[c] = dot2[c] = _mm512_setzero_si512();
        }
#pragma GCC unroll 4 // the codes and masks stay in registers
        for (int q = 0; q < 4; ++q) {
            const __m512i   scq  = _mm512_permutexvar_epi16(lanes[q], sc);
            constexpr bool  kSplit = requires { F::kSplitSigns; };
            const __mmask64 neg  = kSplit ? negs[q] : signed_codes<F>() ? _mm512_movepi8_mask(u[q]) : 0;
            const __m512i   mags = signed_codes<F>() && !kSplit ? _mm512_abs_epi8(u[q]) : u[q];
            for (int c = 0; c < C; ++c) {
                const uint8_t * y  = act + static_cast<size_t>(c) * a.act_col + i * kActBytes + kActQs + 64 * q;
                __m512i         yv = _mm512_loadu_si512(y);
                if constexpr (kDeltas) { // the shifts: +-q pairs, as upstream's maddubs of ones
                    const __m512i shifted = _mm512_mask_sub_epi8(yv, shift_negs[q], _mm512_setzero_si512(), yv);
                    dot2[c] = _mm512_dpwssd_epi32(dot2[c], _mm512_maddubs_epi16(_mm512_set1_epi8(1), shifted), scq);
                }
                if constexpr (signed_codes<F>()) { // the activation with the level's sign (-(-128) stays -128)
                    yv = _mm512_mask_sub_epi8(yv, neg, _mm512_setzero_si512(), yv);
                }
                __m512i pairs = _mm512_maddubs_epi16(mags, yv);
                if constexpr (F::kOffset4) { // (code - 4) * y, exact in int16 as upstream computes it
                    pairs = _mm512_sub_epi16(pairs, _mm512_maddubs_epi16(_mm512_set1_epi8(4), yv));
                }
                dot[c] = _mm512_dpwssd_epi32(dot[c], pairs, scq);
            }
        }
        for (int c = 0; c < C; ++c) {
            const uint8_t * ab = act + static_cast<size_t>(c) * a.act_col + i * kActBytes;
            float           da;
            std::memcpy(&da, ab, sizeof(da));
            const __m256i sumi = _mm256_add_epi32(_mm512_castsi512_si256(dot[c]), _mm512_extracti64x4_epi64(dot[c], 1));
            __m256i       mins = _mm256_setzero_si256();
            if constexpr (kDeltas) {
                mins = _mm256_add_epi32(_mm512_castsi512_si256(dot2[c]), _mm512_extracti64x4_epi64(dot2[c], 1));
            } else if constexpr (F::kMin != MinTerm::kNone) {
                mins = _mm256_madd_epi16(load256(ab + kActBsums), s.factor);
            }
            add_super_block<F::kMin>(sums[c], sumi, mins, da * s.d, da * s.bsum_d);
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = finish<F::kMin>(sums[c]);
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    const __m512i lanes[4] = {vector_of(scale_lanes(0)), vector_of(scale_lanes(1)), vector_of(scale_lanes(2)),
                              vector_of(scale_lanes(3))};
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) { row_times_columns<F, C>(a, w, out, lanes); });
    });
}

} // namespace

MatVecFn kquants_avx512vnni(ggml_type weight) {
    return kernel_for<Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M, TQ1_0,
                      TQ2_0>(weight, []<class F>() { return kernel<F>; });
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
