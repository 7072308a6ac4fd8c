// The scalar matrix-vector kernels: one per weight type, portable, built on the levels of levels.h. They are the
// level every CPU runs and the reference the vector kernels are tested against (with the tests' own float
// reference above both). The quantized ones sum their floats in upstream's x86 order (upstream_order.h), so they
// give what upstream's x86 CPU backend gives, bit for bit.
#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/grid_levels.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/upstream_order.h"

#include "base/fp16.h"

#include <cmath>
#include <type_traits>

namespace switchyard::cpu::quants {

namespace {

using quant::BlockQ8_0;
using quant::BlockQ8_1;
using quant::BlockQ8_K;
using quant::load_block;

// Runs Dot::dot(weight row, activation column, k) for every row and column of a.
template <class Dot>
void dot_kernel(const MatVecArgs & a) {
    each_product(a, [&](const uint8_t * w, const uint8_t * y) { return Dot::dot(w, y, a.k); });
}

// Upstream's final sum of its eight float lanes (hsum_float_8).
float sum_lanes8(const float * a) {
    return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}

// The 32-element formats against q8_0 (kQ8_1: q4_1 / q5_1 against q8_1, the min term through the activation
// block's s = d_a * sum(q), as upstream): per block d = d_w * d_a, lane l = the products of elements 4 l .. 4 l + 3,
// acc_l = fma(d, lane_l, acc_l); kPairs (iq4_nl, mxfp4): blocks alternate between two sets of lanes and an odd
// last block is added after the final sum (upstream_order.h).
template <class Block, bool kQ8_1, bool kPairs>
struct LegacyDot {
    using Act = std::conditional_t<kQ8_1, BlockQ8_1, BlockQ8_0>;
    static float dot(const void * w, const void * y, int64_t k) {
        float         acc[2][8] = {};
        float         mins = 0.0f, last_d = 0.0f;
        int32_t       last_sum = 0;
        const int64_t nb       = k / kQK32;
        const int64_t paired   = kPairs ? nb / 2 * 2 : nb;
        for (int64_t i = 0; i < nb; ++i) {
            const LegacyLevels l = levels(load_block<Block>(w, i));
            const auto         q = load_block<Act>(y, i);
            int32_t            lanes[8] = {};
            for (int j = 0; j < kQK32; ++j) {
                lanes[j / 4] += l.v[j] * q.qs[j];
            }
            const float d = l.d * fp16_to_fp32(q.d);
            if (i >= paired) {
                last_d   = d;
                last_sum = lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
                continue;
            }
            float * a = acc[kPairs ? i % 2 : 0];
            for (int lane = 0; lane < 8; ++lane) {
                a[lane] = std::fma(d, static_cast<float>(lanes[lane]), a[lane]);
            }
            if constexpr (kQ8_1) {
                mins = std::fma(l.m, fp16_to_fp32(q.s), mins);
            }
        }
        float sums[8];
        for (int lane = 0; lane < 8; ++lane) {
            sums[lane] = kPairs ? acc[0][lane] + acc[1][lane] : acc[0][lane];
        }
        float r = sum_lanes8(sums);
        if constexpr (kQ8_1) {
            r += mins;
        }
        if (paired < nb) {
            r += last_d * static_cast<float>(last_sum); // two roundings (no FMA contraction: see CMakeLists.txt)
        }
        return r;
    }
};

// K-quants against q8_K in upstream's order: per super-block the eight int32 lanes (lane l: the elements with
// (e % 32) / 4 == l, each times its scale), mins_l from the bsums, then the floats as upstream_order.h says.
template <class Block>
struct KQ8_K {
    static constexpr MinTerm kMin = kMinTerm<Block>;
    static float dot(const void * w, const void * y, int64_t k) {
        float           acc[8] = {};
        KMinSums<Block> outside;
        for (int64_t i = 0; i < k / kQK_K; ++i) {
            const KLevels l = levels(load_block<Block>(w, i));
            const auto    q = load_block<BlockQ8_K>(y, i);
            const int     code_offset = kCodeOffset<Block>; // q6_K: its codes 0..63; the trit formats: 0..2
            int32_t       lanes[8] = {}, mins[8];
            for (int e = 0; e < kQK_K; ++e) {
                lanes[(e % 32) / 4] += l.scale[e / 16] * (l.v[e] + code_offset) * q.qs[e];
            }
            kquant_mins<Block>(l, q.bsums, mins);
            const float d = q.d * l.d, dmin = -q.d * l.dmin;
            for (int m = 0; m < 8; ++m) {
                if constexpr (kMin == MinTerm::kLanes) {
                    acc[m] = std::fma(dmin, static_cast<float>(mins[m]), acc[m]);
                }
                const int32_t lane = kMin == MinTerm::kSubtract ? lanes[m] - mins[m] : lanes[m];
                acc[m]             = std::fma(d, static_cast<float>(lane), acc[m]);
            }
            outside.add(dmin, mins);
        }
        return outside.finish(sum_lanes8(acc));
    }
};

// iq1_s / iq1_m against q8_K in upstream's order (ternary_levels.h): per super-block d = d_a * d_w, the eight lanes
// of the grid values (2 s + 1) g q and the delta part (2 s + 1) delta q, as one total (iq1_s) or eight more lanes
// (iq1_m); the levels are v = 8 g + delta and l.d = d_w / 8.
template <class Block>
struct Iq1Dot {
    static constexpr bool kSecondLanes = std::is_same_v<Block, quant::BlockIQ1_M>;
    static float dot(const void * w, const void * y, int64_t k) {
        float acc[8] = {}, acc2[8] = {}, total = 0.0f;
        for (int64_t i = 0; i < k / kQK_K; ++i) {
            const KLevels l = levels(load_block<Block>(w, i));
            const auto    q = load_block<BlockQ8_K>(y, i);
            int32_t       lanes[8] = {}, deltas[8] = {};
            for (int e = 0; e < kQK_K; ++e) {
                lanes[(e % 32) / 4] += l.scale[e / 16] * iq1_grid_of(l.v[e]) * q.qs[e];
                deltas[(e % 32) / 4] += l.scale[e / 16] * iq1_delta_of(l.v[e]) * q.qs[e];
            }
            const float d = q.d * (l.d * 8.0f); // l.d * 8 is d_w exactly
            for (int m = 0; m < 8; ++m) {
                acc[m] = std::fma(d, static_cast<float>(lanes[m]), acc[m]);
                if constexpr (kSecondLanes) {
                    acc2[m] = std::fma(d, static_cast<float>(deltas[m]), acc2[m]);
                }
            }
            if constexpr (!kSecondLanes) {
                const int32_t sum = deltas[0] + deltas[1] + deltas[2] + deltas[3] + deltas[4] + deltas[5] +
                                    deltas[6] + deltas[7];
                total = std::fma(static_cast<float>(sum), d, total);
            }
        }
        if constexpr (kSecondLanes) {
            return std::fma(sum_lanes8(acc2), quant::kIq1Delta, sum_lanes8(acc));
        } else {
            return sum_lanes8(acc) + quant::kIq1Delta * total; // two roundings, as upstream's compiler leaves them
        }
    }
};

// The formats of ggml 0.25.1 against q8_0, each in the order of upstream's x86 kernel for it (AVX2 for q1_0 and
// nvfp4; the portable C for q2_0, whose scale steps the compiler fuses into FMAs in upstream's builds for CPUs with
// FMA: the haswell, skylakex and zen4 variants of llama.cpp's release binaries). Lane l of a 32-element
// activation block holds the products of elements 4 l .. 4 l + 3.

// q1_0: a block spans four q8_0 blocks; per block lane l = d_a0 * sums_0, then fma(d_aK, sums_K, lane) for K = 1..3,
// then acc = fma(d_w, lane, acc). A clear bit negates the activation byte (as a byte: -(-128) stays -128).
struct Q1Dot {
    static float dot(const void * w, const void * y, int64_t k) {
        float acc[8] = {};
        for (int64_t i = 0; i < k / 128; ++i) {
            const auto b = quant::load_block<quant::BlockQ1_0>(w, i);
            float      block[8];
            for (int kb = 0; kb < 4; ++kb) {
                const auto q  = load_block<BlockQ8_0>(y, 4 * i + kb);
                const float da = fp16_to_fp32(q.d);
                for (int l = 0; l < 8; ++l) {
                    int32_t lane = 0;
                    for (int e = 4 * l; e < 4 * l + 4; ++e) {
                        const bool set = (b.qs[4 * kb + e / 8] >> (e % 8)) & 1;
                        lane += set ? q.qs[e] : static_cast<int8_t>(-q.qs[e]);
                    }
                    const float sum = static_cast<float>(lane);
                    block[l]        = kb == 0 ? da * sum : std::fma(da, sum, block[l]);
                }
            }
            const float d = fp16_to_fp32(b.d);
            for (int l = 0; l < 8; ++l) {
                acc[l] = std::fma(d, block[l], acc[l]);
            }
        }
        return sum_lanes8(acc);
    }
};

// q2_0: a block spans two q8_0 blocks; sum = fma(d_aK, sum_K, sum) over the two, total = fma(d_w, sum, total).
struct Q2Dot {
    static float dot(const void * w, const void * y, int64_t k) {
        float total = 0.0f;
        for (int64_t i = 0; i < k / 64; ++i) {
            const auto b   = quant::load_block<quant::BlockQ2_0>(w, i);
            float      sum = 0.0f;
            for (int kb = 0; kb < 2; ++kb) {
                const auto q    = load_block<BlockQ8_0>(y, 2 * i + kb);
                int32_t    ints = 0;
                for (int e = 0; e < 32; ++e) {
                    const int j = 32 * kb + e;
                    ints += (((b.qs[j / 4] >> (2 * (j % 4))) & 3) - 1) * q.qs[e];
                }
                sum = std::fma(fp16_to_fp32(q.d), static_cast<float>(ints), sum);
            }
            total = std::fma(fp16_to_fp32(b.d), sum, total);
        }
        return total;
    }
};

// nvfp4: a block spans two q8_0 blocks, each two sub-blocks of 16; lanes 0-3 of activation block K belong to sub-block
// 2 K, lanes 4-7 to 2 K + 1, and acc_l = fma(scale * d_aK, lane_l, acc_l).
struct Fp4Dot {
    static float dot(const void * w, const void * y, int64_t k) {
        float acc[8] = {};
        for (int64_t i = 0; i < k / 64; ++i) {
            const auto b = quant::load_block<quant::BlockNVFP4>(w, i);
            float      scale[4];
            for (int s = 0; s < 4; ++s) {
                scale[s] = quant::ue4m3_half_scale(b.d[s]);
            }
            for (int kb = 0; kb < 2; ++kb) {
                const auto  q  = load_block<BlockQ8_0>(y, 2 * i + kb);
                const float da = fp16_to_fp32(q.d);
                for (int l = 0; l < 8; ++l) {
                    const int s    = 2 * kb + l / 4; // sub-block
                    int32_t   lane = 0;
                    for (int e = 4 * l; e < 4 * l + 4; ++e) {
                        const int     j    = e % 16; // element of the sub-block
                        const uint8_t byte = b.qs[8 * s + j % 8];
                        lane += quant::kMxfp4Values[j < 8 ? byte & 0xf : byte >> 4] * q.qs[e];
                    }
                    acc[l] = std::fma(scale[s] * da, static_cast<float>(lane), acc[l]);
                }
            }
        }
        return sum_lanes8(acc);
    }
};

// Plain float formats: both operands as floats, eight partial sums.
template <float (*kLoadW)(const void *, int64_t), float (*kLoadY)(const void *, int64_t)>
struct FloatDot {
    static float dot(const void * w, const void * y, int64_t k) {
        float   acc[8] = {};
        int64_t i      = 0;
        for (; i + 8 <= k; i += 8) {
            for (int l = 0; l < 8; ++l) {
                acc[l] += kLoadW(w, i + l) * kLoadY(y, i + l);
            }
        }
        float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for (; i < k; ++i) {
            sum += kLoadW(w, i) * kLoadY(y, i);
        }
        return sum;
    }
};

float load_f32(const void * p, int64_t i) {
    float v;
    std::memcpy(&v, static_cast<const char *>(p) + i * 4, sizeof(v));
    return v;
}

float load_f16(const void * p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(p) + i * 2, sizeof(h));
    return fp16_to_fp32(h);
}

float load_bf16(const void * p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(p) + i * 2, sizeof(h));
    return bf16_to_fp32(h);
}

} // namespace

// Every type with a row and a GEMM form has its levels (levels.h), and so do the grid formats of grid_levels.h, so
// this level covers all of them alike.
MatVecFn matvec_scalar(ggml_type weight) {
    MatVecFn f = nullptr;
    with_type_row(weight, [&]<ggml_type T>() {
        constexpr CpuTypeRow row = cpu_type_row(T);
        using Block              = quant::BlockOf<T>;
        if constexpr (T == GGML_TYPE_F32) {
            f = dot_kernel<FloatDot<load_f32, load_f32>>;
        } else if constexpr (T == GGML_TYPE_F16) {
            f = dot_kernel<FloatDot<load_f16, load_f16>>;
        } else if constexpr (T == GGML_TYPE_BF16) {
            f = dot_kernel<FloatDot<load_bf16, load_bf16>>;
        } else if constexpr (kGridLevels<T>) {
            f = dot_kernel<KQ8_K<GridBlockOf<T>>>; // grid_levels.h: K-quant levels without a min
        } else if constexpr (kIq1<TernaryBlockOf<T>>) {
            f = dot_kernel<Iq1Dot<TernaryBlockOf<T>>>; // ternary_levels.h: a grid value and a shift
        } else if constexpr (kTernaryLevels<T>) {
            f = dot_kernel<KQ8_K<TernaryBlockOf<T>>>; // ternary_levels.h: trits, q6_K's offset term
        } else if constexpr (T == GGML_TYPE_Q1_0) {
            f = dot_kernel<Q1Dot>;
        } else if constexpr (T == GGML_TYPE_Q2_0) {
            f = dot_kernel<Q2Dot>;
        } else if constexpr (T == GGML_TYPE_NVFP4) {
            f = dot_kernel<Fp4Dot>;
        } else if constexpr (row.gemm_group == 0) {
            return; // no levels form: the generic path (vec_dot through to_float)
        } else if constexpr (kTypeTable[T].blck_size == quant::kQK_K) {
            f = dot_kernel<KQ8_K<Block>>;
        } else {
            f = dot_kernel<LegacyDot<Block, row.act == GGML_TYPE_Q8_1, row.upstream_pairs>>;
        }
    });
    return f;
}

} // namespace switchyard::cpu::quants
