// AVX2 kernels of the K-quants (q2_K .. q6_K), iq4_xs, the grid formats (grid_levels.h) and the -1 / 0 / +1 formats
// (iq1_s, iq1_m, tq1_0, tq2_0: ternary_levels.h) against q8_K activations.
// A super-block is taken 32 elements (a "piece") at a time: the piece's unsigned levels in element order (q3_K's
// minus 4, per element; iq4_xs's and the grid formats' signed levels as their magnitudes, the activations taking
// their signs), multiplied with the activations' 32 levels (maddubs: int16 pair sums) and scaled per 16 elements
// (madd with the sub-block scales) into int32 lanes, lane l taking elements 4 l .. 4 l + 3 of every piece:
// upstream's lanes. Once per super-block the lanes and the min / offset terms (through the activations' bsums)
// become floats in upstream's order (upstream_sums_x86.h). Written once as a template over the format.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/grid_levels.h"
#include "cpu/quants/kquant_scales_x86.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/ternary_levels.h"
#include "cpu/quants/ternary_x86.h"
#include "cpu/quants/upstream_sums_x86.h"
#include "cpu/simd/int_avx2.h"

namespace switchyard::cpu::quants {

namespace {

using namespace simd;

constexpr size_t kQ8KBytes = sizeof(quant::BlockQ8_K);
constexpr size_t kQ8KQs    = 4, kQ8KBsums = 260;

inline __m256i shift_right16(__m256i x, int n) { return _mm256_srl_epi16(x, _mm_cvtsi32_si128(n)); }

// [scale 2 p x 8 | scale 2 p + 1 x 8]: the int16 scales of piece p's two halves.
inline __m256i piece_scales(__m256i scale, int p) {
    const __m256i pair = _mm256_permutevar8x32_epi32(scale, _mm256_set1_epi32(p));
    return _mm256_shuffle_epi8(pair, _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3,
                                                      2, 3, 2, 3, 2, 3, 2, 3, 2, 3));
}

// Each format: kMin, how its min / offset term enters the floats; kOffset4, levels minus 4 per element (q3_K).
struct Q2_K : TypeRow<GGML_TYPE_Q2_K> {
    static constexpr MinTerm kMin     = MinTerm::kLanes;
    static constexpr bool    kOffset4 = false;
    static Scales scales(const uint8_t * b) {
        const __m128i packed = load128(b), low4 = _mm_set1_epi8(0x0f);
        return {_mm256_cvtepu8_epi16(_mm_and_si128(packed, low4)),
                _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low4)), half_to_float(b + 80),
                -half_to_float(b + 82)};
    }
    static __m256i piece(const uint8_t * b, int p) {
        return _mm256_and_si256(shift_right16(load256(b + 16 + 32 * (p / 4)), 2 * (p % 4)), _mm256_set1_epi8(3));
    }
};

struct Q3_K : TypeRow<GGML_TYPE_Q3_K> {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = true;
    static Scales scales(const uint8_t * b) {
        uint32_t w[4];
        unpack_q3_k_scales(b + 96, w);
        const __m128i packed = _mm_setr_epi32(static_cast<int>(w[0]), static_cast<int>(w[1]), static_cast<int>(w[2]),
                                              static_cast<int>(w[3]));
        const __m256i sc = _mm256_sub_epi16(_mm256_cvtepu8_epi16(packed), _mm256_set1_epi16(32));
        const float   d  = half_to_float(b + 108);
        return {sc, _mm256_slli_epi16(sc, 2), d, -d}; // level = code - 4
    }
    static __m256i piece(const uint8_t * b, int p) {
        const __m256i low  = _mm256_and_si256(shift_right16(load256(b + 32 + 32 * (p / 4)), 2 * (p % 4)), _mm256_set1_epi8(3));
        const __m256i high = _mm256_and_si256(shift_right16(load256(b), p), _mm256_set1_epi8(1));
        return _mm256_or_si256(low, _mm256_slli_epi16(high, 2));
    }
};

inline Scales k4_scales(const uint8_t * b) {
    uint64_t sc, m;
    unpack_k4(b + 4, &sc, &m);
    return {per16_from_per32(sc), per16_from_per32(m), half_to_float(b), -half_to_float(b + 2)};
}

struct Q4_K : TypeRow<GGML_TYPE_Q4_K> {
    static constexpr MinTerm kMin     = MinTerm::kQuads;
    static constexpr bool    kOffset4 = false;
    static Scales            scales(const uint8_t * b) { return k4_scales(b); }
    static __m256i piece(const uint8_t * b, int p) {
        return _mm256_and_si256(shift_right16(load256(b + 16 + 32 * (p / 2)), 4 * (p % 2)), _mm256_set1_epi8(0xf));
    }
};

struct Q5_K : TypeRow<GGML_TYPE_Q5_K> {
    static constexpr MinTerm kMin     = MinTerm::kTotal;
    static constexpr bool    kOffset4 = false;
    static Scales            scales(const uint8_t * b) { return k4_scales(b); }
    static __m256i piece(const uint8_t * b, int p) {
        const __m256i low  = _mm256_and_si256(shift_right16(load256(b + 48 + 32 * (p / 2)), 4 * (p % 2)), _mm256_set1_epi8(0xf));
        const __m256i high = _mm256_and_si256(shift_right16(load256(b + 16), p), _mm256_set1_epi8(1));
        return _mm256_or_si256(low, _mm256_slli_epi16(high, 4));
    }
};

struct Q6_K : TypeRow<GGML_TYPE_Q6_K> {
    static constexpr MinTerm kMin     = MinTerm::kSubtract;
    static constexpr bool    kOffset4 = false;
    static Scales scales(const uint8_t * b) {
        const __m256i sc = _mm256_cvtepi8_epi16(load128(b + 192));
        const float   d  = half_to_float(b + 208);
        return {sc, _mm256_slli_epi16(sc, 5), d, -d}; // level = code - 32
    }
    static __m256i piece(const uint8_t * b, int p) {
        const int     h = p / 4, q = p % 4;
        const __m256i low  = _mm256_and_si256(shift_right16(load256(b + 64 * h + 32 * (q % 2)), 4 * (q / 2)), _mm256_set1_epi8(0xf));
        const __m256i high = _mm256_and_si256(shift_right16(load256(b + 128 + 32 * h), 2 * q), _mm256_set1_epi8(3));
        return _mm256_or_si256(low, _mm256_slli_epi16(high, 4));
    }
};

// IQ4_XS: a piece is one sub-block, its 16 low nibbles then its 16 high ones through IQ4_NL's table (signed
// levels), the 6-bit scales minus 32; the products are |level| times the activation with the level's sign, as
// upstream's mul_add_epi8 forms them.
struct IQ4_XS : TypeRow<GGML_TYPE_IQ4_XS> {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static Scales scales(const uint8_t * b) {
        const uint64_t ls = iq4_xs_scale_bytes(b);
        return {_mm256_sub_epi16(per16_from_per32(ls), _mm256_set1_epi16(32)), _mm256_setzero_si256(), half_to_float(b),
                0.0f};
    }
    static __m256i piece(const uint8_t * b, int p) {
        const __m128i table = load128(quant::kIq4nlValues), low4 = _mm_set1_epi8(0x0f);
        const __m128i qs    = load128(b + 8 + 16 * p);
        return _mm256_set_m128i(_mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(qs, 4), low4)),
                                _mm_shuffle_epi8(table, _mm_and_si128(qs, low4)));
    }
};

// ---- the IQ grid formats (grid_levels.h): a piece is one group of 32, 4 runs of grid bytes with their signs ------

// 32 grid magnitudes with their signs: byte e negative where bit e of neg is set (upstream's mask expansion).
inline __m256i with_signs(__m256i mags, uint32_t neg) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                                            3, 3, 3, 3, 3, 3, 3); // byte e / 8 of neg to byte e
    const __m256i bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(neg)), spread);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i m   = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
    return _mm256_sub_epi8(_mm256_xor_si256(mags, m), m);
}

inline __m256i points4(uint64_t p0, uint64_t p1, uint64_t p2, uint64_t p3) {
    return _mm256_set_epi64x(static_cast<long long>(p3), static_cast<long long>(p2), static_cast<long long>(p1),
                             static_cast<long long>(p0));
}

template <class Block>
struct GridFormat {
    static constexpr MinTerm kMin     = MinTerm::kNone;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static Scales scales(const uint8_t * b) {
        using G = Grid<Block>;
        return {odd_scales<G::kPer16>(G::scale_word(b)), _mm256_setzero_si256(), half_to_float(b) * G::kConstant,
                0.0f};
    }
};

struct IQ2_XXS : TypeRow<GGML_TYPE_IQ2_XXS>, GridFormat<quant::BlockIQ2_XXS> {
    static __m256i piece(const uint8_t * b, int p) {
        const uint8_t *  g    = b + 2 + 8 * p; // 4 index bytes, then the word
        const uint64_t * grid = quant::kIq2xxsGrid;
        return with_signs(points4(grid[g[0]], grid[g[1]], grid[g[2]], grid[g[3]]),
                          grid_detail::even_signs4(grid_detail::u32_at(g + 4)));
    }
};

struct IQ2_XS : TypeRow<GGML_TYPE_IQ2_XS>, GridFormat<quant::BlockIQ2_XS> {
    static __m256i piece(const uint8_t * b, int p) {
        uint16_t w[4];
        std::memcpy(w, b + 2 + 8 * p, sizeof(w));
        const uint64_t * grid = quant::kIq2xsGrid;
        uint32_t         neg  = 0;
        for (int r = 0; r < 4; ++r) {
            neg |= static_cast<uint32_t>(quant::kEvenSigns[w[r] >> 9]) << (8 * r);
        }
        return with_signs(points4(grid[w[0] & 511], grid[w[1] & 511], grid[w[2] & 511], grid[w[3] & 511]), neg);
    }
};

struct IQ2_S : TypeRow<GGML_TYPE_IQ2_S>, GridFormat<quant::BlockIQ2_S> {
    static __m256i piece(const uint8_t * b, int p) {
        const uint8_t *  qs   = b + 2 + 4 * p;
        const unsigned   qh   = b[66 + p];
        const uint64_t * grid = quant::kIq2sGrid;
        return with_signs(points4(grid[qs[0] | ((qh & 3u) << 8)], grid[qs[1] | ((qh & 0xcu) << 6)],
                                  grid[qs[2] | ((qh & 0x30u) << 4)], grid[qs[3] | ((qh & 0xc0u) << 2)]),
                          grid_detail::u32_at(b + 34 + 4 * p));
    }
};

struct IQ3_XXS : TypeRow<GGML_TYPE_IQ3_XXS>, GridFormat<quant::BlockIQ3_XXS> {
    static __m256i piece(const uint8_t * b, int p) {
        const uint8_t *  qs   = b + 2 + 8 * p;
        const uint32_t * grid = quant::kIq3xxsGrid;
        const __m256i    mags = _mm256_setr_epi32(static_cast<int>(grid[qs[0]]), static_cast<int>(grid[qs[1]]),
                                                  static_cast<int>(grid[qs[2]]), static_cast<int>(grid[qs[3]]),
                                                  static_cast<int>(grid[qs[4]]), static_cast<int>(grid[qs[5]]),
                                                  static_cast<int>(grid[qs[6]]), static_cast<int>(grid[qs[7]]));
        return with_signs(mags, grid_detail::even_signs4(grid_detail::u32_at(b + 66 + 4 * p)));
    }
};

struct IQ3_S : TypeRow<GGML_TYPE_IQ3_S>, GridFormat<quant::BlockIQ3_S> {
    static __m256i piece(const uint8_t * b, int p) {
        const uint8_t *  qs   = b + 2 + 8 * p;
        const unsigned   qh   = b[66 + p];
        const uint32_t * grid = quant::kIq3sGrid;
        int              v[8];
        for (int t = 0; t < 8; ++t) {
            v[t] = static_cast<int>(grid[qs[t] | (((qh >> t) & 1u) << 8)]);
        }
        return with_signs(_mm256_setr_epi32(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]),
                          grid_detail::u32_at(b + 74 + 4 * p));
    }
};

// ---- the -1 / 0 / +1 formats (ternary_levels.h) -------------------------------------------------------------------

struct TQ2_0 : TritFormat<GGML_TYPE_TQ2_0> {
    static __m256i piece(const uint8_t * b, int p) { return tq2_piece(b, p); }
};

struct TQ1_0 : TritFormat<GGML_TYPE_TQ1_0> {
    static void pieces(const uint8_t * b, __m256i * v) { tq1_pieces(b, v); }
};

// iq1: a piece is one group's grid bytes (ternary_x86.h: Iq1SFormat, Iq1MFormat); iq1_m's shifts per element
// (delta()) go into the second lanes.
struct IQ1_S : Iq1SFormat {
    static __m256i piece(const uint8_t * b, int p) { return iq1_piece<quant::BlockIQ1_S>(b, p); }
};

struct IQ1_M : Iq1MFormat {
    static __m256i piece(const uint8_t * b, int p) { return iq1_piece<quant::BlockIQ1_M>(b, p); }
    static __m256i delta(const uint8_t * b, int p) { return iq1_deltas<quant::BlockIQ1_M>(b, p); }
};

template <class F, int C>
void row_times_columns(const MatVecArgs & a, const uint8_t * w, float * out) {
    const auto * act = static_cast<const uint8_t *>(a.act);
    UpstreamSums sums[C];
    for (int64_t i = 0; i < a.k / kQK_K; ++i) {
        const uint8_t * wb = w + i * F::kBytes;
        prefetch_lines<static_cast<int64_t>(F::kBytes)>(wb + kPrefetchBytes);
        const Scales s = F::scales(wb);
        constexpr bool kDeltas = F::kMin == MinTerm::kDeltaLanes;
        // the trit formats' unit scales: their pairs summed in int16 (8 pieces of codes <= 3: no overflow), widened
        // once per super-block below, as upstream sums them
        constexpr bool kUnit  = requires { F::kUnitScale; };
        constexpr bool kWhole = requires(__m256i * v) { F::pieces(wb, v); }; // a whole super-block decoded at once
        __m256i        sumi[C], sumi2[C];
        for (int c = 0; c < C; ++c) {
            sumi[c] = sumi2[c] = _mm256_setzero_si256();
        }
        __m256i pieces[8];
        if constexpr (kWhole) {
            F::pieces(wb, pieces);
        }
#pragma GCC unroll 8
        for (int p = 0; p < 8; ++p) {
            __m256i v;
            if constexpr (kWhole) {
                v = pieces[p];
            } else {
                v = F::piece(wb, p);
            }
            const __m256i u  = signed_codes<F>() ? _mm256_sign_epi8(v, v) : v; // magnitudes of signed levels
            const __m256i sc = kUnit ? _mm256_set1_epi16(1) : piece_scales(s.scale, p);
            __m256i       delta = _mm256_setzero_si256();
            if constexpr (kDeltas) {
                delta = F::delta(wb, p);
            }
            for (int c = 0; c < C; ++c) {
                const uint8_t * y  = act + static_cast<size_t>(c) * a.act_col + i * kQ8KBytes + kQ8KQs + 32 * p;
                const __m256i   yv = signed_codes<F>() ? _mm256_sign_epi8(load256(y), v) : load256(y);
                __m256i         pairs = dot_u8_i16(u, yv);
                if constexpr (F::kOffset4) { // (code - 4) * y, exact in int16 as upstream computes it
                    pairs = _mm256_sub_epi16(pairs, dot_u8_i16(_mm256_set1_epi8(4), yv));
                }
                sumi[c] = kUnit ? _mm256_add_epi16(sumi[c], pairs) : _mm256_add_epi32(sumi[c], _mm256_madd_epi16(pairs, sc));
                if constexpr (kDeltas) { // the shifts: +-q pairs, as upstream's maddubs of ones
                    const __m256i shifted = dot_u8_i16(_mm256_set1_epi8(1), _mm256_sign_epi8(load256(y), delta));
                    sumi2[c]              = _mm256_add_epi32(sumi2[c], _mm256_madd_epi16(shifted, sc));
                }
            }
        }
        for (int c = 0; c < C; ++c) {
            const uint8_t * ab = act + static_cast<size_t>(c) * a.act_col + i * kQ8KBytes;
            float           da;
            std::memcpy(&da, ab, sizeof(da));
            if constexpr (kUnit) {
                sumi[c] = _mm256_madd_epi16(sumi[c], _mm256_set1_epi16(1));
            }
            __m256i mins = sumi2[c];
            if constexpr (F::kMin != MinTerm::kNone && !kDeltas) {
                mins = _mm256_madd_epi16(load256(ab + kQ8KBsums), s.factor);
            }
            add_super_block<F::kMin>(sums[c], sumi[c], mins, da * s.d, da * s.bsum_d);
        }
    }
    for (int c = 0; c < C; ++c) {
        out[c * a.out_col] = finish<F::kMin>(sums[c]);
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) { row_times_columns<F, C>(a, w, out); });
    });
}

} // namespace

MatVecFn kquants_avx2(ggml_type weight) {
    return kernel_for<Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M, TQ1_0,
                      TQ2_0>(weight, []<class F>() { return kernel<F>; });
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
