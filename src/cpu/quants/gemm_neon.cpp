// The integer GEMM tile on NEON (gemm.h, the tile itself: gemm_tile_neon.h) for every ARMv8-A core: per quad of a
// group, each 16-byte load of the panel (4 rows x 4 levels) is widened to int16 and multiplied by the column's four
// levels (u * q fits int16: |u * q| <= 255 * 128), and vpadalq_s16 adds the products pairwise into int32 lanes
// (row, pair of levels); the pairs are added at the group's end.
#if defined(__aarch64__) // the whole file: aarch64 code

#include "cpu/quants/gemm_tile_neon.h"

namespace switchyard::cpu::quants {

namespace {

struct WidenedProducts {
    // dot[i] = the exact sums sum(u * q) of rows 4 i .. 4 i + 3 over the group's kQuads quads; p: the group's
    // levels, x: the column's first quad (its next quads kGemmMaxCols * 4 bytes apart)
    template <int kQuads>
    static void group(const uint8_t * p, const uint8_t * x, int32x4_t dot[4]) {
        int32x4_t pairs[8]; // pairs[2 i]: rows 4 i, 4 i + 1; pairs[2 i + 1]: rows 4 i + 2, 4 i + 3 (two lanes a row)
        for (int j = 0; j < 8; ++j) {
            pairs[j] = vdupq_n_s32(0);
        }
        for (int q = 0; q < kQuads; ++q) {
            int32_t word;
            std::memcpy(&word, x + column_quad(q, 0), sizeof(word));
            const int16x8_t y = vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(word))); // the four levels, twice
            for (int i = 0; i < 4; ++i) {
                const uint8x16_t w  = vld1q_u8(p + q * 64 + 16 * i);
                const int16x8_t  lo = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(w)));
                const int16x8_t  hi = vreinterpretq_s16_u16(vmovl_high_u8(w));
                pairs[2 * i]        = vpadalq_s16(pairs[2 * i], vmulq_s16(lo, y));
                pairs[2 * i + 1]    = vpadalq_s16(pairs[2 * i + 1], vmulq_s16(hi, y));
            }
        }
        for (int i = 0; i < 4; ++i) {
            dot[i] = vpaddq_s32(pairs[2 * i], pairs[2 * i + 1]);
        }
    }
};

} // namespace

void gemm_tile_neon(const GemmFormat & f, const GemmTileArgs & a) { neon_tile_run<WidenedProducts>(f, a); }

} // namespace switchyard::cpu::quants

#endif // __aarch64__
