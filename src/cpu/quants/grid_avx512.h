// The AVX-512 (VBMI) decode of the IQ grid formats (grid_levels.h), shared by the matrix-vector kernel
// (kquants_avx512vnni.cpp) and the GEMM's packer (gemm_pack_avx512vnni.cpp), both compiled with the AVX-512 VNNI
// level's flags: grid_codes<Block> gives a super-block's 256 grid bytes as four vectors of 64 magnitudes in element
// order (elements 64 q .. 64 q + 63: runs 8 q .. 8 q + 7) and their signs as four masks (bit e: element 64 q + e
// negative). The points come by gathers, the signs straight from the sign bytes (iq2_s, iq3_s) or through kEvenSigns
// as a vpermi2b table (iq2_xxs, iq2_xs, iq3_xxs). Included only by those files, inside their ISA flags.
#pragma once

#include "cpu/quants/grid_levels.h"

#include "cpu/simd/intrinsics.h"

#include <array>
#include <cstdint>

namespace switchyard::cpu::quants {
namespace {

inline __m128i load64(const uint8_t * p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)); }
inline __m128i load128(const uint8_t * p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }

// kEvenSigns as the two 64-byte tables of a vpermi2b.
inline const std::array<uint8_t, 128> & even_signs_table() {
    static const std::array<uint8_t, 128> table = [] {
        std::array<uint8_t, 128> t{};
        for (size_t i = 0; i < t.size(); ++i) {
            t[i] = quant::kEvenSigns[i];
        }
        return t;
    }();
    return table;
}

// The sign bytes of the 32 runs of an iq2_xxs / iq3_xxs super-block whose 8 words (7-bit kEvenSigns indices at
// bits 7 r) sit in the high halves of the qwords of w: one multishift picks the indices, one two-table vpermb maps
// them; then per 64 elements (two groups) the 8 bytes as one mask.
inline void even_sign_masks(__m512i w, __mmask64 * negs) {
    const __m512i lo  = _mm512_loadu_si512(even_signs_table().data());
    const __m512i hi  = _mm512_loadu_si512(even_signs_table().data() + 64);
    // bytes 0..3 of each qword: bits 32 + 7 r of it (vpermi2b reads an index's low 7 bits)
    const __m512i idx = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x00000000352e2720ll), w);
    const __m512i sgn = _mm512_permutex2var_epi8(lo, idx, hi);
    alignas(64) uint32_t bytes[16];
    _mm512_store_si512(bytes, sgn);
    for (int q = 0; q < 4; ++q) {
        negs[q] = bytes[4 * q] | static_cast<uint64_t>(bytes[4 * q + 2]) << 32;
    }
}

template <class Block>
void grid_codes(const uint8_t * b, __m512i * u, __mmask64 * negs);

template <>
inline void grid_codes<quant::BlockIQ2_XXS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    for (int q = 0; q < 4; ++q) { // two groups: 4 index bytes, then a word, each
        const uint64_t ib = grid_detail::u32_at(b + 2 + 16 * q) |
                            uint64_t{grid_detail::u32_at(b + 10 + 16 * q)} << 32;
        const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(ib)));
        u[q]               = _mm512_i32gather_epi64(idx, quant::kIq2xxsGrid, 8);
    }
    even_sign_masks(_mm512_loadu_si512(b + 2), negs); // qword g: group g's index bytes, then its word
}

template <>
inline void grid_codes<quant::BlockIQ2_XS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const __m512i words = _mm512_loadu_si512(b + 2); // run r: 9-bit index, 7-bit sign index
    for (int q = 0; q < 4; ++q) {
        const __m256i w8  = _mm256_cvtepu16_epi32(load128(b + 2 + 16 * q));
        const __m256i idx = _mm256_and_si256(w8, _mm256_set1_epi32(511));
        u[q]              = _mm512_i32gather_epi64(idx, quant::kIq2xsGrid, 8);
    }
    // each word's top 7 bits through kEvenSigns (vpermi2b reads an index's low 7 bits), one byte a run
    const __m512i table_lo = _mm512_loadu_si512(even_signs_table().data());
    const __m512i table_hi = _mm512_loadu_si512(even_signs_table().data() + 64);
    const __m512i sgn = _mm512_permutex2var_epi8(table_lo, _mm512_srli_epi16(words, 9), table_hi);
    alignas(32) uint64_t bytes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(bytes), _mm512_cvtepi16_epi8(sgn));
    for (int q = 0; q < 4; ++q) {
        negs[q] = bytes[q];
    }
}

template <>
inline void grid_codes<quant::BlockIQ2_S>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    for (int q = 0; q < 4; ++q) { // run i: index byte i, its two high bits at 2 i of qh's two bytes
        const __m256i low  = _mm256_cvtepu8_epi32(load64(b + 2 + 8 * q));
        const __m256i qh   = _mm256_set1_epi32(b[66 + 2 * q] | (b[67 + 2 * q] << 8));
        const __m256i high = _mm256_and_si256(_mm256_srlv_epi32(qh, shifts), _mm256_set1_epi32(3));
        const __m256i idx  = _mm256_or_si256(low, _mm256_slli_epi32(high, 8));
        u[q]               = _mm512_i32gather_epi64(idx, quant::kIq2sGrid, 8);
        std::memcpy(&negs[q], b + 34 + 8 * q, sizeof(negs[q]));
    }
}

template <>
inline void grid_codes<quant::BlockIQ3_XXS>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const auto * grid = reinterpret_cast<const int *>(quant::kIq3xxsGrid);
    for (int q = 0; q < 4; ++q) {
        const __m512i idx = _mm512_cvtepu8_epi32(load128(b + 2 + 16 * q));
        u[q]              = _mm512_i32gather_epi32(idx, grid, 4);
    }
    // the 8 words into the high halves of 8 qwords
    const __m512i words = _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 66)));
    even_sign_masks(_mm512_slli_epi64(words, 32), negs);
}

template <>
inline void grid_codes<quant::BlockIQ3_S>(const uint8_t * b, __m512i * u, __mmask64 * negs) {
    const auto * grid = reinterpret_cast<const int *>(quant::kIq3sGrid);
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
