// The float GEMM's f32 / f16 panels and tile on NEON (gemm_float.h; aarch64 only). Packing transposes 4 x 4 blocks
// (four rows' four elements into four steps of the panel; f16 converted with vcvt_f32_f16). The tile takes 16 rows
// (four float32x4 lanes) times up to four columns per pass over k, one vfmaq_n_f32 per lane and column and step:
// 16 independent accumulators. Each output is one chain of fused multiply-adds in k order from zero,
// acc = fma(w[i], x[i], acc), which the tests restate in scalar code (std::fma).
#if defined(__aarch64__) // the whole file: aarch64 code

#include "cpu/quants/gemm_cols.h"
#include "cpu/quants/gemm_float.h"

#include "base/fp16.h"

#include <arm_neon.h>

#include <algorithm>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

constexpr int kPassCols = 4; // columns per pass of the tile

// Four elements of a weight row as floats (f32, or f16 converted).
template <bool kF16>
float32x4_t load4(const char * row, int64_t i) {
    if constexpr (kF16) {
        return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t *>(row) + i)));
    } else {
        return vld1q_f32(reinterpret_cast<const float *>(row) + i);
    }
}

template <bool kF16>
float load1(const char * row, int64_t i) {
    if constexpr (kF16) {
        uint16_t h;
        std::memcpy(&h, row + i * 2, sizeof(h));
        return fp16_to_fp32(h);
    } else {
        float v;
        std::memcpy(&v, row + i * 4, sizeof(v));
        return v;
    }
}

// Rows r0 .. r0 + 3 of the panel (src[j]: row r0 + j, nullptr for a missing row, which is zero).
template <bool kF16>
void pack_four_rows(const char * const src[4], int r0, int64_t k, float * out) {
    int64_t i = 0;
    for (; i + 4 <= k; i += 4) {
        float32x4_t v[4];
        for (int j = 0; j < 4; ++j) {
            v[j] = src[j] != nullptr ? load4<kF16>(src[j], i) : vdupq_n_f32(0.0f);
        }
        // a 4 x 4 transpose: step i + e gets element e of the four rows
        const float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);
        const float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);
        auto lo = [](float32x4_t a, float32x4_t b) {
            return vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
        };
        auto hi = [](float32x4_t a, float32x4_t b) {
            return vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
        };
        vst1q_f32(out + (i + 0) * kGemmRows + r0, lo(t0, t2));
        vst1q_f32(out + (i + 1) * kGemmRows + r0, lo(t1, t3));
        vst1q_f32(out + (i + 2) * kGemmRows + r0, hi(t0, t2));
        vst1q_f32(out + (i + 3) * kGemmRows + r0, hi(t1, t3));
    }
    for (; i < k; ++i) {
        for (int j = 0; j < 4; ++j) {
            out[i * kGemmRows + r0 + j] = src[j] != nullptr ? load1<kF16>(src[j], i) : 0.0f;
        }
    }
}

template <bool kF16>
void pack(const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    for (int r0 = 0; r0 < kGemmRows; r0 += 4) {
        const char * src[4];
        for (int j = 0; j < 4; ++j) {
            src[j] = r0 + j < rows ? static_cast<const char *>(w) + static_cast<size_t>(r0 + j) * w_row : nullptr;
        }
        pack_four_rows<kF16>(src, r0, k, static_cast<float *>(panel));
    }
}

// One pass: the 16 rows of `panel` times kCols columns starting at chunk column c0; the first `rows` results of
// column c go to out + c * out_col.
template <int kCols>
void pass(const float * panel, const float * chunk, int c0, int64_t k, int rows, float * out, int64_t out_col) {
    float32x4_t acc[kCols][4];
    for (int c = 0; c < kCols; ++c) {
        for (int j = 0; j < 4; ++j) {
            acc[c][j] = vdupq_n_f32(0.0f);
        }
    }
    const float * p = panel;
    const float * x = chunk + c0;
    for (int64_t i = 0; i < k; ++i, p += kGemmRows, x += kGemmFloatCols) {
        const float32x4_t w[4] = {vld1q_f32(p), vld1q_f32(p + 4), vld1q_f32(p + 8), vld1q_f32(p + 12)};
        for (int c = 0; c < kCols; ++c) {
            for (int j = 0; j < 4; ++j) {
                acc[c][j] = vfmaq_n_f32(acc[c][j], w[j], x[c]);
            }
        }
    }
    for (int c = 0; c < kCols; ++c) {
        float all[kGemmRows];
        for (int j = 0; j < 4; ++j) {
            vst1q_f32(all + 4 * j, acc[c][j]);
        }
        std::memcpy(out + c * out_col, all, static_cast<size_t>(rows) * sizeof(float));
    }
}

// A panel times a.n_cols columns, kPassCols at a time.
void panel_times_chunk(const GemmTileArgs & a, const void * panel, int rows, float * out) {
    for (int c0 = 0; c0 < a.n_cols; c0 += kPassCols) {
        with_cols_upto<kPassCols>(a.n_cols - c0, [&](auto c) {
            pass<decltype(c)::value>(static_cast<const float *>(panel), static_cast<const float *>(a.chunk), c0, a.k,
                                     rows, out + c0 * a.out_col, a.out_col);
        });
    }
}

} // namespace

void gemm_float_pack_neon(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    weight == GGML_TYPE_F16 ? pack<true>(w, w_row, rows, k, panel) : pack<false>(w, w_row, rows, k, panel);
}

void gemm_float_tile_neon(const GemmTileArgs & a) {
    panel_times_chunk(a, a.panel, a.rows, a.out);
    if (a.panel2 != nullptr) {
        panel_times_chunk(a, a.panel2, a.rows2, a.out + kGemmRows);
    }
}

} // namespace switchyard::cpu::quants

#endif // __aarch64__
