// The float GEMM's f32 / f16 panels and tile on AVX-512 (gemm_float.h). Packing gathers one step (an element, or
// for f16 a pair of elements, of the 16 rows) per instruction; the tile is an outer product per step: one panel
// load, one broadcast FMA per column.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm_cols.h"
#include "cpu/quants/gemm_float.h"

#include <immintrin.h>

namespace switchyard::cpu::quants {

namespace {

// Byte offsets of the 16 rows (rows past `rows` are masked off).
inline __m512i row_offsets(size_t w_row) {
    return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                              _mm512_set1_epi32(static_cast<int>(w_row)));
}

template <int kCols>
void tile(const GemmTileArgs & a) {
    const auto * p = static_cast<const float *>(a.panel);
    const auto * x = static_cast<const float *>(a.chunk);
    // two accumulators per column (even and odd steps), so that more FMAs are in flight than their latency needs
    __m512 out[kCols], odd[kCols];
    for (int c = 0; c < kCols; ++c) {
        out[c] = odd[c] = _mm512_setzero_ps();
    }
    int64_t i = 0;
    for (; i + 2 <= a.k; i += 2, p += 2 * kGemmRows, x += 2 * kGemmFloatCols) {
        const __m512 w0 = _mm512_loadu_ps(p);
        const __m512 w1 = _mm512_loadu_ps(p + kGemmRows);
        for (int c = 0; c < kCols; ++c) {
            out[c] = _mm512_fmadd_ps(w0, _mm512_set1_ps(x[c]), out[c]);
            odd[c] = _mm512_fmadd_ps(w1, _mm512_set1_ps(x[kGemmFloatCols + c]), odd[c]);
        }
    }
    if (i < a.k) {
        const __m512 w = _mm512_loadu_ps(p);
        for (int c = 0; c < kCols; ++c) {
            out[c] = _mm512_fmadd_ps(w, _mm512_set1_ps(x[c]), out[c]);
        }
    }
    for (int c = 0; c < kCols; ++c) {
        out[c] = _mm512_add_ps(out[c], odd[c]);
    }
    const __mmask16 rows = static_cast<__mmask16>((1u << a.rows) - 1u);
    for (int c = 0; c < kCols; ++c) {
        _mm512_mask_storeu_ps(a.out + c * a.out_col, rows, out[c]);
    }
}

// Two panels (32 rows) per pass: per step two panel loads and one broadcast per column feed 2 x kCols FMAs, so
// the loads no longer limit the FMAs.
template <int kCols>
void tile_pair(const GemmTileArgs & a) {
    const auto * p0 = static_cast<const float *>(a.panel);
    const auto * p1 = static_cast<const float *>(a.panel2);
    const auto * x  = static_cast<const float *>(a.chunk);
    __m512       lo[kCols], hi[kCols];
    for (int c = 0; c < kCols; ++c) {
        lo[c] = hi[c] = _mm512_setzero_ps();
    }
    for (int64_t i = 0; i < a.k; ++i, p0 += kGemmRows, p1 += kGemmRows, x += kGemmFloatCols) {
        _mm_prefetch(reinterpret_cast<const char *>(p0 + 8 * kGemmRows), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(p1 + 8 * kGemmRows), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(x + 8 * kGemmFloatCols), _MM_HINT_T0);
        const __m512 w0 = _mm512_loadu_ps(p0);
        const __m512 w1 = _mm512_loadu_ps(p1);
        for (int c = 0; c < kCols; ++c) {
            const __m512 b = _mm512_set1_ps(x[c]);
            lo[c]          = _mm512_fmadd_ps(w0, b, lo[c]);
            hi[c]          = _mm512_fmadd_ps(w1, b, hi[c]);
        }
    }
    const __mmask16 rows0 = static_cast<__mmask16>((1u << a.rows) - 1u);
    const __mmask16 rows1 = static_cast<__mmask16>((1u << a.rows2) - 1u);
    for (int c = 0; c < kCols; ++c) {
        _mm512_mask_storeu_ps(a.out + c * a.out_col, rows0, lo[c]);
        _mm512_mask_storeu_ps(a.out + kGemmRows + c * a.out_col, rows1, hi[c]);
    }
}

} // namespace

void gemm_float_pack_avx512(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1u);
    const __m512i   rows_at = row_offsets(w_row);
    const auto *    base = static_cast<const char *>(w);
    auto *          out  = static_cast<float *>(panel);
    if (weight == GGML_TYPE_F32) {
        for (int64_t i = 0; i < k; ++i) {
            _mm512_storeu_ps(out + i * kGemmRows,
                             _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, rows_at, base + i * 4, 1));
        }
        return;
    }
    // f16: a 32-bit gather takes elements i and i + 1 of each row
    for (int64_t i = 0; i < k; i += 2) {
        const __m512i pair = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, rows_at, base + i * 2, 1);
        // (the zero-masking forms with every lane: the plain ones trip GCC 12's -Wmaybe-uninitialized)
        constexpr __mmask16 kAll = 0xffff;
        const __m512i       high = _mm512_maskz_srli_epi32(kAll, pair, 16);
        _mm512_storeu_ps(out + i * kGemmRows, _mm512_maskz_cvtph_ps(kAll, _mm512_maskz_cvtepi32_epi16(kAll, pair)));
        _mm512_storeu_ps(out + (i + 1) * kGemmRows, _mm512_maskz_cvtph_ps(kAll, _mm512_maskz_cvtepi32_epi16(kAll, high)));
    }
}

void gemm_float_tile_avx512(const GemmTileArgs & a) {
    if (a.panel2 != nullptr) {
        with_cols_upto<kGemmFloatCols>(a.n_cols, [&](auto c) { tile_pair<decltype(c)::value>(a); });
        return;
    }
    with_cols_upto<kGemmFloatCols>(a.n_cols, [&](auto c) { tile<decltype(c)::value>(a); });
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
