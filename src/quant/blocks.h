// The block formats as they are stored in model files (GGUF) and tensors: one struct per format, byte for byte
// the layout upstream ggml defines (ggml-common.h), with sizes and field offsets checked at compile time. All
// `uint16_t` scale fields are IEEE binary16 ("half"), every multi-byte field is little-endian.
//
// Field names follow upstream's (d, dmin, m, s, e, qs, qh, ql, hmask, scales, bsums) because they are the
// vocabulary of the format; these are plain data, so they do not carry the trailing underscore of class members.
// The per-format comments say how element i of a block is stored; the dequantize functions in the format files
// are the executable definition.
#pragma once

#include "ggml.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace switchyard::quant {

constexpr int kQK32 = 32;  // elements per block of the legacy formats, IQ4_NL and MXFP4
constexpr int kQK_K = 256; // elements per super-block of the K-quants

// The 16 levels of IQ4_NL (non-uniform, denser near zero) and of MXFP4 (E2M1 values times two).
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};
inline constexpr int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// MXFP4's and NVFP4's code for v at scale d: the nearest kMxfp4Values[c] * d, the lower code on a tie.
inline uint8_t nearest_fp4_code(float v, float d) {
    uint8_t best     = 0;
    float   best_err = std::fabs(static_cast<float>(kMxfp4Values[0]) * d - v);
    for (uint8_t c = 1; c < 16; ++c) {
        const float err = std::fabs(static_cast<float>(kMxfp4Values[c]) * d - v);
        if (err < best_err) {
            best     = c;
            best_err = err;
        }
    }
    return best;
}

// Q4_0: value = (q - 8) * d. qs[j] holds element j in its low nibble and element j + 16 in its high nibble.
struct BlockQ4_0 {
    static constexpr ggml_type kType = GGML_TYPE_Q4_0;

    uint16_t d;
    uint8_t  qs[kQK32 / 2];
};

// Q4_1: value = q * d + m. qs as Q4_0.
struct BlockQ4_1 {
    static constexpr ggml_type kType = GGML_TYPE_Q4_1;

    uint16_t d;
    uint16_t m;
    uint8_t  qs[kQK32 / 2];
};

// Q5_0: value = (q - 16) * d with q = low nibble (qs, as Q4_0) | bit i of the little-endian uint32 qh << 4.
struct BlockQ5_0 {
    static constexpr ggml_type kType = GGML_TYPE_Q5_0;

    uint16_t d;
    uint8_t  qh[4];
    uint8_t  qs[kQK32 / 2];
};

// Q5_1: value = q * d + m, q as Q5_0.
struct BlockQ5_1 {
    static constexpr ggml_type kType = GGML_TYPE_Q5_1;

    uint16_t d;
    uint16_t m;
    uint8_t  qh[4];
    uint8_t  qs[kQK32 / 2];
};

// Q8_0: value = qs[i] * d.
struct BlockQ8_0 {
    static constexpr ggml_type kType = GGML_TYPE_Q8_0;

    uint16_t d;
    int8_t   qs[kQK32];
};

// Q8_1: value = qs[i] * d; s = d * (sum of qs), kept for the dot products against Q4_1 / Q5_1.
struct BlockQ8_1 {
    static constexpr ggml_type kType = GGML_TYPE_Q8_1;

    uint16_t d;
    uint16_t s;
    int8_t   qs[kQK32];
};

// Q2_K: 16 sub-blocks of 16. scales[k]: low nibble = scale, high nibble = min of sub-block k;
// value = d * scale * q - dmin * min, q 2-bit. Element i: byte qs[32 * (i / 128) + i % 32], bits 2 * ((i % 128) / 32).
struct BlockQ2_K {
    static constexpr ggml_type kType = GGML_TYPE_Q2_K;

    uint8_t  scales[kQK_K / 16];
    uint8_t  qs[kQK_K / 4];
    uint16_t d;
    uint16_t dmin;
};

// Q3_K: 16 sub-blocks of 16, 6-bit signed scales (stored + 32) packed in 12 bytes: the low 4 bits of scale k in
// scales[k % 8] (low nibble for k < 8, high nibble for k >= 8), the high 2 bits in scales[8 + k % 4] at bit
// 2 * (k / 4). value = d * (scale - 32) * (q - 4 * !hbit); q's low 2 bits are stored as in Q2_K, its high bit
// in hmask[i % 32] at bit i / 32.
struct BlockQ3_K {
    static constexpr ggml_type kType = GGML_TYPE_Q3_K;

    uint8_t  hmask[kQK_K / 8];
    uint8_t  qs[kQK_K / 4];
    uint8_t  scales[12];
    uint16_t d;
};

// Q4_K: 8 sub-blocks of 32 with 6-bit scale and min each, packed in 12 bytes (see unpack_scale_min_k4);
// value = d * scale * q - dmin * min. Element i: qs[32 * (i / 64) + i % 32], low nibble if (i % 64) < 32.
struct BlockQ4_K {
    static constexpr ggml_type kType = GGML_TYPE_Q4_K;

    uint16_t d;
    uint16_t dmin;
    uint8_t  scales[12];
    uint8_t  qs[kQK_K / 2];
};

// Q5_K: as Q4_K with a fifth bit: element i's bit 4 is bit i / 32 of qh[i % 32].
struct BlockQ5_K {
    static constexpr ggml_type kType = GGML_TYPE_Q5_K;

    uint16_t d;
    uint16_t dmin;
    uint8_t  scales[12];
    uint8_t  qh[kQK_K / 8];
    uint8_t  qs[kQK_K / 2];
};

// Q6_K: 16 sub-blocks of 16 with int8 scales; value = d * scale * (q - 32), q 6-bit. For element i with
// h = i / 128, r = i % 128: low 4 bits in ql[64 * h + r % 64] (low nibble if r < 64), high 2 bits in
// qh[32 * h + r % 32] at bit 2 * (r / 32).
struct BlockQ6_K {
    static constexpr ggml_type kType = GGML_TYPE_Q6_K;

    uint8_t  ql[kQK_K / 2];
    uint8_t  qh[kQK_K / 4];
    int8_t   scales[kQK_K / 16];
    uint16_t d;
};

// Q8_K: value = qs[i] * d, d a float32; bsums[k] = sum of qs over elements 16k..16k+15. Intermediate format
// for the dot products of the K-quants, not stored in model files.
struct BlockQ8_K {
    static constexpr ggml_type kType = GGML_TYPE_Q8_K;

    float   d;
    int8_t  qs[kQK_K];
    int16_t bsums[kQK_K / 16];
};

// IQ4_NL: value = d * kIq4nlValues[nibble], nibbles placed as in Q4_0.
struct BlockIQ4_NL {
    static constexpr ggml_type kType = GGML_TYPE_IQ4_NL;
    static constexpr const int8_t * kValues = kIq4nlValues;

    uint16_t d;
    uint8_t  qs[kQK32 / 2];
};

// IQ4_XS: IQ4_NL's levels in 256-element super-blocks. Sub-block b (32 elements) has the 6-bit scale
// ls = (low nibble b % 2 of scales_l[b / 2]) | (bits 2 b, 2 b + 1 of scales_h) << 4, and value
// = d * (ls - 32) * kIq4nlValues[nibble]; qs[16 b + j] holds element 32 b + j low and 32 b + j + 16 high.
struct BlockIQ4_XS {
    static constexpr ggml_type kType = GGML_TYPE_IQ4_XS;
    static constexpr const int8_t * kValues = kIq4nlValues;

    uint16_t d;
    uint16_t scales_h;
    uint8_t  scales_l[kQK_K / 64];
    uint8_t  qs[kQK_K / 2];
};

// TQ2_0 (ternary): value = (q - 1) * d with q in {0, 1, 2} (3 unused), four 2-bit values per byte. Element
// i = 128 h + 32 l + m (h < 2, l < 4, m < 32) sits in qs[32 h + m] at bit 2 l.
struct BlockTQ2_0 {
    static constexpr ggml_type kType = GGML_TYPE_TQ2_0;

    uint8_t  qs[kQK_K / 4];
    uint16_t d;
};

// Q1_0 (binary): value = +d where bit j of the 128 bits qs (byte j / 8, bit j % 8) is set, -d where it is clear.
struct BlockQ1_0 {
    static constexpr ggml_type kType = GGML_TYPE_Q1_0;

    uint16_t d;
    uint8_t  qs[128 / 8];
};

// Q2_0: value = (q - 1) * d with q in 0..3, element j at bit 2 (j % 4) of qs[j / 4] (64 elements).
struct BlockQ2_0 {
    static constexpr ggml_type kType = GGML_TYPE_Q2_0;

    uint16_t d;
    uint8_t  qs[64 / 4];
};

// NVFP4: 64 elements in four sub-blocks of 16, each with an unsigned E4M3 scale byte d[s] (ue4m3_half_scale:
// half the E4M3 value, as the level table holds twice the E2M1 values). Element i of sub-block s is
// kMxfp4Values[nibble] * scale: qs[8 s + i] low nibble for i < 8, qs[8 s + i - 8] high nibble otherwise.
struct BlockNVFP4 {
    static constexpr ggml_type kType = GGML_TYPE_NVFP4;
    static constexpr int       kSub  = 16;

    uint8_t d[64 / kSub];
    uint8_t qs[64 / 2];
};

// MXFP4: value = kMxfp4Values[nibble] * 2^(e - 128) (the table holds twice the E2M1 values, so this is
// E2M1 * 2^(e - 127)); nibbles placed as in Q4_0. e is an E8M0 exponent; 0xff is not a valid one.
struct BlockMXFP4 {
    static constexpr ggml_type kType = GGML_TYPE_MXFP4;
    static constexpr const int8_t * kValues = kMxfp4Values;

    uint8_t e;
    uint8_t qs[kQK32 / 2];
};

static_assert(sizeof(BlockTQ2_0) == 66 && offsetof(BlockTQ2_0, d) == 64);
static_assert(sizeof(BlockQ4_0) == 18 && offsetof(BlockQ4_0, qs) == 2);
static_assert(sizeof(BlockQ4_1) == 20 && offsetof(BlockQ4_1, m) == 2 && offsetof(BlockQ4_1, qs) == 4);
static_assert(sizeof(BlockQ5_0) == 22 && offsetof(BlockQ5_0, qh) == 2 && offsetof(BlockQ5_0, qs) == 6);
static_assert(sizeof(BlockQ5_1) == 24 && offsetof(BlockQ5_1, qh) == 4 && offsetof(BlockQ5_1, qs) == 8);
static_assert(sizeof(BlockQ8_0) == 34 && offsetof(BlockQ8_0, qs) == 2);
static_assert(sizeof(BlockQ8_1) == 36 && offsetof(BlockQ8_1, s) == 2 && offsetof(BlockQ8_1, qs) == 4);
static_assert(sizeof(BlockQ2_K) == 84 && offsetof(BlockQ2_K, qs) == 16 && offsetof(BlockQ2_K, d) == 80 &&
              offsetof(BlockQ2_K, dmin) == 82);
static_assert(sizeof(BlockQ3_K) == 110 && offsetof(BlockQ3_K, qs) == 32 && offsetof(BlockQ3_K, scales) == 96 &&
              offsetof(BlockQ3_K, d) == 108);
static_assert(sizeof(BlockQ4_K) == 144 && offsetof(BlockQ4_K, dmin) == 2 && offsetof(BlockQ4_K, scales) == 4 &&
              offsetof(BlockQ4_K, qs) == 16);
static_assert(sizeof(BlockQ5_K) == 176 && offsetof(BlockQ5_K, scales) == 4 && offsetof(BlockQ5_K, qh) == 16 &&
              offsetof(BlockQ5_K, qs) == 48);
static_assert(sizeof(BlockQ6_K) == 210 && offsetof(BlockQ6_K, qh) == 128 && offsetof(BlockQ6_K, scales) == 192 &&
              offsetof(BlockQ6_K, d) == 208);
static_assert(sizeof(BlockQ8_K) == 292 && offsetof(BlockQ8_K, qs) == 4 && offsetof(BlockQ8_K, bsums) == 260);
static_assert(sizeof(BlockIQ4_NL) == 18 && offsetof(BlockIQ4_NL, qs) == 2);
static_assert(sizeof(BlockMXFP4) == 17 && offsetof(BlockMXFP4, qs) == 1);
static_assert(sizeof(BlockQ1_0) == 18 && offsetof(BlockQ1_0, qs) == 2);
static_assert(sizeof(BlockQ2_0) == 18 && offsetof(BlockQ2_0, qs) == 2);
static_assert(sizeof(BlockNVFP4) == 36 && offsetof(BlockNVFP4, qs) == 4);
static_assert(sizeof(BlockIQ4_XS) == 136 && offsetof(BlockIQ4_XS, scales_h) == 2 &&
              offsetof(BlockIQ4_XS, scales_l) == 4 && offsetof(BlockIQ4_XS, qs) == 8);

// The struct that stores type T (its kType), void for types without one here: the block formats' one mapping from
// type to struct, which code generic over types (the CPU's type rows, type_rows.h) reads.
template <ggml_type T, class... B>
struct FindBlock {
    using type = void;
};
template <ggml_type T, class B, class... Rest>
struct FindBlock<T, B, Rest...> {
    using type = std::conditional_t<B::kType == T, B, typename FindBlock<T, Rest...>::type>;
};
template <ggml_type T>
using BlockOf = typename FindBlock<T, BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, BlockQ8_1, BlockQ2_K, BlockQ3_K,
                                   BlockQ4_K, BlockQ5_K, BlockQ6_K, BlockQ8_K, BlockIQ4_NL, BlockIQ4_XS, BlockTQ2_0,
                                   BlockMXFP4, BlockQ1_0, BlockQ2_0, BlockNVFP4>::type;

// The 16 levels of a format whose nibbles index a table (its kValues: IQ4_NL, IQ4_XS, MXFP4), nullptr for the
// others.
template <class Block>
constexpr const int8_t * value_table() {
    if constexpr (requires { Block::kValues; }) {
        return Block::kValues;
    } else {
        return nullptr;
    }
}

// NVFP4's scale byte as a float: half the unsigned E4M3 value (4 exponent bits with bias 7, 3 mantissa bits,
// subnormals below exponent 1), 0 for the bytes 0x00 and 0x7f; the top bit is not read. Upstream's definition on
// all 256 bytes.
inline float ue4m3_half_scale(uint8_t x) {
    if (x == 0 || x == 0x7f) {
        return 0.0f;
    }
    const int exp = (x >> 3) & 0xf;
    const int man = x & 0x7;
    const float raw = exp == 0 ? static_cast<float>(man) / 512.0f
                               : (1.0f + static_cast<float>(man) / 8.0f) * static_cast<float>(1 << exp) / 128.0f;
    return raw * 0.5f;
}

// Blocks are read and written through memcpy: tensors and user buffers need not be aligned for the structs.
template <typename Block>
Block load_block(const void * base, int64_t index) {
    Block b;
    std::memcpy(&b, static_cast<const char *>(base) + index * static_cast<int64_t>(sizeof(Block)), sizeof(Block));
    return b;
}

template <typename Block>
void store_block(void * base, int64_t index, const Block & b) {
    std::memcpy(static_cast<char *>(base) + index * static_cast<int64_t>(sizeof(Block)), &b, sizeof(Block));
}

// IQ4_XS: the stored 6-bit scale (0..63; the value is this - 32) of sub-block g (0..7) from scales_h and scales_l.
inline int iq4_xs_group_scale(uint16_t scales_h, const uint8_t * scales_l, int g) {
    return ((scales_l[g / 2] >> (4 * (g % 2))) & 0xf) | (((scales_h >> (2 * g)) & 3) << 4);
}

// Q4_K / Q5_K: the 6-bit scale and min of sub-block j (0..7) from the 12 packed bytes. Sub-blocks 0-3 keep
// scale and min in the low 6 bits of bytes j and j + 4; sub-blocks 4-7 keep their low 4 bits in the nibbles
// of byte j + 4 and their top 2 bits in the top bits of bytes j - 4 (scale) and j (min).
inline void unpack_scale_min_k4(int j, const uint8_t * q, uint8_t & scale, uint8_t & min) {
    if (j < 4) {
        scale = q[j] & 63;
        min   = q[j + 4] & 63;
    } else {
        scale = static_cast<uint8_t>((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
        min   = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// The inverse of unpack_scale_min_k4 for all 8 sub-blocks (scale and min values 0..63).
inline void pack_scales_mins_k4(const uint8_t * scales, const uint8_t * mins, uint8_t * q) {
    std::memset(q, 0, 12);
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            q[j] |= scales[j];
            q[j + 4] |= mins[j];
        } else {
            q[j + 4] = static_cast<uint8_t>((scales[j] & 0xf) | ((mins[j] & 0xf) << 4));
            q[j - 4] |= static_cast<uint8_t>((scales[j] >> 4) << 6);
            q[j] |= static_cast<uint8_t>((mins[j] >> 4) << 6);
        }
    }
}

} // namespace switchyard::quant
