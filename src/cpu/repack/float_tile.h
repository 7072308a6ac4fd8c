// The repacked float form's tile (format.h: float_tile), generic over one step's arithmetic: included only by the
// files of the levels that have it (float_tile_avx512.cpp: f32, f16; float_tile_avx512bf16.cpp: bf16), inside their
// ISA flags.
//
// Each output (panel row, column) has one accumulator, and the steps add into it in order, so its value does not
// depend on how many columns or panels share the call: a call takes groups of up to 8 panels (1..2 columns: enough
// independent sums in flight for decode), 4 (3..6) or 2 (7..12), which keeps 24 accumulators at most in the 32 zmm
// registers, and each panel's step is one load that every column's broadcast multiplies. No software prefetch: the
// panels are sequential streams, and prefetching 48 steps ahead measured 1.1-1.3 x slower (interleaved, decode of
// 1024 and 4096 rows of 4096, f32 and f16).
#pragma once

#include "cpu/quants/gemm_cols.h"
#include "cpu/repack/format.h"

#include <immintrin.h>

#include <cstdint>

namespace switchyard::cpu::repack {
namespace {

// Step: kStepBytes of a panel per step, kCols columns per chunk (kColBytes each), steps(k), load(panel bytes),
// bcast(chunk bytes of one column), madd(acc, weights, broadcast).
template <class Step, int kCols, int kPanels>
void float_tile_group(const FloatTileArgs & a, int p0) {
    const auto * base = static_cast<const uint8_t *>(a.panel) + static_cast<size_t>(p0) * a.panel_stride;
    const auto * x    = static_cast<const uint8_t *>(a.chunk);
    __m512       acc[kPanels][kCols];
    for (int p = 0; p < kPanels; ++p) {
        for (int c = 0; c < kCols; ++c) {
            acc[p][c] = _mm512_setzero_ps();
        }
    }
    const int64_t steps = Step::steps(a.k);
    for (int64_t s = 0; s < steps; ++s, x += Step::kCols * Step::kColBytes) {
        typename Step::Weights w[kPanels];
        for (int p = 0; p < kPanels; ++p) {
            const uint8_t * at = base + static_cast<size_t>(p) * a.panel_stride + static_cast<size_t>(s) * Step::kStepBytes;
            w[p] = Step::load(at);
        }
        for (int c = 0; c < kCols; ++c) {
            const auto b = Step::bcast(x + c * Step::kColBytes);
            for (int p = 0; p < kPanels; ++p) {
                acc[p][c] = Step::madd(acc[p][c], w[p], b);
            }
        }
    }
    for (int p = 0; p < kPanels; ++p) {
        const int       rows = p0 + p == a.n_panels - 1 ? a.last_rows : kPanelRows;
        const __mmask16 live = static_cast<__mmask16>((1u << rows) - 1u);
        for (int c = 0; c < kCols; ++c) {
            _mm512_mask_storeu_ps(a.out + (p0 + p) * kPanelRows + c * a.out_col, live, acc[p][c]);
        }
    }
}

// The last n (0 .. kN) panels from p0: one group of exactly n.
template <class Step, int kC, int kN>
void float_tile_rest(const FloatTileArgs & a, int p0, int n) {
    if constexpr (kN >= 1) {
        if (n == kN) {
            float_tile_group<Step, kC, kN>(a, p0);
            return;
        }
        float_tile_rest<Step, kC, kN - 1>(a, p0, n);
    }
}

template <class Step>
void float_tile_run(const FloatTileArgs & a) {
    quants::with_cols_upto<Step::kCols>(a.n_cols, [&](auto cols) {
        constexpr int kC = decltype(cols)::value;
        constexpr int kP = kC <= 2 ? 8 : kC <= 6 ? 4 : 2;
        int           p0 = 0;
        for (; p0 + kP <= a.n_panels; p0 += kP) {
            float_tile_group<Step, kC, kP>(a, p0);
        }
        float_tile_rest<Step, kC, kP - 1>(a, p0, a.n_panels - p0);
    });
}

} // namespace
} // namespace switchyard::cpu::repack
