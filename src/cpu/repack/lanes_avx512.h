// AVX-512 helpers the repacked layout's vector tile and expander share (tile_avx512vnni.cpp,
// expand_avx512vnni.cpp): included only by those files, inside their ISA flags.
#pragma once

#include "cpu/repack/format.h"

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

namespace switchyard::cpu::repack {
namespace {

// every lane: the zero-masking forms of the conversions and broadcasts, because the plain ones trip GCC 12's
// -Wmaybe-uninitialized (they start from an undefined vector)
constexpr __mmask16 kAll = 0xffff;

// 16 f16 values / 16 unsigned bytes as floats.
inline __m512 halves_to_floats(const uint8_t * p) {
    return _mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}

// -(16 f16 values), negated by flipping the sign bit, as gemm.cpp's packer negates dmin (-0 for 0).
inline __m512 negated_halves_to_floats(const uint8_t * p) {
    return _mm512_xor_ps(halves_to_floats(p), _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(0x80000000u))));
}

// 16 E8M0 bytes as 2^(e - 128) (quants/levels.h: e8m0_half): (e - 1) << 23, below 2 the subnormals 2^21 << e.
inline __m512 e8m0_halves_to_floats(const uint8_t * p) {
    const __m512i   e     = _mm512_maskz_cvtepu8_epi32(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    const __m512i   one   = _mm512_set1_epi32(1);
    const __m512i   bits  = _mm512_maskz_slli_epi32(kAll, _mm512_sub_epi32(e, one), 23);
    const __mmask16 small = _mm512_cmplt_epu32_mask(e, _mm512_set1_epi32(2));
    return _mm512_castsi512_ps(_mm512_mask_sllv_epi32(bits, small, _mm512_set1_epi32(0x00200000), e));
}

inline __m512 bytes_to_floats(const uint8_t * p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepu8_epi32(kAll, bytes));
}

inline __m512 signed_bytes_to_floats(const uint8_t * p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepi8_epi32(kAll, bytes));
}

// The levels u = low | high << 4 (0..63) of group h (0, 1) of a q6_K pair of groups (format.h): quad i of the group
// is the low (h = 0) or high (h = 1) nibbles of nibble vector i with bits 2i, 2i + 1 of high-bit vector h on top.
template <int kHalf>
inline void q6_K_levels(const uint8_t * pair, __m512i * u) {
    const __m512i low4  = _mm512_set1_epi8(0x0f);
    const __m512i bits  = _mm512_set1_epi8(0x30);
    const __m512i highs = _mm512_loadu_si512(pair + (4 + kHalf) * 64);
    const __m512i hi[4] = {_mm512_slli_epi16(highs, 4), _mm512_slli_epi16(highs, 2), highs,
                           _mm512_srli_epi16(highs, 2)}; // quad i's two bits at bits 4, 5
    for (int i = 0; i < 4; ++i) {
        __m512i nib = _mm512_loadu_si512(pair + i * 64);
        if constexpr (kHalf == 1) {
            nib = _mm512_srli_epi16(nib, 4);
        }
        // (nib & 0x0f) | (hi & 0x30) as one ternary function of (nib, hi & 0x30, 0x0f): (a & c) | b = 0xEC
        u[i] = _mm512_ternarylogic_epi32(nib, _mm512_and_si512(hi[i], bits), low4, 0xEC);
    }
}

// 16-bit lane shifts by a count known at compile time once the callers' loops unroll (the immediate forms need a
// constant even without optimisation).
inline __m512i shr16(__m512i v, int n) { return _mm512_srl_epi16(v, _mm_cvtsi32_si128(n)); }
inline __m512i shl16(__m512i v, int n) { return _mm512_sll_epi16(v, _mm_cvtsi32_si128(n)); }

// A 2-bit vector's four quads (q2_K's groups of 16, tq2_0's halves of a group of 32: quad i in bits 2i, 2i + 1 of
// each byte) as byte levels.
inline void two_bit_quads(const uint8_t * p, __m512i * u) {
    const __m512i v     = _mm512_loadu_si512(p);
    const __m512i three = _mm512_set1_epi8(3);
    for (int i = 0; i < 4; ++i) {
        u[i] = _mm512_and_si512(shr16(v, 2 * i), three);
    }
}

// tq1_0's trits (format.h) of 64 bytes at once: the top base-3 digit of each byte, (3 x) >> 8 = (x >= 86) +
// (x >= 171); and the bytes times 3 (mod 256), whose top digit is the next trit.
inline __m512i top_trits(__m512i x) {
    const __m512i   one   = _mm512_set1_epi8(1);
    const __mmask64 ge86  = _mm512_cmpge_epu8_mask(x, _mm512_set1_epi8(86));
    const __mmask64 ge171 = _mm512_cmpge_epu8_mask(x, _mm512_set1_epi8(static_cast<char>(171)));
    const __m512i   t     = _mm512_maskz_mov_epi8(ge86, one);
    return _mm512_mask_add_epi8(t, ge171, t, one);
}

inline __m512i triple_bytes(__m512i x) { return _mm512_add_epi8(x, _mm512_add_epi8(x, x)); }

// The levels of a tq1_0 super-block's eight groups of 32, in order, from its 13 vectors (format.h): group j < 5 is
// trit j of vectors 0..7, groups 5 and 6 two trits of vectors 8..11, group 7 the last trit of vectors 8..11 and the
// four of vector 12. Each call of next() gives the next group's eight quads; the vectors are tripled as they go.
class Tq1Groups {
  public:
    explicit Tq1Groups(const uint8_t * levels) : levels_(levels) {
        for (int q = 0; q < 8; ++q) {
            v_[q] = _mm512_loadu_si512(levels + q * 64);
        }
    }

    void next(__m512i * u) {
        if (j_ < 5) {
            for (int q = 0; q < 8; ++q) {
                u[q]  = top_trits(v_[q]);
                v_[q] = triple_bytes(v_[q]);
            }
        } else {
            if (j_ == 5) {
                for (int p = 0; p < 5; ++p) {
                    v_[p] = _mm512_loadu_si512(levels_ + (8 + p) * 64);
                }
            }
            for (int p = 0; p < 4; ++p) {
                u[p]  = top_trits(v_[p]);
                v_[p] = triple_bytes(v_[p]);
            }
            for (int p = 0; p < 4; ++p) { // groups 5, 6: the next trit of vectors 8..11; group 7: vector 12's four
                const int i = j_ < 7 ? p : 4;
                u[4 + p]    = top_trits(v_[i]);
                v_[i]       = triple_bytes(v_[i]);
            }
        }
        ++j_;
    }

  private:
    const uint8_t * levels_;
    __m512i         v_[8];
    int             j_ = 0;
};

// The same for a tq2_0 super-block's levels (format.h: two 2-bit vectors a group, quads 4h + i in bits 2i).
class Tq2Groups {
  public:
    explicit Tq2Groups(const uint8_t * levels) : p_(levels) {}

    void next(__m512i * u) {
        two_bit_quads(p_, u);
        two_bit_quads(p_ + 64, u + 4);
        p_ += kTQ2GroupBytes;
    }

  private:
    const uint8_t * p_;
};

// The trit formats' group decoder.
template <ggml_type kType>
using TritGroups = std::conditional_t<kType == GGML_TYPE_TQ1_0, Tq1Groups, Tq2Groups>;

// The four quads' levels u of group 2j + kHalf of a q2_K, q3_K or q6_K super-block (format.h); `levels`: the
// block's first level byte (after its header).
template <ggml_type kType, int kHalf>
inline void k16_levels(const uint8_t * levels, int j, __m512i * u) {
    if constexpr (kType == GGML_TYPE_Q6_K) {
        q6_K_levels<kHalf>(levels + j * kQ6KPairBytes, u);
    } else if constexpr (kType == GGML_TYPE_Q2_K) {
        two_bit_quads(levels + (2 * j + kHalf) * 64, u);
    } else { // q3_K: q2_K's two bits, the third (bit 4 kHalf + i of the pair's third vector) as bit 2
        const uint8_t * pair  = levels + j * kQ3KPairBytes;
        const __m512i   v     = _mm512_loadu_si512(pair + kHalf * 64);
        const __m512i   third = _mm512_loadu_si512(pair + 128);
        const __m512i   three = _mm512_set1_epi8(3);
        const __m512i   bit2  = _mm512_set1_epi8(4);
        for (int i = 0; i < 4; ++i) {
            const int     at = 4 * kHalf + i; // to bit 2
            const __m512i hb = _mm512_and_si512(at >= 2 ? shr16(third, at - 2) : shl16(third, 2 - at), bit2);
            u[i]             = _mm512_ternarylogic_epi32(shr16(v, 2 * i), hb, three, 0xEC); // (a & c) | b
        }
    }
}

// The factors of group g of such a block for its 16 rows: s = d * scale, and for q2_K m = -dmin * min (neg_dmin:
// negated_halves_to_floats of dmin), zero for the others.
struct K16Factors {
    __m512 s, m;
};

template <ggml_type kType>
inline K16Factors k16_factors(const uint8_t * block, int g, __m512 d, __m512 neg_dmin) {
    const uint8_t * sc = block + kK16ScalesAt + g * kPanelRows;
    if constexpr (kType == GGML_TYPE_Q2_K) { // the scale in the low nibble, the min in the high
        const __m512i bytes = _mm512_maskz_cvtepu8_epi32(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i *>(sc)));
        const __m512  scale = _mm512_maskz_cvtepi32_ps(kAll, _mm512_and_si512(bytes, _mm512_set1_epi32(0xf)));
        const __m512  min   = _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_srli_epi32(kAll, bytes, 4));
        return {_mm512_mul_ps(d, scale), _mm512_mul_ps(neg_dmin, min)};
    } else {
        return {_mm512_mul_ps(d, signed_bytes_to_floats(sc)), _mm512_setzero_ps()};
    }
}

// q5_K's levels of nibble vector j of a group (format.h): quads j (low nibbles) and j + 4 (high ones), each with its
// fifth bit (bit j, j + 4 of the group's high vector `high`) on top as 0x10.
inline void fifth_bit_levels(__m512i v, __m512i high, int j, __m512i & lo, __m512i & hi) {
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    // bit j to bit 4: shift left by 4 - j; bit j + 4 is bit 4 after a right shift by j (16-bit shifts: the AND
    // drops what crosses bytes)
    const __m512i b_lo = _mm512_and_si512(_mm512_sll_epi16(high, _mm_cvtsi32_si128(4 - j)), bit4);
    const __m512i b_hi = _mm512_and_si512(_mm512_srl_epi16(high, _mm_cvtsi32_si128(j)), bit4);
    lo = _mm512_ternarylogic_epi32(v, b_lo, low4, 0xEC); // (a & c) | b, as q6_K_levels
    hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(v, 4), b_hi, low4, 0xEC);
}

// The value table of a 32-element format T (iq4_nl, mxfp4), its levels + the GEMM's bias (iq4_nl's 128, mxfp4's 12),
// in every 16-byte lane, for vpshufb and for vpermb (whose index bits 4 and 5 then select equal lanes); zero for the
// formats whose nibbles are the levels.
template <ggml_type T>
inline __m512i level_table_zmm() {
    if constexpr (kLevelTable<T> == nullptr) {
        return _mm512_setzero_si512();
    } else {
        alignas(16) int8_t t[16];
        for (int i = 0; i < 16; ++i) {
            t[i] = static_cast<int8_t>(kLevelTable<T>[i] + quants::cpu_type_row(T).gemm_bias);
        }
        return _mm512_maskz_broadcast_i32x4(kAll, _mm_load_si128(reinterpret_cast<const __m128i *>(t)));
    }
}

// The 16 rows' scales of a group of a 32-element format T: f16 values, or mxfp4's E8M0 bytes.
template <ggml_type T>
inline __m512 group_scales(const uint8_t * p) {
    if constexpr (kE8M0Scales<T>) {
        return e8m0_halves_to_floats(p);
    } else {
        return halves_to_floats(p);
    }
}

} // namespace
} // namespace switchyard::cpu::repack
