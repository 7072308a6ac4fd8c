// The float GEMM's bf16 panels and tile on AVX-512 BF16 (gemm_float.h): a step is a pair of elements; the panel
// holds, per step, the 16 rows' pairs (one 32-bit gather), the tile one vdpbf16ps per column (products exact, sums
// in float; subnormal inputs count as zero, as in upstream's bf16 dot product).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm_cols.h"
#include "cpu/quants/gemm_float.h"

#include <immintrin.h>

#include <cstdint>

namespace switchyard::cpu::quants {

namespace {

template <int kCols>
void tile(const GemmTileArgs & a) {
    const auto * p = static_cast<const uint8_t *>(a.panel);
    const auto * x = static_cast<const int32_t *>(a.chunk);
    // two accumulators per column (even and odd steps): the dot products' latency is longer than the issue
    // interval of 8 columns
    __m512 out[kCols], odd[kCols];
    for (int c = 0; c < kCols; ++c) {
        out[c] = odd[c] = _mm512_setzero_ps();
    }
    const int64_t steps = a.k / 2;
    int64_t       s     = 0;
    for (; s + 2 <= steps; s += 2, p += 128, x += 2 * kGemmMaxCols) {
        const auto w0 = (__m512bh) _mm512_loadu_si512(p);
        const auto w1 = (__m512bh) _mm512_loadu_si512(p + 64);
        for (int c = 0; c < kCols; ++c) {
            out[c] = _mm512_dpbf16_ps(out[c], w0, (__m512bh) _mm512_set1_epi32(x[c]));
            odd[c] = _mm512_dpbf16_ps(odd[c], w1, (__m512bh) _mm512_set1_epi32(x[kGemmMaxCols + c]));
        }
    }
    if (s < steps) {
        const auto w = (__m512bh) _mm512_loadu_si512(p);
        for (int c = 0; c < kCols; ++c) {
            out[c] = _mm512_dpbf16_ps(out[c], w, (__m512bh) _mm512_set1_epi32(x[c]));
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

} // namespace

void gemm_float_pack_avx512bf16(const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const __mmask16 mask    = static_cast<__mmask16>((1u << rows) - 1u);
    const __m512i   rows_at = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                 _mm512_set1_epi32(static_cast<int>(w_row)));
    const auto *    base    = static_cast<const char *>(w);
    auto *          out     = static_cast<uint8_t *>(panel);
    for (int64_t s = 0; s < k / 2; ++s) {
        _mm512_storeu_si512(out + s * 64, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, rows_at, base + s * 4, 1));
    }
}

void gemm_float_tile_avx512bf16(const GemmTileArgs & a) {
    with_cols(a.n_cols, [&](auto c) { tile<decltype(c)::value>(a); });
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
