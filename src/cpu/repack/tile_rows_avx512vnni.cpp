// The repacked rows form's tile on AVX-512 VNNI (format.h: iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m, the
// 16 rows' own blocks). Per super-block each row is decoded as the GEMM's packer decodes it (quants/iq_levels_avx512.h:
// biased levels in element order, the group scales' bytes), the 16 rows' levels transposed in registers into the
// GEMM panel's quads (lane r: row r), and from there the GEMM tile's arithmetic: per column and group G / 4 vpdpbusd
// with the column's broadcast quads, then t += float(sum) * s, out += t * da per super-block (quants/gemm.h), so the
// products are the GEMM's bits in every batch. Measured on a Zen 5 class EPYC (2 threads, 4096 x 4096, against the
// plain path's matrix-vector kernels, which give upstream's bits): one column 0.81-0.94 x (14336 x 4096, from DRAM:
// 0.82-0.93 x), two 0.89-1.12 x, 4-16 columns 1.03-1.89 x. Expanding the panel with the GEMM's packer per call
// instead (its gathers) decoded one column at 0.25-0.3 x; summing each row in element order, then the 16 rows' sums
// into lanes by pairwise shuffles, ran as fast for one column and at 0.6 x for four.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm_cols.h"
#include "cpu/quants/iq_levels_avx512.h"
#include "cpu/repack/format.h"

#include <immintrin.h>

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

using quants::GemmTileArgs;

// The scales of a super-block's groups, lane r row r's, from the rows' d and s_j bytes (sj[r], byte j: group j's,
// iq_group_s): 2 s_j + 1 in bytes, a 16 x 16 byte transpose by two-source vpermb, then per group s = d x (2 s_j + 1)
// in float, as the GEMM's packer computes it.
struct alignas(64) ScaleBytes {
    uint8_t at[4][64]; // [k][16 jj + r]: where row r's byte of group 4 k + jj is in sj[0], sj[1] (rows 0..7) or
                       // sj[2], sj[3] (rows 8..15), which hold four rows of 16 bytes each
};

constexpr ScaleBytes scale_bytes() {
    ScaleBytes t{};
    for (int k = 0; k < 4; ++k) {
        for (int i = 0; i < 64; ++i) {
            const int r = i % 16;
            t.at[k][i]  = static_cast<uint8_t>((r / 4) % 2 * 64 + 16 * (r % 4) + 4 * k + i / 16);
        }
    }
    return t;
}

template <int kPer>
__attribute__((always_inline)) inline void group_scales(const __m512i * sj, __m512 d, __m512 * s) {
    static constexpr ScaleBytes kAt = scale_bytes();
    __m512i                     odd[4]; // 2 s_j + 1 (at most 31)
    for (int i = 0; i < 4; ++i) {
        odd[i] = _mm512_or_si512(_mm512_add_epi8(sj[i], sj[i]), _mm512_set1_epi8(1));
    }
    for (int k = 0; k < kPer / 4; ++k) { // groups 4 k .. 4 k + 3: byte 16 jj + r is row r's of group 4 k + jj
        const __m512i idx = _mm512_load_si512(kAt.at[k]);
        const __m512i t   = _mm512_mask_blend_epi8(0xff00ff00ff00ff00ull, _mm512_permutex2var_epi8(odd[0], idx, odd[1]),
                                                   _mm512_permutex2var_epi8(odd[2], idx, odd[3]));
        const __m128i quarter[4] = {_mm512_extracti32x4_epi32(t, 0), _mm512_extracti32x4_epi32(t, 1),
                                    _mm512_extracti32x4_epi32(t, 2), _mm512_extracti32x4_epi32(t, 3)};
        for (int jj = 0; jj < 4; ++jj) {
            s[4 * k + jj] = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(quarter[jj])));
        }
    }
}

// The 16 rows' dwords of one piece (in[r] lane e: row r's elements 4 e .. 4 e + 3) as the GEMM panel's quads
// (out[e] lane r: the same dword): a 16 x 16 transpose of dwords in four rounds of 16 shuffles.
__attribute__((always_inline)) inline void transpose_quads(const __m512i * in, __m512i * out) {
    __m512i t[16], u[16];
    for (int i = 0; i < 8; ++i) { // t[2 i], t[2 i + 1]: rows 2 i and 2 i + 1 interleaved, dwords 0, 1 / 2, 3 of a lane
        t[2 * i]     = _mm512_unpacklo_epi32(in[2 * i], in[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(in[2 * i], in[2 * i + 1]);
    }
    for (int k = 0; k < 4; ++k) { // u[4 k + j] lane L: rows 4 k .. 4 k + 3 of dword 4 L + j
        u[4 * k]     = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
        u[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
        u[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
        u[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
    }
    for (int j = 0; j < 4; ++j) { // 128-bit lanes L of u[j], u[4 + j], u[8 + j], u[12 + j] into out[4 L + j]
        const __m512i v0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x88), w0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xdd);
        const __m512i v1 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x88);
        const __m512i w1 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xdd);
        out[j]      = _mm512_shuffle_i32x4(v0, v1, 0x88);
        out[8 + j]  = _mm512_shuffle_i32x4(v0, v1, 0xdd);
        out[4 + j]  = _mm512_shuffle_i32x4(w0, w1, 0x88);
        out[12 + j] = _mm512_shuffle_i32x4(w0, w1, 0xdd);
    }
}

// One super-block of the 16 rows times the columns: its levels transposed into the GEMM panel's quads, piece by
// piece, then per column and group G / 4 vpdpbusd with the column's broadcast quads from the column's -bias * sum(q),
// and the floats into out, as the GEMM's tile computes them.
template <int kGroup, int kCols>
__attribute__((always_inline)) inline void columns_superblock(const __m512i (*lv)[4], const __m512 * s, const uint8_t * x,
                                                              size_t cb, int cc, __m512 * out) {
    constexpr int kPieceGrp = 64 / kGroup;
    constexpr int kQuads    = kGroup / 4;
    __m512        t[kCols]; // the super-block's sums before da
    for (int c = 0; c < kCols; ++c) {
        t[c] = _mm512_setzero_ps();
    }
    for (int q = 0; q < 4; ++q) {
        __m512i in[kPanelRows], quads[16];
        for (int r = 0; r < kPanelRows; ++r) {
            in[r] = lv[r][q];
        }
        transpose_quads(in, quads);
        for (int h = 0; h < kPieceGrp; ++h) {
            const uint8_t * g = x + static_cast<size_t>(q * kPieceGrp + h) * cb;
            __m512i         acc[kCols];
            for (int c = 0; c < kCols; ++c) {
                ChunkAux aux;
                std::memcpy(&aux, g + kGroup * cc + c * sizeof(ChunkAux), sizeof(aux));
                acc[c] = _mm512_set1_epi32(aux.word); // - 128 sum(q)
            }
            for (int j = 0; j < kQuads; ++j) {
                for (int c = 0; c < kCols; ++c) {
                    int32_t word;
                    std::memcpy(&word, g + (j * cc + c) * 4, sizeof(word));
                    acc[c] = _mm512_dpbusd_epi32(acc[c], quads[h * kQuads + j], _mm512_set1_epi32(word));
                }
            }
            for (int c = 0; c < kCols; ++c) {
                t[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[c]), s[q * kPieceGrp + h], t[c]);
            }
        }
    }
    for (int c = 0; c < kCols; ++c) {
        ChunkAux aux0; // the super-block's da (its first group's)
        std::memcpy(&aux0, x + kGroup * cc + c * sizeof(ChunkAux), sizeof(aux0));
        out[c] = _mm512_fmadd_ps(t[c], _mm512_set1_ps(aux0.da), out[c]);
    }
}

template <ggml_type T, int kCols>
void rows_tile(const GemmTileArgs & a) {
    using Block          = quants::LevelsBlockOf<T>;
    constexpr int kGroup = quants::cpu_type_row(T).gemm_group;
    constexpr int kPer   = quant::kQK_K / kGroup; // groups per super-block
    const size_t  cb     = chunk_group_bytes(kGroup, a.chunk_cols);
    const auto *  panel  = static_cast<const uint8_t *>(a.panel);
    const auto *  x      = static_cast<const uint8_t *>(a.chunk);
    __m512        out[kCols];
    for (int c = 0; c < kCols; ++c) {
        out[c] = _mm512_setzero_ps();
    }
    // the super-block's levels row by row, the rows' d and s_j bytes (16 a row); missing rows: zero
    alignas(64) __m512i  lv[kPanelRows][4];
    alignas(32) uint16_t d[kPanelRows]; // f16 bits (iq_d_bits)
    alignas(64) uint8_t  sj[kPanelRows][16];
    for (int r = a.rows; r < kPanelRows; ++r) {
        std::memset(lv[r], 0, sizeof(lv[r]));
        std::memset(sj[r], 0, sizeof(sj[r]));
        d[r] = 0;
    }
    for (int64_t b = 0; b < a.k / quant::kQK_K; ++b, x += kPer * cb) {
        for (int r = 0; r < a.rows; ++r) {
            const uint8_t * blk = panel + rows_block_at(T, r, b);
            quants::iq_codes<Block>(blk, lv[r]);
            d[r] = quants::iq_d_bits<Block>(blk);
            _mm_store_si128(reinterpret_cast<__m128i *>(sj[r]), quants::iq_group_s<Block>(blk));
        }
        const __m512i rows_sj[4] = {_mm512_load_si512(sj[0]), _mm512_load_si512(sj[4]), _mm512_load_si512(sj[8]),
                                    _mm512_load_si512(sj[12])};
        __m512 s[kPer];
        const __m512 dv = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i *>(d))),
                                        _mm512_set1_ps(quants::iq_d_constant<Block>()));
        group_scales<kPer>(rows_sj, dv, s);
        columns_superblock<kGroup, kCols>(lv, s, x, cb, a.chunk_cols, out);
    }
    const auto mask = static_cast<__mmask16>((1u << a.rows) - 1u);
    for (int c = 0; c < kCols; ++c) {
        _mm512_mask_storeu_ps(a.out + c * a.out_col, mask, out[c]);
    }
}

} // namespace

void tile_rows_avx512vnni(ggml_type type, const GemmTileArgs & a) {
    quants::with_type_row(type, [&]<ggml_type T>() {
        if constexpr (quants::cpu_type_row(T).repack == RepackForm::kRows) {
            quants::with_cols(a.n_cols, [&](auto cols) { rows_tile<T, decltype(cols)::value>(a); });
        }
    });
}

} // namespace switchyard::cpu::repack

#endif // __x86_64__
