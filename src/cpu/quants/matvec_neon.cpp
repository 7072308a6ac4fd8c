// NEON (aarch64) kernels of the matrix-vector table: q4_0 and q8_0 weights against q8_0 activations, in the float
// order every level keeps (upstream_order.h): per 32-element block eight exact int32 lanes, lane l the products of
// elements 4 l .. 4 l + 3, acc_l = fma(d_w * d_a, lane_l, acc_l), then upstream's final sum of the eight lanes. So
// they give the scalar kernels' results bit for bit (and upstream's x86 backend's), sixteen products at a time.
// Advanced SIMD is part of every ARMv8-A core: no compile flags; the selector still asks the CPU (HWCAP_ASIMD).
#if defined(__aarch64__) // the whole file: aarch64 code

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "base/fp16.h"
#include "quant/blocks.h"

#include <arm_neon.h>

#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using quant::BlockQ4_0;
using quant::BlockQ8_0;
using quant::kQK32;

// A block's 32 levels (elements 0..15 and 16..31) and its scale.
struct Levels {
    int8x16_t lo, hi;
    float     d;
};

float block_scale(const uint8_t * block) {
    uint16_t d;
    std::memcpy(&d, block, sizeof(d));
    return fp16_to_fp32(d);
}

struct Q8_0 {
    static constexpr size_t kBytes = sizeof(BlockQ8_0);
    static Levels load(const uint8_t * b) {
        const auto * qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_0, qs));
        return {vld1q_s8(qs), vld1q_s8(qs + 16), block_scale(b)};
    }
};

// q4_0: level = nibble - 8, the low nibbles of qs[0..15] elements 0..15, the high ones 16..31
struct Q4_0 {
    static constexpr size_t kBytes = sizeof(BlockQ4_0);
    static Levels load(const uint8_t * b) {
        const uint8x16_t q     = vld1q_u8(b + offsetof(BlockQ4_0, qs));
        const int8x16_t  eight = vdupq_n_s8(8);
        return {vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, vdupq_n_u8(0x0f))), eight),
                vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), eight), block_scale(b)};
    }
};

// Four lanes of sixteen elements: lane j sums the products of elements 4 j .. 4 j + 3 (int16 products, exact:
// |level| <= 128)
int32x4_t quad_sums(int8x16_t w, int8x16_t y) {
    const int16x8_t p0 = vmull_s8(vget_low_s8(w), vget_low_s8(y));
    const int16x8_t p1 = vmull_s8(vget_high_s8(w), vget_high_s8(y));
    return vpaddq_s32(vpaddlq_s16(p0), vpaddlq_s16(p1));
}

template <class F, int C>
void row_times_columns(const MatVecArgs & a, const uint8_t * w, float * out) {
    float32x4_t   lo[C], hi[C]; // lanes 0..3 and 4..7
    const auto *  act = static_cast<const uint8_t *>(a.act);
    const int64_t nb  = a.k / kQK32;
    for (int c = 0; c < C; ++c) {
        lo[c] = hi[c] = vdupq_n_f32(0.0f);
    }
    for (int64_t i = 0; i < nb; ++i) {
        const Levels l = F::load(w + static_cast<size_t>(i) * F::kBytes);
        for (int c = 0; c < C; ++c) {
            const Levels      y = Q8_0::load(act + static_cast<size_t>(c) * a.act_col + static_cast<size_t>(i) * sizeof(BlockQ8_0));
            const float32x4_t d = vdupq_n_f32(l.d * y.d);
            lo[c]               = vfmaq_f32(lo[c], vcvtq_f32_s32(quad_sums(l.lo, y.lo)), d);
            hi[c]               = vfmaq_f32(hi[c], vcvtq_f32_s32(quad_sums(l.hi, y.hi)), d);
        }
    }
    for (int c = 0; c < C; ++c) {
        float acc[8];
        vst1q_f32(acc, lo[c]);
        vst1q_f32(acc + 4, hi[c]);
        out[c * a.out_col] = ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) { row_times_columns<F, C>(a, w, out); });
    });
}

} // namespace

MatVecFn matvec_neon(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_Q4_0: return kernel<Q4_0>;
        case GGML_TYPE_Q8_0: return kernel<Q8_0>;
        default:             return nullptr;
    }
}

} // namespace switchyard::cpu::quants

#endif // __aarch64__
