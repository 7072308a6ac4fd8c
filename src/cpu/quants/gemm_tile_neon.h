// The integer GEMM tile on NEON lanes (gemm.h), written once over the instruction that forms a group's integer
// sums (the Dot policy) and instantiated twice: gemm_neon.cpp (vmulq_s16 / vpadalq_s16, every ARMv8-A core) and
// gemm_neon_dotprod.cpp (vdotq_s32, built with +dotprod). 16 weight rows (four 32-bit lanes of 4 rows each) times
// up to 8 activation columns.
//
// Per group and column the policy gives the 16 rows' exact sums sum(u * q) (u: the panel's unsigned levels, q: the
// column's signed q8 levels); the tile then adds the column's -bias * sum(q) (formats without a min) and scales in
// the portable tile's float order (gemm.h; gemm_tile_scalar: acc += float(dot) * (s * da), then acc += m * min_sum,
// or per super-block for q8_K activations; each product and sum rounded on its own: the project builds aarch64 with
// -ffp-contract=off), so its results are the portable tile's bit for bit.
//
// Included by those two files only. Everything here has internal linkage (an unnamed namespace), so each file's
// copies are its own: no copy compiled with +dotprod can stand in for the plain tile's at link time.
#pragma once

#if defined(__aarch64__)

#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_cols.h"

#include <arm_neon.h>

#include <cstring>

namespace switchyard::cpu::quants {
namespace {

// Bytes of quad q of column c inside a chunk group: [quads][8 columns][4 bytes].
constexpr size_t column_quad(int q, int c) { return static_cast<size_t>(q * kGemmMaxCols + c) * 4; }

// Writes the first `rows` of 16 lanes to out[0..rows).
inline void store_rows(float * out, const float32x4_t v[4], int rows) {
    if (rows == kGemmRows) {
        for (int i = 0; i < 4; ++i) {
            vst1q_f32(out + 4 * i, v[i]);
        }
        return;
    }
    float all[kGemmRows];
    for (int i = 0; i < 4; ++i) {
        vst1q_f32(all + 4 * i, v[i]);
    }
    std::memcpy(out, all, static_cast<size_t>(rows) * sizeof(float));
}

// kSb: the super-block order (gemm.h: q8_K activations), the groups of a super-block summed in t before da.
template <class Dot, int kCols, int kQuads, bool kMin, bool kSb>
void neon_tile(const GemmTileArgs & a) {
    constexpr size_t  kGroup      = kQuads * 4;
    constexpr size_t  kGroupBytes = kGroup * kGemmRows + 2 * kGemmRows * sizeof(float);
    constexpr size_t  kChunkBytes = kGroup * kGemmMaxCols + kGemmMaxCols * sizeof(GemmColumnAux);
    constexpr int64_t kPer        = kSb ? kGemmSuperblock / static_cast<int64_t>(kGroup) : 1; // groups per scaling
    const int64_t     ng          = a.k / static_cast<int64_t>(kGroup);
    const auto *      p           = static_cast<const uint8_t *>(a.panel);
    const auto *      x           = static_cast<const uint8_t *>(a.chunk);
    float32x4_t       out[kCols][4];
    for (int c = 0; c < kCols; ++c) {
        for (int i = 0; i < 4; ++i) {
            out[c][i] = vdupq_n_f32(0.0f);
        }
    }
    for (int64_t g0 = 0; g0 < ng; g0 += kPer) {
        const auto * aux0 = reinterpret_cast<const GemmColumnAux *>(x + kGroup * kGemmMaxCols); // the super-block's da
        float32x4_t  t[kCols][4];
        for (int c = 0; c < kCols; ++c) {
            for (int i = 0; i < 4; ++i) {
                t[c][i] = vdupq_n_f32(0.0f);
            }
        }
        for (int64_t g = 0; g < kPer; ++g, p += kGroupBytes, x += kChunkBytes) {
            const auto * s   = reinterpret_cast<const float *>(p + kGroup * kGemmRows);
            const auto * m   = s + kGemmRows;
            const auto * aux = reinterpret_cast<const GemmColumnAux *>(x + kGroup * kGemmMaxCols);
            for (int c = 0; c < kCols; ++c) {
                int32x4_t dot[4];
                Dot::template group<kQuads>(p, x + column_quad(0, c), dot);
                float min_sum;
                std::memcpy(&min_sum, &aux[c].word, sizeof(min_sum));
                for (int i = 0; i < 4; ++i) {
                    if constexpr (!kMin) {
                        dot[i] = vaddq_s32(dot[i], vdupq_n_s32(aux[c].word)); // -bias * sum(q)
                    }
                    const float32x4_t sums = vcvtq_f32_s32(dot[i]);
                    float32x4_t &     acc  = kSb ? t[c][i] : out[c][i];
                    if constexpr (kSb) {
                        acc = vaddq_f32(acc, vmulq_f32(sums, vld1q_f32(s + 4 * i)));
                    } else {
                        acc = vaddq_f32(acc, vmulq_f32(sums, vmulq_n_f32(vld1q_f32(s + 4 * i), aux[c].da)));
                    }
                    if constexpr (kMin) {
                        acc = vaddq_f32(acc, vmulq_n_f32(vld1q_f32(m + 4 * i), min_sum));
                    }
                }
            }
        }
        if constexpr (kSb) {
            for (int c = 0; c < kCols; ++c) {
                for (int i = 0; i < 4; ++i) {
                    out[c][i] = vaddq_f32(out[c][i], vmulq_n_f32(t[c][i], aux0[c].da));
                }
            }
        }
    }
    for (int c = 0; c < kCols; ++c) {
        store_rows(a.out + c * a.out_col, out[c], a.rows);
    }
}

// The tile for a format (group of 32 or 16, with or without a min term) and a.n_cols columns.
template <class Dot>
void neon_tile_run(const GemmFormat & f, const GemmTileArgs & a) {
    static_assert(kGemmRows == 16 && kGemmMaxCols == 8, "the tile holds 16 rows in four lanes of 4 and 8 columns");
    if (a.panel2 != nullptr) {
        neon_tile_run<Dot>(f, gemm_second_panel(a));
    }
    auto cols = [&]<int kQuads, bool kMin, bool kSb>() {
        with_cols(a.n_cols, [&](auto c) { neon_tile<Dot, decltype(c)::value, kQuads, kMin, kSb>(a); });
    };
    auto format = [&]<bool kSb>() {
        if (f.group == 32) {
            f.has_min ? cols.template operator()<8, true, kSb>() : cols.template operator()<8, false, kSb>();
        } else {
            f.has_min ? cols.template operator()<4, true, kSb>() : cols.template operator()<4, false, kSb>();
        }
    };
    gemm_scales_per_superblock(f) ? format.template operator()<true>() : format.template operator()<false>();
}

} // namespace
} // namespace switchyard::cpu::quants

#endif // __aarch64__
