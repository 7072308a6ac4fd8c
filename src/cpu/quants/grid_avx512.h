// The AVX-512 (VBMI) decode of the IQ grid formats (grid_levels.h) and of iq1's grid bytes and shifts, shared by the
// matrix-vector kernel
// (kquants_avx512vnni.cpp) and the GEMM's packer (gemm_pack_avx512vnni.cpp), both compiled with the AVX-512 VNNI
// level's flags: grid_codes<Block> gives a super-block's 256 grid bytes as four vectors of 64 magnitudes in element
// order (elements 64 q .. 64 q + 63: runs 8 q .. 8 q + 7) and their signs as four masks (bit e: element 64 q + e
// negative). The points come by scalar loads (iq2_xxs, iq2_xs, iq2_s, iq3_xxs; faster than gathers where those are
// microcoded) or a gather (iq3_s, as fast there), the signs straight from the sign bytes (iq2_s, iq3_s) or through
// kEvenSigns as a vpermi2b table (iq2_xxs, iq2_xs, iq3_xxs). Included only by those files, inside their ISA flags.
#pragma once

#include "cpu/quants/grid_levels.h"

#include "cpu/simd/intrinsics.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {
namespace {

inline __m128i load128(const uint8_t * p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }

// Eight 8-byte grid points by scalar loads (faster than a vpgatherdq where gathers are microcoded).
inline __m512i points8(const uint64_t * grid, unsigned i0, unsigned i1, unsigned i2, unsigned i3, unsigned i4,
                       unsigned i5, unsigned i6, unsigned i7) {
    const auto    pair = [grid](unsigned x, unsigned y) {
        return _mm_insert_epi64(_mm_cvtsi64_si128(static_cast<long long>(grid[x])), static_cast<long long>(grid[y]), 1);
    };
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(pair(i0, i1)), pair(i2, i3), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(pair(i4, i5)), pair(i6, i7), 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// Sixteen 4-byte grid points, indexed by the bytes at idx, by scalar loads.
inline __m512i points16(const uint32_t * grid, const uint8_t * idx) {
    const auto quad = [&](int i) {
        __m128i v = _mm_cvtsi32_si128(static_cast<int>(grid[idx[i]]));
        v         = _mm_insert_epi32(v, static_cast<int>(grid[idx[i + 1]]), 1);
        v         = _mm_insert_epi32(v, static_cast<int>(grid[idx[i + 2]]), 2);
        return _mm_insert_epi32(v, static_cast<int>(grid[idx[i + 3]]), 3);
    };
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(quad(0)), quad(4), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(quad(8)), quad(12), 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// The sign bytes of 64 kEvenSigns indices (each byte's low 7 bits) by one two-table vpermi2b.
inline __m512i even_signs(__m512i idx) {
    const __m512i lo = _mm512_loadu_si512(quant::kEvenSigns.data());
    const __m512i hi = _mm512_loadu_si512(quant::kEvenSigns.data() + 64);
    return _mm512_permutex2var_epi8(lo, idx, hi);
}

// The sign bytes of the 32 runs of an iq2_xxs / iq3_xxs super-block whose 8 words (7-bit kEvenSigns indices at
// bits 7 r) sit in the high halves of the qwords of w: one multishift picks the indices, one two-table vpermb maps
// them; then per 64 elements (two groups) the 8 bytes as one mask.
inline void even_sign_masks(__m512i w, __mmask64 * negs) {
    // bytes 0..3 of each qword: bits 32 + 7 r of it
    const __m512i sgn = even_signs(_mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x00000000352e2720ll), w));
    alignas(64) uint32_t bytes[16];
    _mm512_store_si512(bytes, sgn);
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        negs[q] = bytes[4 * q] | static_cast<uint64_t>(bytes[4 * q + 2]) << 32;
    }
}

// iq1_s / iq1_m (ternary_levels.h): the grid bytes (-1, 0, 1) of elements 64 q .. 64 q + 63 (runs 8 q ..), by scalar
// loads.
template <class Block>
__attribute__((always_inline)) inline __m512i iq1_points(const uint8_t * b, int q) {
    const auto at = [&](int r) { return iq1_run<Block>(b, 8 * q + r).index; };
    return points8(quant::kIq1sGrid, at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
}

// Which of those 64 elements have the shift -1/8: iq1_s's per group of 32 (bit 15 of the group's qh word), iq1_m's
// per run of 8 (bit 3 of the run's nibble: qh byte run / 2, nibble run % 2), one qh dword spread by a vpermb.
template <class Block>
__attribute__((always_inline)) inline __mmask64 iq1_negative_shifts(const uint8_t * b, int q) {
    alignas(64) static constexpr uint8_t kRunByte[64] = { // iq1_m: element e's qh byte (of the dword)
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    alignas(64) static constexpr uint8_t kGroupByte[64] = { // iq1_s: the high byte of element e's group's word
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    constexpr bool kS  = std::is_same_v<Block, quant::BlockIQ1_S>;
    const __m512i  bit = kS ? _mm512_set1_epi8(static_cast<char>(0x80))
                            : _mm512_broadcast_i32x4(_mm_set_epi64x(static_cast<long long>(0x8080808080808080ull),
                                                                    0x0808080808080808ll)); // runs even, odd
    uint32_t word; // iq1_s: qh words 2 q, 2 q + 1; iq1_m: qh bytes 4 q .. 4 q + 3
    std::memcpy(&word, b + offsetof(Block, qh) + 4 * q, sizeof(word));
    const __m512i bytes = _mm512_permutexvar_epi8(_mm512_load_si512(kS ? kGroupByte : kRunByte),
                                                  _mm512_set1_epi32(static_cast<int>(word)));
    return _mm512_test_epi8_mask(bytes, bit);
}

template <class Block>
void grid_codes(const uint8_t * b, __m512i * u, __mmask64 * negs);

template <>
inline void grid_codes<quant::BlockIQ2_XXS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) { // two groups: 4 index bytes, then a word, each
        const uint8_t * g = b + 2 + 16 * q;
        u[q]              = points8(quant::kIq2xxsGrid, g[0], g[1], g[2], g[3], g[8], g[9], g[10], g[11]);
    }
    even_sign_masks(_mm512_loadu_si512(b + 2), negs); // qword g: group g's index bytes, then its word
}

template <>
inline void grid_codes<quant::BlockIQ2_XS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const __m512i words = _mm512_loadu_si512(b + 2); // run r: 9-bit index, 7-bit sign index
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        uint16_t w[8];
        std::memcpy(w, b + 2 + 16 * q, sizeof(w));
        u[q] = points8(quant::kIq2xsGrid, w[0] & 511u, w[1] & 511u, w[2] & 511u, w[3] & 511u, w[4] & 511u,
                       w[5] & 511u, w[6] & 511u, w[7] & 511u);
    }
    // each word's top 7 bits through kEvenSigns, one byte a run
    const __m512i sgn = even_signs(_mm512_srli_epi16(words, 9));
    alignas(32) uint64_t bytes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(bytes), _mm512_cvtepi16_epi8(sgn));
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        negs[q] = bytes[q];
    }
}

template <>
inline void grid_codes<quant::BlockIQ2_S>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) { // run i: index byte i, its two high bits at 2 (i % 4) of qh[2 q + i / 4]
        const uint8_t * qs = b + 2 + 8 * q;
        const unsigned  h0 = b[66 + 2 * q], h1 = b[67 + 2 * q];
        u[q] = points8(quant::kIq2sGrid, qs[0] | ((h0 << 8) & 0x300u), qs[1] | ((h0 << 6) & 0x300u),
                       qs[2] | ((h0 << 4) & 0x300u), qs[3] | ((h0 << 2) & 0x300u), qs[4] | ((h1 << 8) & 0x300u),
                       qs[5] | ((h1 << 6) & 0x300u), qs[6] | ((h1 << 4) & 0x300u), qs[7] | ((h1 << 2) & 0x300u));
        std::memcpy(&negs[q], b + 34 + 8 * q, sizeof(negs[q]));
    }
}

template <>
inline void grid_codes<quant::BlockIQ3_XXS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        u[q] = points16(quant::kIq3xxsGrid, b + 2 + 16 * q);
    }
    // the 8 words into the high halves of 8 qwords
    const __m512i words = _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 66)));
    even_sign_masks(_mm512_slli_epi64(words, 32), negs);
}

template <>
inline void grid_codes<quant::BlockIQ3_S>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const auto * grid = reinterpret_cast<const int *>(quant::kIq3sGrid);
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) { // index i's ninth bit: bit i of qh's two bytes
        const auto    high = static_cast<__mmask16>(b[66 + 2 * q] | (b[67 + 2 * q] << 8));
        const __m512i low  = _mm512_cvtepu8_epi32(load128(b + 2 + 16 * q));
        const __m512i idx  = _mm512_mask_or_epi32(low, high, low, _mm512_set1_epi32(256));
        u[q]               = _mm512_i32gather_epi32(idx, grid, 4);
        std::memcpy(&negs[q], b + 74 + 8 * q, sizeof(negs[q]));
    }
}

} // namespace
} // namespace switchyard::cpu::quants
