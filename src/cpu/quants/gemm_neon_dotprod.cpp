// The integer GEMM tile on NEON with the int8 dot product (gemm.h, the tile itself: gemm_tile_neon.h), for cores
// with dotprod (ARMv8.2-A and later that report HWCAP_ASIMDDP; built with -march=armv8.2-a+dotprod, called only
// where base/cpuid.h's detector found it). vdotq_s32 multiplies signed bytes, so the panel's unsigned levels u are
// taken as u - 128 (u ^ 0x80) and 128 * sum(q) added back: per quad one vdotq_s32 per 4 rows, and one with ones
// that sums the column's four levels.
#if defined(__aarch64__) // the whole file: aarch64 code

#include "cpu/quants/gemm_tile_neon.h"

namespace switchyard::cpu::quants {

namespace {

struct SignedDot {
    // as WidenedProducts::group (gemm_neon.cpp)
    template <int kQuads>
    static void group(const uint8_t * p, const uint8_t * x, int32x4_t dot[4]) {
        const uint8x16_t flip = vdupq_n_u8(0x80);
        const int8x16_t  ones = vdupq_n_s8(1);
        int32x4_t        sum  = vdupq_n_s32(0); // every lane: sum(q)
        for (int i = 0; i < 4; ++i) {
            dot[i] = vdupq_n_s32(0);
        }
        for (int q = 0; q < kQuads; ++q) {
            int32_t word;
            std::memcpy(&word, x + column_quad(q, 0), sizeof(word));
            const int8x16_t y = vreinterpretq_s8_s32(vdupq_n_s32(word)); // the four levels in every lane
            sum               = vdotq_s32(sum, y, ones);
            for (int i = 0; i < 4; ++i) {
                const int8x16_t w = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(p + q * 64 + 16 * i), flip)); // u - 128
                dot[i]            = vdotq_s32(dot[i], w, y);
            }
        }
        const int32x4_t back = vshlq_n_s32(sum, 7); // 128 * sum(q)
        for (int i = 0; i < 4; ++i) {
            dot[i] = vaddq_s32(dot[i], back);
        }
    }
};

} // namespace

void gemm_tile_neon_dotprod(const GemmFormat & f, const GemmTileArgs & a) { neon_tile_run<SignedDot>(f, a); }

} // namespace switchyard::cpu::quants

#endif // __aarch64__
