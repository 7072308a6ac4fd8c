// The x86 decode of the -1 / 0 / +1 formats (ternary_levels.h) in pieces of 32 elements (piece p: elements 32 p ..
// 32 p + 31), shared by the AVX2 and AVX-512 VNNI matrix-vector kernels (kquants_avx2.cpp, kquants_avx512vnni.cpp)
// and the AVX-512 GEMM packer (gemm_pack_avx512vnni.cpp): everything is in an unnamed namespace, so each compiles its
// own copy with its own flags (AVX2 instructions only).
//
//   tq1_0    the stored trits (0, 1, 2): trit n of a byte is the top base-3 digit of byte * 3^n (mod 256), so a
//            vector of bytes times 3^n (additions) gives it by two unsigned compares
//   tq2_0    the stored 2-bit values
//   iq1      the grid bytes (-1, 0, 1) of a group's four runs; 2 s + 1 per 16 elements; iq1_s's (2 s + 1) * delta
//            per 16 (its shifts go through the bsums); the shifts' signs per element (iq1_m's AVX2 kernel)
#pragma once

#if defined(__x86_64__)

#include "cpu/quants/kquant_scales_x86.h"
#include "cpu/quants/ternary_levels.h"
#include "cpu/quants/type_rows.h"
#include "cpu/quants/upstream_order.h"

#include "cpu/simd/intrinsics.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {
namespace {

namespace ternary_x86 {

inline __m128i load16(const uint8_t * p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }
inline __m256i load32(const uint8_t * p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }

// Bytes times 3 (mod 256).
inline __m256i triple(__m256i x) { return _mm256_add_epi8(x, _mm256_add_epi8(x, x)); }
inline __m128i triple(__m128i x) { return _mm_add_epi8(x, _mm_add_epi8(x, x)); }

// The top base-3 digit of each byte: (3 x) >> 8, that is (x >= 86) + (x >= 171).
inline __m256i top_trit(__m256i x) {
    const __m256i ge86  = _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8(86)), x);
    const __m256i ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8(static_cast<char>(171))), x);
    return _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(ge86, ge171));
}

} // namespace ternary_x86

// tq2_0: element 128 h + 32 s + m at bits 2 s of qs[32 h + m].
inline __m256i tq2_piece(const uint8_t * b, int p) {
    const __m256i q = ternary_x86::load32(b + 32 * (p / 4));
    return _mm256_and_si256(_mm256_srl_epi16(q, _mm_cvtsi32_si128(2 * (p % 4))), _mm256_set1_epi8(3));
}

// tq1_0, before the top digits: x[n] = qs[0..31] times 3^n, y[n] = qs[32..47] times 3^n and h = qh's bytes times
// 3^n in dword n (element 240 + 4 n + m: trit n of qh[m]). Pieces 0..4 are the top digits of x[p]; pieces 5..7 those
// of y[0] y[1], y[2] y[3], y[4] h.
struct Tq1Powers {
    __m256i x[5];
    __m128i y[5], h;
};

inline Tq1Powers tq1_powers(const uint8_t * b) {
    using ternary_x86::triple;
    Tq1Powers t;
    t.x[0] = ternary_x86::load32(b);
    t.y[0] = ternary_x86::load16(b + 32);
    for (int n = 1; n < 5; ++n) {
        t.x[n] = triple(t.x[n - 1]);
        t.y[n] = triple(t.y[n - 1]);
    }
    uint32_t qh;
    std::memcpy(&qh, b + 48, sizeof(qh));
    const __m128i h1 = _mm_set1_epi32(static_cast<int>(qh)), h3 = triple(h1), h9 = triple(h3);
    t.h = _mm_blend_epi32(_mm_blend_epi32(h1, h3, 0x2), _mm_blend_epi32(h9, triple(h9), 0x8), 0xc);
    return t;
}

// The bytes whose top digits are piece p (0..7).
inline __m256i tq1_piece_bytes(const Tq1Powers & t, int p) {
    switch (p) {
        case 5:  return _mm256_set_m128i(t.y[1], t.y[0]);
        case 6:  return _mm256_set_m128i(t.y[3], t.y[2]);
        case 7:  return _mm256_set_m128i(t.h, t.y[4]);
        default: return t.x[p];
    }
}

// tq1_0: all eight pieces.
inline void tq1_pieces(const uint8_t * b, __m256i * v) {
    const Tq1Powers t = tq1_powers(b);
    for (int p = 0; p < 8; ++p) {
        v[p] = ternary_x86::top_trit(tq1_piece_bytes(t, p));
    }
}

// iq1: the grid bytes of group p's four runs.
template <class Block>
inline __m256i iq1_piece(const uint8_t * b, int p) {
    const uint64_t * grid = quant::kIq1sGrid;
    const auto       at   = [&](int r) { return static_cast<long long>(grid[iq1_run<Block>(b, 4 * p + r).index]); };
    return _mm256_set_epi64x(at(3), at(2), at(1), at(0));
}

// iq1: the shifts' signs of group p, -1 or +1 per element: iq1_s's one per group (bit 15 of its qh word), iq1_m's
// per run of 8 (bit 3 of its qh nibble: bits 3, 7, 11, 15 of the group's two qh bytes).
template <class Block>
inline __m256i iq1_deltas(const uint8_t * b, int p) {
    uint16_t qh;
    std::memcpy(&qh, b + offsetof(Block, qh) + 2 * p, sizeof(qh));
    const __m256i mask = std::is_same_v<Block, quant::BlockIQ1_S> ? _mm256_set1_epi64x(0x8000)
                                                                  : _mm256_setr_epi64x(0x8, 0x80, 0x800, 0x8000);
    const __m256i bits     = _mm256_and_si256(_mm256_set1_epi16(static_cast<int16_t>(qh)), mask);
    const __m256i positive = _mm256_cmpeq_epi64(bits, _mm256_setzero_si256());
    return _mm256_or_si256(_mm256_set1_epi8(1), _mm256_andnot_si256(positive, _mm256_set1_epi8(-1)));
}

// iq1_s: 2 s + 1 per 16 elements, and (2 s + 1) * delta (the bsums' factor).
inline void iq1_s_scales(const uint8_t * b, __m256i * scale, __m256i * factor) {
    const __m128i qh  = ternary_x86::load16(b + offsetof(quant::BlockIQ1_S, qh));
    const __m128i ls  = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(qh, 12), _mm_set1_epi16(7)), 1),
                                     _mm_set1_epi16(1));
    const __m128i neg = _mm_srai_epi16(qh, 15); // bit 15: the shift is -1/8
    *scale            = per16_twice(ls);
    *factor           = per16_twice(_mm_sub_epi16(_mm_xor_si128(ls, neg), neg));
}

// iq1_m: 2 s + 1 per 16 elements: scale j (run pair j) is bits 6 (j / 2 % 2) + 3 (j % 2) of word j / 4, moved to
// bits 9..11 by one multiply (the shifts 0, 3, 6, 9 repeat every four lanes).
inline __m256i iq1_m_scales(const uint8_t * b) {
    uint64_t words;
    std::memcpy(&words, b + offsetof(quant::BlockIQ1_M, scales), sizeof(words));
    const __m256i w = _mm256_shuffle_epi8(_mm256_set1_epi64x(static_cast<long long>(words)),
                                          _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3, 4, 5, 4, 5, 4,
                                                           5, 4, 5, 6, 7, 6, 7, 6, 7, 6, 7));
    const __m256i aligned = _mm256_mullo_epi16(w, _mm256_setr_epi16(512, 64, 8, 1, 512, 64, 8, 1, 512, 64, 8, 1, 512,
                                                                    64, 8, 1));
    const __m256i s = _mm256_and_si256(_mm256_srli_epi16(aligned, 9), _mm256_set1_epi16(7));
    return _mm256_or_si256(_mm256_slli_epi16(s, 1), _mm256_set1_epi16(1));
}

// ---- the formats' facts for the kernels' structs (kquants_avx2.cpp, kquants_avx512vnni.cpp add their decode) ----

// The trit formats: the stored trits t as unsigned codes, scale 1, q6_K's term with factor 1 (lanes - bsums pairs).
template <ggml_type T>
struct TritFormat : TypeRow<T> {
    static constexpr MinTerm kMin       = MinTerm::kSubtract;
    static constexpr bool    kOffset4   = false;
    static constexpr bool    kUnitScale = true; // every scale 1: a kernel may sum the pairs before scaling
    static Scales scales(const uint8_t * b) {
        const __m256i one = _mm256_set1_epi16(1);
        return {one, one, _cvtsh_ss(ternary_detail::u16_at(b + offsetof(TernaryBlockOf<T>, d))), 0.0f};
    }
};

// iq1_s / iq1_m: the grid bytes (-1, 0, 1) as signed levels, 2 s + 1 per 16 elements, d = d_w; the shifts at d_w / 8
// through the bsums as a total (iq1_s, factor (2 s + 1) * delta) or per element as second lanes (iq1_m).
struct Iq1SFormat : TypeRow<GGML_TYPE_IQ1_S> {
    static constexpr MinTerm kMin     = MinTerm::kTotal;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static Scales scales(const uint8_t * b) {
        Scales s{};
        iq1_s_scales(b, &s.scale, &s.factor);
        s.d      = _cvtsh_ss(iq1_d_bits<quant::BlockIQ1_S>(b));
        s.bsum_d = s.d * 0.125f;
        return s;
    }
};

struct Iq1MFormat : TypeRow<GGML_TYPE_IQ1_M> {
    static constexpr MinTerm kMin     = MinTerm::kDeltaLanes;
    static constexpr bool    kOffset4 = false;
    static constexpr bool    kSigned  = true;
    static Scales scales(const uint8_t * b) {
        const float d = _cvtsh_ss(iq1_d_bits<quant::BlockIQ1_M>(b));
        return {iq1_m_scales(b), _mm256_setzero_si256(), d, d * 0.125f};
    }
};

} // namespace
} // namespace switchyard::cpu::quants

#endif // __x86_64__
