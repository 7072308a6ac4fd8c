// NEON (aarch64) kernels of the matrix-vector table, each in the float order of its scalar kernel, so that they
// give the scalar results bit for bit (for the quantized types upstream's x86 backend's too, upstream_order.h):
//   - q4_0, q8_0 against q8_0: per 32-element block eight exact int32 lanes, lane l the products of elements
//     4 l .. 4 l + 3, sixteen products at a time; acc_l = fma(d_w * d_a, lane_l, acc_l); upstream's final sum;
//   - the K-quants (q2_K .. q6_K), iq4_xs, the grid formats (grid_levels.h) and the -1 / 0 / +1 formats
//     (ternary_levels.h) against q8_K: the levels unpacked by the portable levels.h, the lanes (times their
//     16-element scales) in NEON, mins and floats as the scalar kernel;
//   - f32, f16: eight partial sums of unfused products (lane l: elements i + l), then the scalar's pairwise sum.
// Advanced SIMD is part of every ARMv8-A core: no compile flags; the selector still asks the CPU (HWCAP_ASIMD).
#if defined(__aarch64__) // the whole file: aarch64 code

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/grid_levels.h"
#include "cpu/quants/levels.h"

#include "base/fp16.h"
#include "quant/blocks.h"

#include <arm_neon.h>

#include <cmath>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {

namespace {

using quant::BlockQ4_0;
using quant::BlockQ8_0;
using quant::BlockQ8_K;
using quant::kQK32;
using quant::kQK_K;

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

struct Q8_0 : TypeRow<GGML_TYPE_Q8_0> {
    static Levels load(const uint8_t * b) {
        const auto * qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_0, qs));
        return {vld1q_s8(qs), vld1q_s8(qs + 16), block_scale(b)};
    }
};

// q4_0: level = nibble - 8, the low nibbles of qs[0..15] elements 0..15, the high ones 16..31
struct Q4_0 : TypeRow<GGML_TYPE_Q4_0> {
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

// Upstream's final sum of eight float lanes (lo: lanes 0..3, hi: 4..7), as the scalar kernels take it.
float sum_lanes8(float32x4_t lo, float32x4_t hi) {
    float a[8];
    vst1q_f32(a, lo);
    vst1q_f32(a + 4, hi);
    return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
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
        out[c * a.out_col] = sum_lanes8(lo[c], hi[c]);
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) { row_times_columns<F, C>(a, w, out); });
    });
}

// ---- K-quants against q8_K ---------------------------------------------------------------------------------

template <class Block>
float kquant_dot(const uint8_t * w, const uint8_t * y, int64_t k) {
    constexpr MinTerm kMin        = kMinTerm<Block>;
    constexpr int     kOffset = kCodeOffset<Block>; // q6_K: its codes 0..63; the trit formats: 0..2
    float32x4_t       acc_lo = vdupq_n_f32(0.0f), acc_hi = vdupq_n_f32(0.0f);
    KMinSums<Block>   outside;
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const KLevels l = levels(quant::load_block<Block>(w, i));
        const auto    q = quant::load_block<BlockQ8_K>(y, i);
        int32x4_t     lanes_lo = vdupq_n_s32(0), lanes_hi = vdupq_n_s32(0);
        for (int j = 0; j < kQK_K / 32; ++j) { // sub-blocks of 32: elements 0..15 feed lanes 0..3, 16..31 lanes 4..7
            const int8x16_t v0 = vaddq_s8(vld1q_s8(l.v + 32 * j), vdupq_n_s8(kOffset));
            const int8x16_t v1 = vaddq_s8(vld1q_s8(l.v + 32 * j + 16), vdupq_n_s8(kOffset));
            lanes_lo = vmlaq_n_s32(lanes_lo, quad_sums(v0, vld1q_s8(q.qs + 32 * j)), l.scale[2 * j]);
            lanes_hi = vmlaq_n_s32(lanes_hi, quad_sums(v1, vld1q_s8(q.qs + 32 * j + 16)), l.scale[2 * j + 1]);
        }
        int32_t mins[8];
        kquant_mins<Block>(l, q.bsums, mins);
        const int32x4_t mins_lo = vld1q_s32(mins), mins_hi = vld1q_s32(mins + 4);
        const float     d = q.d * l.d, dmin = -q.d * l.dmin;
        if constexpr (kMin == MinTerm::kLanes) {
            acc_lo = vfmaq_n_f32(acc_lo, vcvtq_f32_s32(mins_lo), dmin);
            acc_hi = vfmaq_n_f32(acc_hi, vcvtq_f32_s32(mins_hi), dmin);
        }
        if constexpr (kMin == MinTerm::kSubtract) {
            lanes_lo = vsubq_s32(lanes_lo, mins_lo);
            lanes_hi = vsubq_s32(lanes_hi, mins_hi);
        }
        acc_lo = vfmaq_n_f32(acc_lo, vcvtq_f32_s32(lanes_lo), d);
        acc_hi = vfmaq_n_f32(acc_hi, vcvtq_f32_s32(lanes_hi), d);
        outside.add(dmin, mins);
    }
    return outside.finish(sum_lanes8(acc_lo, acc_hi));
}

// ---- iq1_s, iq1_m against q8_K (ternary_levels.h) ---------------------------------------------------------------

// The scalar kernel's order (matvec_scalar.cpp: Iq1Dot): the levels v = 8 g + delta split into the grid values g =
// ((v + 9) >> 3) - 1 and the shifts v - 8 g, each's lanes times the 16-element scales; d = d_a * d_w per super-block
// into the lanes' accumulators, and the shifts' lanes into eight more (iq1_m) or their sum into one total (iq1_s).
template <class Block>
float iq1_dot(const uint8_t * w, const uint8_t * y, int64_t k) {
    constexpr bool kSecondLanes = std::is_same_v<Block, quant::BlockIQ1_M>;
    float32x4_t    acc_lo = vdupq_n_f32(0.0f), acc_hi = vdupq_n_f32(0.0f), acc2_lo = acc_lo, acc2_hi = acc_lo;
    float          total  = 0.0f;
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const KLevels l = levels(quant::load_block<Block>(w, i));
        const auto    q = quant::load_block<BlockQ8_K>(y, i);
        int32x4_t     lanes_lo = vdupq_n_s32(0), lanes_hi = lanes_lo, shifts_lo = lanes_lo, shifts_hi = lanes_lo;
        for (int j = 0; j < kQK_K / 32; ++j) { // elements 0..15 feed lanes 0..3, 16..31 lanes 4..7
            for (int h = 0; h < 2; ++h) {
                const int8x16_t v = vld1q_s8(l.v + 32 * j + 16 * h);
                const int8x16_t g = vsubq_s8(vshrq_n_s8(vaddq_s8(v, vdupq_n_s8(9)), 3), vdupq_n_s8(1));
                const int8x16_t delta = vsubq_s8(v, vshlq_n_s8(g, 3));
                const int8x16_t qs    = vld1q_s8(q.qs + 32 * j + 16 * h);
                const int       sc    = l.scale[2 * j + h];
                int32x4_t &     lanes = h == 0 ? lanes_lo : lanes_hi;
                int32x4_t &     shift = h == 0 ? shifts_lo : shifts_hi;
                lanes                 = vmlaq_n_s32(lanes, quad_sums(g, qs), sc);
                shift                 = vmlaq_n_s32(shift, quad_sums(delta, qs), sc);
            }
        }
        const float d = q.d * (l.d * 8.0f); // l.d * 8 is d_w exactly
        acc_lo        = vfmaq_n_f32(acc_lo, vcvtq_f32_s32(lanes_lo), d);
        acc_hi        = vfmaq_n_f32(acc_hi, vcvtq_f32_s32(lanes_hi), d);
        if constexpr (kSecondLanes) {
            acc2_lo = vfmaq_n_f32(acc2_lo, vcvtq_f32_s32(shifts_lo), d);
            acc2_hi = vfmaq_n_f32(acc2_hi, vcvtq_f32_s32(shifts_hi), d);
        } else {
            total = std::fma(static_cast<float>(vaddvq_s32(vaddq_s32(shifts_lo, shifts_hi))), d, total);
        }
    }
    if constexpr (kSecondLanes) {
        return std::fma(sum_lanes8(acc2_lo, acc2_hi), quant::kIq1Delta, sum_lanes8(acc_lo, acc_hi));
    } else {
        return sum_lanes8(acc_lo, acc_hi) + quant::kIq1Delta * total;
    }
}

template <class B>
struct Iq1 : TypeRow<B::kType> {
    using Iq1Block = B;
};

// ---- f32, f16 ---------------------------------------------------------------------------------------------------

struct F32 : TypeRow<GGML_TYPE_F32> {
    static constexpr size_t kSize = 4;
    static float32x4_t load4(const uint8_t * p) { return vld1q_f32(reinterpret_cast<const float *>(p)); }
    static float       load1(const uint8_t * p) {
        float v;
        std::memcpy(&v, p, sizeof(v));
        return v;
    }
};

struct F16 : TypeRow<GGML_TYPE_F16> {
    static constexpr size_t kSize = 2;
    static float32x4_t load4(const uint8_t * p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t *>(p)))); }
    static float       load1(const uint8_t * p) {
        uint16_t h;
        std::memcpy(&h, p, sizeof(h));
        return fp16_to_fp32(h);
    }
};

// lane l sums w[i + l] * y[i + l] (each product rounded, then added: no fusing, as the scalar kernel)
template <class T>
float float_dot(const uint8_t * w, const uint8_t * y, int64_t k) {
    float32x4_t acc_lo = vdupq_n_f32(0.0f), acc_hi = vdupq_n_f32(0.0f);
    int64_t     i      = 0;
    for (; i + 8 <= k; i += 8) {
        acc_lo = vaddq_f32(acc_lo, vmulq_f32(T::load4(w + i * T::kSize), T::load4(y + i * T::kSize)));
        acc_hi = vaddq_f32(acc_hi, vmulq_f32(T::load4(w + (i + 4) * T::kSize), T::load4(y + (i + 4) * T::kSize)));
    }
    float acc[8];
    vst1q_f32(acc, acc_lo);
    vst1q_f32(acc + 4, acc_hi);
    float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < k; ++i) {
        const float p = T::load1(w + i * T::kSize) * T::load1(y + i * T::kSize);
        sum += p;
    }
    return sum;
}

// A kernel over a per-row, per-column dot (the K-quants and the float types: their sums need no registers across
// columns).
template <float (*kDot)(const uint8_t *, const uint8_t *, int64_t)>
void dot_kernel(const MatVecArgs & a) {
    each_product(a, [&](const uint8_t * w, const uint8_t * y) { return kDot(w, y, a.k); });
}

// The K-quants' per-row dot, over the portable levels of levels.h (the grid formats': grid_levels.h).
template <class B>
struct KQuant : TypeRow<B::kType> {
    using Block = B;
};

} // namespace

MatVecFn matvec_neon(ggml_type weight) {
    using quant::BlockQ2_K, quant::BlockQ3_K, quant::BlockQ4_K, quant::BlockQ5_K, quant::BlockQ6_K, quant::BlockIQ4_XS;
    using quant::BlockIQ2_XXS, quant::BlockIQ2_XS, quant::BlockIQ2_S, quant::BlockIQ3_XXS, quant::BlockIQ3_S;
    using quant::BlockTQ1_0, quant::BlockTQ2_0;
    return kernel_for<F32, F16, Q4_0, Q8_0, KQuant<BlockQ2_K>, KQuant<BlockQ3_K>, KQuant<BlockQ4_K>, KQuant<BlockQ5_K>,
                      KQuant<BlockQ6_K>, KQuant<BlockIQ4_XS>, KQuant<BlockIQ2_XXS>, KQuant<BlockIQ2_XS>,
                      KQuant<BlockIQ2_S>, KQuant<BlockIQ3_XXS>, KQuant<BlockIQ3_S>, KQuant<BlockTQ1_0>,
                      KQuant<BlockTQ2_0>, Iq1<quant::BlockIQ1_S>, Iq1<quant::BlockIQ1_M>>(weight, []<class F>() -> MatVecFn {
        if constexpr (requires { F::load(nullptr); }) {
            return kernel<F>; // the 32-element formats, sixteen products at a time
        } else if constexpr (requires { typename F::Iq1Block; }) {
            return dot_kernel<iq1_dot<typename F::Iq1Block>>;
        } else if constexpr (requires { typename F::Block; }) {
            return dot_kernel<kquant_dot<typename F::Block>>;
        } else {
            return dot_kernel<float_dot<F>>;
        }
    });
}

} // namespace switchyard::cpu::quants

#endif // __aarch64__
