// The formats whose weights are -1, 0 or +1 before their scales (iq1_s, iq1_m: grid values with a shift; tq1_0,
// tq2_0: trits) as K-quant levels (levels.h: KLevels), in portable code: what the integer GEMM packs and what the
// matrix-vector kernels of every level multiply.
//
//   tq1_0, tq2_0   v = t - 1 (t the stored trit 0, 1, 2), scale 1, d. Upstream's x86 vec_dot multiplies the trits t
//                  themselves and subtracts the activations' bsums: lane l = sum t q - bsums[2 l] - bsums[2 l + 1],
//                  acc_l = fma(d_w d_a, lane_l, acc_l) (its mul and add fused by its compiler): q6_K's min term
//                  (MinTerm::kSubtract) with a code offset of 1 instead of 32 (kCodeOffset).
//   iq1_s, iq1_m   element = d (2 s + 1) (g + delta / 8), g the grid value (-1, 0, 1), delta +-1 per 32 elements
//                  (iq1_s) or per run of 8 (iq1_m). As levels: v = 8 g + delta (-9, -7, -1, 1, 7, 9), scale 2 s + 1,
//                  d = d_w / 8 (exact), what the GEMM packs. Upstream's vec_dot keeps the two parts apart: eight
//                  lanes of (2 s + 1) g q with acc_l = fma(d, lane_l, acc_l), and the delta part, sum (2 s + 1) delta q,
//                  as one float fma(d, sum, total) per super-block (iq1_s; result = lanes' sum + total / 8) or as
//                  eight more lanes and accumulators (iq1_m; result = fma(their sum, 1/8, lanes' sum)). Scaling
//                  by 1/8 is exact in floats, so the vector kernels carry total / 8 with d / 8 (MinTerm::kTotal, and
//                  kDeltaLanes for iq1_m's second lanes) and add it as q5_K's total is added: upstream's bits.
//
// Layouts: quant/iq_blocks.h (iq1_s, iq1_m, tq1_0), quant/blocks.h (tq2_0).
#pragma once

#include "cpu/quants/levels.h"

#include "quant/iq_blocks.h"
#include "quant/iq_grids.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <type_traits>

namespace switchyard::cpu::quants {

// The block struct of a format of this file, void for every other type.
template <ggml_type T>
using TernaryBlockOf = typename quant::FindBlock<T, quant::BlockIQ1_S, quant::BlockIQ1_M, quant::BlockTQ1_0,
                                                 quant::BlockTQ2_0>::type;
template <ggml_type T>
inline constexpr bool kTernaryLevels = !std::is_void_v<TernaryBlockOf<T>>;

// Whether Block is iq1_s or iq1_m (a grid value with a shift) rather than a trit format.
template <class Block>
inline constexpr bool kIq1 = std::is_same_v<Block, quant::BlockIQ1_S> || std::is_same_v<Block, quant::BlockIQ1_M>;

namespace ternary_detail {

inline uint16_t u16_at(const uint8_t * p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// Trit n (0, 1, 2) of a tq1_0 byte: the top base-3 digit of byte * 3^n (mod 256).
inline int trit(uint8_t byte, int n) {
    constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    const auto        shifted  = static_cast<uint8_t>(byte * kPow3[n]);
    return (shifted * 3) >> 8;
}

// The fp16 super-scale of an iq1_m block: the top nibbles of its four scale words, lowest first.
inline uint16_t iq1_m_d(const uint8_t * scales) {
    uint16_t sc[4];
    std::memcpy(sc, scales, sizeof(sc));
    return static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 12) << 4) | ((sc[2] >> 12) << 8) | ((sc[3] >> 12) << 12));
}

} // namespace ternary_detail

// One run of 8 elements (run i: elements 8 i .. 8 i + 7) of an iq1 block b (its bytes): the grid point's index,
// its shift's sign (true: -1/8) and 2 s + 1. The one description of both layouts, read by the levels below and the
// vector kernels' scalar parts.
struct Iq1Run {
    unsigned index;
    bool     negative;
    int      scale;
};

template <class Block>
Iq1Run iq1_run(const uint8_t * b, int run);

template <>
inline Iq1Run iq1_run<quant::BlockIQ1_S>(const uint8_t * b, int run) {
    const int      g  = run / 4, r = run % 4;
    const unsigned qh = ternary_detail::u16_at(b + offsetof(quant::BlockIQ1_S, qh) + 2 * g);
    return {b[offsetof(quant::BlockIQ1_S, qs) + run] | (((qh >> (3 * r)) & 7u) << 8), (qh & 0x8000u) != 0,
            static_cast<int>(2 * ((qh >> 12) & 7u) + 1)};
}

template <>
inline Iq1Run iq1_run<quant::BlockIQ1_M>(const uint8_t * b, int run) {
    const int      g      = run / 4, r = run % 4;
    const unsigned nibble = (b[offsetof(quant::BlockIQ1_M, qh) + 2 * g + r / 2] >> (4 * (r % 2))) & 0xfu;
    const unsigned word   = ternary_detail::u16_at(b + offsetof(quant::BlockIQ1_M, scales) + 2 * (g / 2));
    return {b[offsetof(quant::BlockIQ1_M, qs) + run] | ((nibble & 7u) << 8), (nibble & 8u) != 0,
            static_cast<int>(2 * ((word >> (6 * (g % 2) + 3 * (r / 2))) & 7u) + 1)};
}

// The f16 bits of an iq1 block's d.
template <class Block>
inline uint16_t iq1_d_bits(const uint8_t * b) {
    if constexpr (std::is_same_v<Block, quant::BlockIQ1_S>) {
        return ternary_detail::u16_at(b);
    } else {
        return ternary_detail::iq1_m_d(b + offsetof(quant::BlockIQ1_M, scales));
    }
}

template <class Block>
    requires kIq1<Block>
inline KLevels levels(const Block & blk) {
    uint8_t b[sizeof(Block)];
    std::memcpy(b, &blk, sizeof(b));
    KLevels l{};
    for (int run = 0; run < kQK_K / 8; ++run) {
        const Iq1Run   x     = iq1_run<Block>(b, run);
        const uint64_t point = quant::kIq1sGrid[x.index];
        for (int j = 0; j < 8; ++j) {
            const int g      = static_cast<int8_t>((point >> (8 * j)) & 0xffu);
            l.v[8 * run + j] = static_cast<int8_t>(8 * g + (x.negative ? -1 : 1));
        }
        l.scale[run / 2] = static_cast<int8_t>(x.scale);
    }
    l.d = fp16_to_fp32(iq1_d_bits<Block>(b)) * 0.125f;
    return l;
}

// The grid value g and shift sign of a level v = 8 g + delta.
inline int iq1_grid_of(int v) { return (v + 9) / 8 - 1; }
inline int iq1_delta_of(int v) { return v - 8 * iq1_grid_of(v); }

inline KLevels levels(const quant::BlockTQ2_0 & b) {
    KLevels l{};
    for (int i = 0; i < kQK_K; ++i) { // element 128 h + 32 s + m: qs[32 h + m] at bit 2 s
        l.v[i] = static_cast<int8_t>(((b.qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3) - 1);
    }
    std::fill(std::begin(l.scale), std::end(l.scale), int8_t{1});
    l.d = fp16_to_fp32(b.d);
    return l;
}

inline KLevels levels(const quant::BlockTQ1_0 & b) {
    KLevels l{};
    for (int n = 0; n < 5; ++n) {
        for (int m = 0; m < 32; ++m) {
            l.v[32 * n + m] = static_cast<int8_t>(ternary_detail::trit(b.qs[m], n) - 1);
        }
        for (int m = 0; m < 16; ++m) {
            l.v[160 + 16 * n + m] = static_cast<int8_t>(ternary_detail::trit(b.qs[32 + m], n) - 1);
        }
    }
    for (int n = 0; n < 4; ++n) {
        for (int m = 0; m < 4; ++m) {
            l.v[240 + 4 * n + m] = static_cast<int8_t>(ternary_detail::trit(b.qh[m], n) - 1);
        }
    }
    std::fill(std::begin(l.scale), std::end(l.scale), int8_t{1});
    l.d = fp16_to_fp32(b.d);
    return l;
}

template <>
inline constexpr MinTerm kMinTerm<quant::BlockTQ1_0> = MinTerm::kSubtract;
template <>
inline constexpr MinTerm kMinTerm<quant::BlockTQ2_0> = MinTerm::kSubtract;
template <>
inline constexpr int kCodeOffset<quant::BlockTQ1_0> = 1;
template <>
inline constexpr int kCodeOffset<quant::BlockTQ2_0> = 1;

} // namespace switchyard::cpu::quants
