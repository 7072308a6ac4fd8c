// MUL_MAT of quantized weights gives what upstream's x86 CPU backend gives, bit for bit, not just to float rounding:
// programs built against us must pick the same tokens as upstream's build (a q5_K GPT-2 diverged after a few
// tokens on AVX-512 machines while its sums differed only in their float order).
//
// The oracle is written here from the formats' documented layouts and upstream's x86 vec_dot (ggml-cpu/arch/x86/
// quants.c, the AVX2 code every x86 CPU with AVX2 runs): the integer products are exact, so what fixes the result
// is upstream's float order, restated here in scalar code:
//
//   per 32-element block or 256-element super-block, eight int32 lanes: lane l sums the products of the elements e
//   with (e % 32) / 4 == l (times their sub-block scale); acc_l = fma(d_w * d_a, float(lane_l), acc_l); at the end
//   ((acc_0 + acc_4) + (acc_2 + acc_6)) + ((acc_1 + acc_5) + (acc_3 + acc_7)), plus each format's min term as its
//   vec_dot adds it (see upstream_dot_k / upstream_dot_legacy).
//
// The activations are converted by the tests' own reference (tools/conformance/reference/activations.h). Known answers
// computed by upstream ggml 0.25.1's CPU backend pin the oracle itself.
#include "kernel_test_util.h"
#include "matvec_test_util.h"

#include "cpu/quants/matvec.h"
#include "cpu/simd/isa.h"
#include "quant/iq_grids.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using switchyard::cpu::simd::Isa;
using switchyard::kernel_test::compute;
using switchyard::kernel_test::Ctx;
using switchyard::matvec_test::quantized_rows;
using switchyard::matvec_test::random_block_rows;
using switchyard::testing::reference::activation_type;
using switchyard::testing::reference::convert_activations;

const std::vector<ggml_type> & quantized_types() {
    static const std::vector<ggml_type> types = {
        GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL,
        GGML_TYPE_MXFP4, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
        GGML_TYPE_IQ4_XS,
    };
    return types;
}

// The grid formats with an integer kernel: no quantizer here, so random blocks only.
const std::vector<ggml_type> & grid_types() {
    static const std::vector<ggml_type> types = {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S,
                                                 GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S};
    return types;
}

float half(const uint8_t * p) {
    ggml_fp16_t h;
    std::memcpy(&h, p, sizeof(h));
    return ggml_fp16_to_fp32(h);
}

float sum_lanes8(const float * a) { return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7])); }

// ---- 32-element formats ---------------------------------------------------------------------------------------

constexpr int8_t kIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
// MXFP4's E2M1 values doubled (its E8M0 scale carries the factor 1/2)
constexpr int8_t kMxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// 2^(e - 128) (upstream's GGML_E8M0_TO_FP32_HALF): e < 2 are subnormal floats.
float e8m0_half(uint8_t e) { return std::ldexp(1.0f, static_cast<int>(e) - 128); }

struct LegacyBlock {
    int   v[32]; // the signed levels upstream multiplies (q4_1 / q5_1: unsigned, their min apart)
    float d, m;
};

LegacyBlock decode_legacy(ggml_type t, const uint8_t * b) {
    LegacyBlock out{};
    uint32_t    qh = 0;
    switch (t) {
        case GGML_TYPE_Q8_0:
            out.d = half(b);
            for (int j = 0; j < 32; ++j) out.v[j] = static_cast<int8_t>(b[2 + j]);
            return out;
        case GGML_TYPE_Q4_0: // d, 16 bytes: element j low nibble, j + 16 high nibble; level - 8
        case GGML_TYPE_IQ4_NL:
            out.d = half(b);
            for (int j = 0; j < 16; ++j) {
                const int lo = b[2 + j] & 15, hi = b[2 + j] >> 4;
                out.v[j]      = t == GGML_TYPE_Q4_0 ? lo - 8 : kIq4nl[lo];
                out.v[j + 16] = t == GGML_TYPE_Q4_0 ? hi - 8 : kIq4nl[hi];
            }
            return out;
        case GGML_TYPE_Q4_1: // d, m, nibbles
            out.d = half(b);
            out.m = half(b + 2);
            for (int j = 0; j < 16; ++j) {
                out.v[j]      = b[4 + j] & 15;
                out.v[j + 16] = b[4 + j] >> 4;
            }
            return out;
        case GGML_TYPE_Q5_0: // d, qh (bit j: element j's fifth bit), nibbles; level - 16
        case GGML_TYPE_Q5_1: {
            const bool with_min = t == GGML_TYPE_Q5_1;
            out.d               = half(b);
            out.m               = with_min ? half(b + 2) : 0.0f;
            std::memcpy(&qh, b + (with_min ? 4 : 2), 4);
            const uint8_t * qs = b + (with_min ? 8 : 6);
            for (int j = 0; j < 16; ++j) {
                out.v[j]      = ((qs[j] & 15) | (((qh >> j) & 1) << 4)) - (with_min ? 0 : 16);
                out.v[j + 16] = ((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - (with_min ? 0 : 16);
            }
            return out;
        }
        case GGML_TYPE_MXFP4: // e, nibbles as iq4_nl's into its own table
            out.d = e8m0_half(b[0]);
            for (int j = 0; j < 16; ++j) {
                out.v[j]      = kMxfp4[b[1 + j] & 15];
                out.v[j + 16] = kMxfp4[b[1 + j] >> 4];
            }
            return out;
        default: ADD_FAILURE() << "not a 32-element format"; return out;
    }
}

// Upstream's ggml_vec_dot_<type>_q8_0 / _q8_1 (x86, AVX2): q4_1 / q5_1 add m_w * s_a per block into one float
// (fused by upstream's compiler); iq4_nl and mxfp4 pair blocks over two accumulator sets and add an odd last block
// after the sum (d * sum, not fused).
float upstream_dot_legacy(ggml_type t, const uint8_t * w, const uint8_t * act, int64_t k) {
    const bool    q8_1  = t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_1;
    const bool    pairs = t == GGML_TYPE_IQ4_NL || t == GGML_TYPE_MXFP4;
    const size_t  abytes = q8_1 ? 36 : 34, aqs = q8_1 ? 4 : 2;
    const int64_t nb = k / 32, paired = pairs ? nb / 2 * 2 : nb;
    float         acc[2][8] = {}, mins = 0.0f, tail = 0.0f;
    bool          has_tail  = false;
    for (int64_t i = 0; i < nb; ++i) {
        const LegacyBlock x = decode_legacy(t, w + i * ggml_type_size(t));
        const uint8_t *   y = act + i * abytes;
        int               lanes[8] = {};
        for (int j = 0; j < 32; ++j) lanes[j / 4] += x.v[j] * static_cast<int8_t>(y[aqs + j]);
        const float d = x.d * half(y);
        if (i >= paired) {
            has_tail = true;
            tail     = d * static_cast<float>(lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] +
                                          lanes[6] + lanes[7]);
            continue;
        }
        float * a = acc[pairs ? i % 2 : 0];
        for (int l = 0; l < 8; ++l) a[l] = std::fma(d, static_cast<float>(lanes[l]), a[l]);
        if (q8_1) mins = std::fma(x.m, half(y + 2), mins);
    }
    float s[8];
    for (int l = 0; l < 8; ++l) s[l] = pairs ? acc[0][l] + acc[1][l] : acc[0][l];
    float r = sum_lanes8(s);
    if (q8_1) r += mins;
    if (has_tail) r += tail;
    return r;
}

// ---- K-quants -------------------------------------------------------------------------------------------------

struct KBlock {
    int   code[256];  // what upstream's vec_dot multiplies: q3_K its signed level, q6_K its code 0..63
    int   scale[16];  // per 16 elements
    int   factor[16]; // the bsums factor per 16: mins (q2_K, q4_K, q5_K), 32 * scale (q6_K)
    float d, dmin;
    float constant = 1.0f; // the grid formats: the final sum's factor (0.125f * hsum_float_8(accumf))
};

uint32_t u32_at(const uint8_t * p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Element j of a run: grid byte j of `point`, negative where bit j of signs is set.
int grid_code(uint64_t point, unsigned signs, int j) {
    const int m = static_cast<int>((point >> (8 * j)) & 0xff);
    return (signs >> j) & 1 ? -m : m;
}

// The grid formats (iq_blocks.h's layouts; d at byte 0): run r (8 elements) of group g (32) is element
// 32 g + 8 r + j; the scales 2 s + 1 per 32 (iq2_xxs, iq3_xxs, iq3_s) or per 16 (iq2_xs, iq2_s).
void decode_grid(ggml_type t, const uint8_t * b, KBlock & out) {
    using namespace switchyard::quant;
    out.d = half(b);
    const uint8_t * qs = b + 2;
    for (int g = 0; g < 8; ++g) {
        int s[2] = {};
        for (int r = 0; r < 4; ++r) {
            int * code = out.code + 32 * g + 8 * r;
            if (t == GGML_TYPE_IQ2_XXS) { // 8 bytes a group: 4 indices, then w (signs 7 bits a run, s in bits 28..31)
                const uint32_t w = u32_at(qs + 8 * g + 4);
                const unsigned signs = kEvenSigns[(w >> (7 * r)) & 127];
                for (int j = 0; j < 8; ++j) code[j] = grid_code(kIq2xxsGrid[qs[8 * g + r]], signs, j);
                s[0] = s[1] = static_cast<int>(w >> 28);
                out.constant = 0.125f;
            } else if (t == GGML_TYPE_IQ2_XS) { // qs: 9-bit index, 7-bit signs; then scales[8]
                const unsigned q = qs[2 * (4 * g + r)] | (qs[2 * (4 * g + r) + 1] << 8);
                for (int j = 0; j < 8; ++j) code[j] = grid_code(kIq2xsGrid[q & 511], kEvenSigns[q >> 9], j);
                s[0] = b[66 + g] & 15;
                s[1] = b[66 + g] >> 4;
                out.constant = 0.125f;
            } else if (t == GGML_TYPE_IQ2_S) { // qs[32] indices, qs[32..63] sign bytes, qh[8], scales[8]
                const unsigned index = qs[4 * g + r] | (((b[66 + g] >> (2 * r)) & 3) << 8);
                for (int j = 0; j < 8; ++j) code[j] = grid_code(kIq2sGrid[index], qs[32 + 4 * g + r], j);
                s[0] = b[74 + g] & 15;
                s[1] = b[74 + g] >> 4;
                out.constant = 0.125f;
            } else if (t == GGML_TYPE_IQ3_XXS) { // qs[64] indices (two a run), then w per group as iq2_xxs's
                const uint32_t w     = u32_at(qs + 64 + 4 * g);
                const unsigned signs = kEvenSigns[(w >> (7 * r)) & 127];
                for (int j = 0; j < 8; ++j) {
                    code[j] = grid_code(kIq3xxsGrid[qs[8 * g + 2 * r + j / 4]], signs >> (j / 4 * 4), j % 4);
                }
                s[0] = s[1] = static_cast<int>(w >> 28);
                out.constant = 0.25f;
            } else { // iq3_s: qs[64], qh[8] (bit 2r + h: the index's ninth), signs[32], scales[4] (a nibble a group)
                for (int j = 0; j < 8; ++j) {
                    const int      h     = 2 * r + j / 4;
                    const unsigned index = qs[8 * g + h] | (((b[66 + g] >> h) & 1) << 8);
                    code[j] = grid_code(kIq3sGrid[index], b[74 + 4 * g + r] >> (j / 4 * 4), j % 4);
                }
                s[0] = s[1] = (b[106 + g / 2] >> (4 * (g % 2))) & 15;
            }
        }
        out.scale[2 * g]     = 2 * s[0] + 1;
        out.scale[2 * g + 1] = 2 * s[1] + 1;
    }
}

// Q4_K / Q5_K: the 6-bit scale and min of sub-block j from the 12 packed bytes.
void k4_scale_min(const uint8_t * s, int j, int & sc, int & m) {
    if (j < 4) {
        sc = s[j] & 63;
        m  = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
        m  = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

KBlock decode_k(ggml_type t, const uint8_t * b) {
    KBlock out{};
    switch (t) {
        case GGML_TYPE_Q2_K: // scales[16] (scale low nibble, min high), qs[64], d, dmin
            for (int i = 0; i < 256; ++i) {
                out.code[i] = (b[16 + 32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
            }
            for (int j = 0; j < 16; ++j) {
                out.scale[j]  = b[j] & 15;
                out.factor[j] = b[j] >> 4;
            }
            out.d    = half(b + 80);
            out.dmin = half(b + 82);
            return out;
        case GGML_TYPE_Q3_K: // hmask[32], qs[64], scales[12] (6-bit, + 32), d; level = low 2 bits + 4 * hbit - 4
            for (int i = 0; i < 256; ++i) {
                const int low = (b[32 + 32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
                out.code[i]   = low + 4 * ((b[i % 32] >> (i / 32)) & 1) - 4;
            }
            for (int j = 0; j < 16; ++j) {
                const int lo = (b[96 + j % 8] >> (j < 8 ? 0 : 4)) & 15, hi = (b[96 + 8 + j % 4] >> (2 * (j / 4))) & 3;
                out.scale[j] = (lo | (hi << 4)) - 32;
            }
            out.d = half(b + 108);
            return out;
        case GGML_TYPE_Q4_K: // d, dmin, scales[12], qs[128]
        case GGML_TYPE_Q5_K: // d, dmin, scales[12], qh[32], qs[128]
        {
            const bool      five = t == GGML_TYPE_Q5_K;
            const uint8_t * qs   = b + (five ? 48 : 16);
            for (int i = 0; i < 256; ++i) {
                const uint8_t byte = qs[32 * (i / 64) + i % 32];
                out.code[i]        = (i % 64) < 32 ? byte & 15 : byte >> 4;
                if (five) out.code[i] |= ((b[16 + i % 32] >> (i / 32)) & 1) << 4;
            }
            for (int j = 0; j < 8; ++j) {
                int sc = 0, m = 0;
                k4_scale_min(b + 4, j, sc, m);
                out.scale[2 * j] = out.scale[2 * j + 1] = sc;
                out.factor[2 * j] = out.factor[2 * j + 1] = m;
            }
            out.d    = half(b);
            out.dmin = half(b + 2);
            return out;
        }
        case GGML_TYPE_Q6_K: // ql[128], qh[64], scales[16] int8, d
            for (int i = 0; i < 256; ++i) {
                const int h = i / 128, r = i % 128;
                const int low = (b[64 * h + r % 64] >> (r < 64 ? 0 : 4)) & 15;
                const int high = (b[128 + 32 * h + r % 32] >> (2 * (r / 32))) & 3;
                out.code[i]    = low | (high << 4);
            }
            for (int j = 0; j < 16; ++j) {
                out.scale[j]  = static_cast<int8_t>(b[192 + j]);
                out.factor[j] = 32 * out.scale[j];
            }
            out.d = half(b + 208);
            return out;
        case GGML_TYPE_IQ4_XS: // d, scales_h (2 high bits per 32), scales_l[4] (low nibbles), qs[128]; scale - 32
            for (int i = 0; i < 256; ++i) {
                const uint8_t byte = b[8 + 16 * (i / 32) + i % 16];
                out.code[i]        = kIq4nl[(i % 32) < 16 ? byte & 15 : byte >> 4];
            }
            for (int j = 0; j < 16; ++j) {
                const int g = j / 2, lo = (b[4 + g / 2] >> (4 * (g % 2))) & 15, hi = ((b[2] | (b[3] << 8)) >> (2 * g)) & 3;
                out.scale[j] = (lo | (hi << 4)) - 32;
            }
            out.d = half(b);
            return out;
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S: decode_grid(t, b, out); return out;
        default: ADD_FAILURE() << "not a K-quant"; return out;
    }
}

// Upstream's ggml_vec_dot_<type>_q8_K (x86, AVX2). mins_l = bsums[2 l] f[2 l] + bsums[2 l + 1] f[2 l + 1];
// dmin = -d_a * dmin_w. q2_K: fma(dmin, mins_l) into the lanes' accumulators first; q4_K: four accumulators of
// mins_2k + mins_2k+1, summed (0 + 2) + (1 + 3) and added; q5_K: one float fma(dmin, sum of mins) (fused by
// upstream's compiler), added; q6_K: lanes - mins in integers; q3_K, iq4_xs: none (signed levels); the grid
// formats: none, the sum times their constant.
float upstream_dot_k(ggml_type t, const uint8_t * w, const uint8_t * act, int64_t k) {
    float acc[8] = {}, quads[4] = {}, total = 0.0f, constant = 1.0f;
    for (int64_t i = 0; i < k / 256; ++i) {
        const KBlock    x = decode_k(t, w + i * ggml_type_size(t));
        constant          = x.constant;
        const uint8_t * y = act + i * 292; // q8_K: float d, int8 qs[256], int16 bsums[16]
        float           da;
        std::memcpy(&da, y, 4);
        int16_t bsums[16];
        std::memcpy(bsums, y + 260, sizeof(bsums));
        int lanes[8] = {}, mins[8] = {};
        for (int e = 0; e < 256; ++e) {
            lanes[(e % 32) / 4] += x.scale[e / 16] * x.code[e] * static_cast<int8_t>(y[4 + e]);
        }
        for (int l = 0; l < 8; ++l) mins[l] = bsums[2 * l] * x.factor[2 * l] + bsums[2 * l + 1] * x.factor[2 * l + 1];
        const float d = da * x.d, dmin = -da * x.dmin;
        for (int l = 0; l < 8; ++l) {
            if (t == GGML_TYPE_Q2_K) acc[l] = std::fma(dmin, static_cast<float>(mins[l]), acc[l]);
            acc[l] = std::fma(d, static_cast<float>(t == GGML_TYPE_Q6_K ? lanes[l] - mins[l] : lanes[l]), acc[l]);
        }
        for (int q = 0; q < 4 && t == GGML_TYPE_Q4_K; ++q) {
            quads[q] = std::fma(dmin, static_cast<float>(mins[2 * q] + mins[2 * q + 1]), quads[q]);
        }
        if (t == GGML_TYPE_Q5_K) {
            total = std::fma(dmin, static_cast<float>(mins[0] + mins[1] + mins[2] + mins[3] + mins[4] + mins[5] +
                                                      mins[6] + mins[7]),
                             total);
        }
    }
    const float r = sum_lanes8(acc);
    if (t == GGML_TYPE_Q4_K) return r + ((quads[0] + quads[2]) + (quads[1] + quads[3]));
    if (t == GGML_TYPE_Q5_K) return r + total;
    return constant * r;
}

// The -1 / 0 / +1 formats: random blocks (iq1_s, iq1_m have no quantizer here) and quantized ones.
const std::vector<ggml_type> & ternary_types() {
    static const std::vector<ggml_type> types = {GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M, GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0};
    return types;
}

// Trit n of a tq1_0 byte: the top base-3 digit of byte * 3^n (mod 256).
int tq1_trit(uint8_t byte, int n) {
    const int pow3[5] = {1, 3, 9, 27, 81};
    return (static_cast<uint8_t>(byte * pow3[n]) * 3) >> 8;
}

// The stored trit (0..3) of element e of a tq1_0 / tq2_0 block: tq2_0 four 2-bit values a byte, element 128 h +
// 32 s + m at bit 2 s of qs[32 h + m]; tq1_0 five trits a byte of qs[0..31] (element 32 n + m), qs[32..47] (160 +
// 16 n + m), four of qh[0..3] at 48 (240 + 4 n + m).
int stored_trit(ggml_type t, const uint8_t * b, int e) {
    if (t == GGML_TYPE_TQ2_0) return (b[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
    if (e < 160) return tq1_trit(b[e % 32], e / 32);
    if (e < 240) return tq1_trit(b[32 + (e - 160) % 16], (e - 160) / 16);
    return tq1_trit(b[48 + (e - 240) % 4], (e - 240) / 4);
}

// Upstream's ggml_vec_dot_{tq1_0,tq2_0,iq1_s,iq1_m}_q8_K (x86, AVX2), d = d_a * d_w per super-block:
//   tq1_0 / tq2_0  lane l = sum of t q - bsums[2 l] - bsums[2 l + 1] (t the stored trit), acc_l = fma(lane_l, d,
//                  acc_l) (its mul_ps and add_ps fused by GCC), then the lanes' sum;
//   iq1_s          lanes of (2 s + 1) g q (g the grid byte, s bits 12..14 of qh[group]), acc_l = fma(d, lane_l, acc_l);
//                  sumi1 = sum over groups of (bsums[2 g] + bsums[2 g + 1]) * (+-1 by bit 15) * (2 s + 1), total =
//                  fma(sumi1, d, total) (fused by GCC); result = lanes' sum + 0.125 * total;
//   iq1_m          the same lanes with the scale of each half group (3 bits at 6 (g % 2) + 3 h of scale word g / 2),
//                  and eight more: (2 s + 1) * (+-1 per run of 8, bit 3 of its qh nibble) * q; d's fp16 from the
//                  words' top nibbles; result = fma(sum of the second lanes, 0.125, lanes' sum).
float upstream_dot_ternary(ggml_type t, const uint8_t * w, const uint8_t * act, int64_t k) {
    float acc[8] = {}, acc2[8] = {}, total = 0.0f;
    for (int64_t i = 0; i < k / 256; ++i) {
        const uint8_t * b = w + i * ggml_type_size(t);
        const uint8_t * y = act + i * 292;
        float           da;
        std::memcpy(&da, y, 4);
        int16_t bsums[16];
        std::memcpy(bsums, y + 260, sizeof(bsums));
        const auto q = [&](int e) { return static_cast<int8_t>(y[4 + e]); };
        int lanes[8] = {}, lanes2[8] = {}, sumi1 = 0;
        float dw = 0.0f;
        if (t == GGML_TYPE_TQ1_0 || t == GGML_TYPE_TQ2_0) {
            dw = half(b + (t == GGML_TYPE_TQ2_0 ? 64 : 52));
            for (int e = 0; e < 256; ++e) lanes[(e % 32) / 4] += stored_trit(t, b, e) * q(e);
            for (int l = 0; l < 8; ++l) lanes[l] -= bsums[2 * l] + bsums[2 * l + 1];
        } else if (t == GGML_TYPE_IQ1_S) {
            dw = half(b);
            for (int g = 0; g < 8; ++g) {
                uint16_t qh;
                std::memcpy(&qh, b + 34 + 2 * g, 2);
                const int ls = 2 * ((qh >> 12) & 7) + 1;
                for (int r = 0; r < 4; ++r) {
                    const uint64_t point = switchyard::quant::kIq1sGrid[b[2 + 4 * g + r] | (((qh >> (3 * r)) & 7) << 8)];
                    for (int j = 0; j < 8; ++j) {
                        const int e = 32 * g + 8 * r + j;
                        lanes[(e % 32) / 4] += ls * static_cast<int8_t>(point >> (8 * j)) * q(e);
                    }
                }
                sumi1 += (bsums[2 * g] + bsums[2 * g + 1]) * (qh & 0x8000 ? -1 : 1) * ls;
            }
        } else {
            uint16_t sc[4];
            std::memcpy(sc, b + 48, sizeof(sc));
            dw = ggml_fp16_to_fp32(static_cast<ggml_fp16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) |
                                                            ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000)));
            for (int g = 0; g < 8; ++g) {
                for (int r = 0; r < 4; ++r) {
                    const int      nib   = (b[32 + 2 * g + r / 2] >> (4 * (r % 2))) & 0xf;
                    const uint64_t point = switchyard::quant::kIq1sGrid[b[4 * g + r] | ((nib & 7) << 8)];
                    const int      ls    = 2 * ((sc[g / 2] >> (6 * (g % 2) + 3 * (r / 2))) & 7) + 1;
                    for (int j = 0; j < 8; ++j) {
                        const int e = 32 * g + 8 * r + j;
                        lanes[(e % 32) / 4] += ls * static_cast<int8_t>(point >> (8 * j)) * q(e);
                        lanes2[(e % 32) / 4] += ls * (nib & 8 ? -1 : 1) * q(e);
                    }
                }
            }
        }
        const float d = da * dw;
        for (int l = 0; l < 8; ++l) {
            if (t == GGML_TYPE_TQ1_0 || t == GGML_TYPE_TQ2_0) {
                acc[l] = std::fma(static_cast<float>(lanes[l]), d, acc[l]);
            } else {
                acc[l]  = std::fma(d, static_cast<float>(lanes[l]), acc[l]);
                acc2[l] = std::fma(d, static_cast<float>(lanes2[l]), acc2[l]);
            }
        }
        total = std::fma(static_cast<float>(sumi1), d, total);
    }
    if (t == GGML_TYPE_IQ1_M) return std::fma(sum_lanes8(acc2), 0.125f, sum_lanes8(acc));
    if (t == GGML_TYPE_IQ1_S) {
        const float shift = 0.125f * total;
        return sum_lanes8(acc) + shift;
    }
    return sum_lanes8(acc);
}

bool is_ternary(ggml_type t) {
    return std::find(ternary_types().begin(), ternary_types().end(), t) != ternary_types().end();
}

// Upstream's product of one weight row with k activations (converted here as upstream converts them).
float upstream_dot(ggml_type t, const uint8_t * w, const float * x, int64_t k) {
    const std::vector<uint8_t> act = convert_activations(activation_type(t), x, k);
    if (is_ternary(t)) return upstream_dot_ternary(t, w, act.data(), k);
    return ggml_blck_size(t) == 256 ? upstream_dot_k(t, w, act.data(), k) : upstream_dot_legacy(t, w, act.data(), k);
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof(b));
    return b;
}

} // namespace

// Every matrix-vector kernel this CPU runs (scalar, AVX2, AVX-512 VNNI, ...) on the reference's activation bytes.
TEST(UpstreamBits, EveryMatVecLevelGivesUpstreamsBits) {
    std::mt19937           rng(71);
    std::vector<ggml_type> types = quantized_types();
    types.insert(types.end(), grid_types().begin(), grid_types().end());
    types.insert(types.end(), ternary_types().begin(), ternary_types().end());
    for (ggml_type type : types) {
        const bool grid = std::find(grid_types().begin(), grid_types().end(), type) != grid_types().end();
        const bool k_quant = ggml_blck_size(type) == 256;
        for (size_t level = 0; level < switchyard::cpu::simd::kIsaCount; ++level) {
            const auto isa = static_cast<Isa>(level);
            const auto kern = switchyard::cpu::quants::matvec_entry(type, isa);
            if (!switchyard::cpu::simd::isa_supported(isa) || kern.fn == nullptr) {
                continue;
            }
            const std::vector<int64_t> lens = k_quant ? std::vector<int64_t>{256, 768, 4096}
                                                      : std::vector<int64_t>{32, 96, 4096, 4128};
            for (int64_t len : lens) {
                const int64_t rows = 3;
                for (bool random_bytes : {false, true}) {
                    if ((grid || type == GGML_TYPE_IQ1_S || type == GGML_TYPE_IQ1_M) && !random_bytes) {
                        continue; // no quantizer: random blocks only
                    }
                    const std::vector<uint8_t> w = random_bytes ? random_block_rows(type, rows, len, rng)
                                                                : quantized_rows(type, rows, len, rng);
                    for (int cols = 1; cols <= switchyard::cpu::quants::kMaxCols; ++cols) {
                        std::vector<std::vector<float>> x;
                        std::vector<uint8_t>            act;
                        const size_t                    a_col = ggml_row_size(kern.act_type, len);
                        for (int c = 0; c < cols; ++c) {
                            x.push_back(switchyard::matvec_test::normal_floats(rng, len, c == 0 ? 1.0f : 30.0f));
                            const std::vector<uint8_t> bytes = convert_activations(kern.act_type, x.back().data(), len);
                            act.insert(act.end(), bytes.begin(), bytes.end());
                        }
                        std::vector<float> out(static_cast<size_t>(rows * cols));
                        kern.fn({len, w.data(), ggml_row_size(type, len), rows, act.data(), a_col, cols, out.data(),
                                 cols, 1});
                        for (int64_t r = 0; r < rows; ++r) {
                            for (int c = 0; c < cols; ++c) {
                                const float want = upstream_dot(type, w.data() + r * ggml_row_size(type, len),
                                                                x[c].data(), len);
                                ASSERT_EQ(bits(out[r * cols + c]), bits(want))
                                    << ggml_type_name(type) << " " << switchyard::isa_level_name(isa)
                                    << " k=" << len << (random_bytes ? " random blocks" : "") << " row " << r
                                    << " column " << c << " of " << cols << ": " << out[r * cols + c] << " vs "
                                    << want;
                            }
                        }
                    }
                }
            }
        }
    }
}

// The matrices of a GPT-2-like layer with n_embd 256 (rows of 256 as in its attention and MLP-up matrices, of 1024 as
// in its MLP-down matrix; fewer rows, to stay quick) through MUL_MAT on the CPU, for the column counts of decoding
// and of short prompts (the matrix-vector path), on 1 and 3 threads.
TEST(UpstreamBits, MulMatOfALayerGivesUpstreamsBits) {
    std::mt19937           rng(72);
    std::vector<ggml_type> types = quantized_types();
    types.insert(types.end(), grid_types().begin(), grid_types().end());
    types.insert(types.end(), ternary_types().begin(), ternary_types().end());
    for (ggml_type type : types) {
        for (const auto & [k, rows] : {std::pair<int64_t, int64_t>{256, 96}, std::pair<int64_t, int64_t>{1024, 40}}) {
            for (int64_t cols : {1, 2, 3, 7, 16, 32}) {
                Ctx           ctx;
                ggml_tensor * a = ggml_new_tensor_2d(ctx, type, k, rows);
                ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, cols);
                const std::vector<uint8_t> w = quantized_rows(type, rows, k, rng); // grid formats: random blocks
                std::memcpy(a->data, w.data(), w.size());
                const std::vector<float> x = switchyard::matvec_test::normal_floats(rng, k * cols, 2.0f);
                std::memcpy(b->data, x.data(), x.size() * sizeof(float));
                ggml_tensor * out = ggml_mul_mat(ctx, a, b);
                for (int nt : {1, 3}) {
                    ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                    int failures = 0;
                    for (int64_t c = 0; c < cols; ++c) {
                        for (int64_t r = 0; r < rows; ++r) {
                            const float got  = static_cast<const float *>(out->data)[c * rows + r];
                            const float want =
                                upstream_dot(type, w.data() + r * ggml_row_size(type, k), x.data() + c * k, k);
                            if (bits(got) != bits(want) && ++failures <= 3) {
                                ADD_FAILURE() << ggml_type_name(type) << " k=" << k << " " << cols << " columns, " << nt
                                              << " threads: (" << r << ", " << c << ") " << got << " vs " << want;
                            }
                        }
                    }
                    EXPECT_EQ(failures, 0) << ggml_type_name(type) << " k=" << k << " " << cols << " columns";
                }
            }
        }
    }
}

namespace {

// Known answers: 4 rows x 2 columns of MUL_MAT, weights (quantized with ggml_quantize_chunk, whose bytes equal
// upstream's) and activations from the generator below; the values computed by upstream ggml 0.25.1's CPU backend
// (x86-64 with AVX2, built with GCC), as float bits, output (row r, column c) at 4 c + r.
struct KnownAnswer {
    ggml_type               type;
    std::array<uint32_t, 8> bits;
};

const KnownAnswer kUpstream[] = {
    {GGML_TYPE_Q4_0,
     {0x3ff568a6u, 0xbf8e5851u, 0xbff07ee2u, 0x3fae598du,
      0xbf0ad509u, 0x3fb318bcu, 0xbfd98b38u, 0x4006a81fu}},
    {GGML_TYPE_Q4_1,
     {0xbfaace50u, 0xbfa5e4c0u, 0xbda75840u, 0x3f3e1ae0u,
      0x3f8f53bcu, 0xbd8c7f00u, 0x403e10a2u, 0xbeb897d0u}},
    {GGML_TYPE_Q5_0,
     {0x3fe681cau, 0xbfc12d6du, 0x3f605a74u, 0xc02ee798u,
      0xbf8fc978u, 0xbf7a9468u, 0xbf696698u, 0x3e656abcu}},
    {GGML_TYPE_Q5_1,
     {0x405bd470u, 0x3ecd0810u, 0xbe81c8b0u, 0xbfd1b890u,
      0xc007bdb8u, 0x404ee292u, 0x40272098u, 0xbd5b6680u}},
    {GGML_TYPE_Q8_0,
     {0xc0bb7dadu, 0x3fa1ee23u, 0xbf33b2c8u, 0xc009924eu,
      0xbec0787cu, 0x3fc0f1d7u, 0x3f466870u, 0x3f4a875fu}},
    {GGML_TYPE_IQ4_NL,
     {0xbfb297feu, 0x3e13fde4u, 0x3eeaa875u, 0x3f26cd92u,
      0xc0451f64u, 0x3fd801c7u, 0x3feb7206u, 0x3def5cc8u}},
    {GGML_TYPE_Q2_K,
     {0x40c57614u, 0xc0470638u, 0x4078c4dau, 0x3f5b1b60u,
      0x409d5e82u, 0x3fae9b0cu, 0x4072968au, 0x40566624u}},
    {GGML_TYPE_Q3_K,
     {0x40df275cu, 0x40b38189u, 0xc0640704u, 0x40f648cau,
      0x3edf7ed8u, 0x40a78a42u, 0xc0b127c3u, 0x40b59d47u}},
    {GGML_TYPE_Q4_K,
     {0x40e08640u, 0x3f425aa0u, 0x3ec97540u, 0x3f5725c0u,
      0x3fff4200u, 0xbe8fdaa0u, 0xbe8f6b40u, 0x400bd038u}},
    {GGML_TYPE_Q5_K,
     {0xc0be4608u, 0x40c5dbc1u, 0xc0d3774eu, 0x3fb7b8d3u,
      0xbfb36c3au, 0x4070f0f8u, 0x4089cb64u, 0xbfa7b988u}},
    {GGML_TYPE_Q6_K,
     {0x3f3c53f8u, 0xbfe7d768u, 0xbf3cd8a0u, 0x3ff9f988u,
      0x3ef5b400u, 0xbf7bb398u, 0x3fdf33b0u, 0x40f9a3a0u}},
};

// An integer LCG (exact on every machine): values in [-scale, scale).
struct Generator {
    uint32_t state;
    float    next(float scale) {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) * (1.0f / static_cast<float>(1 << 23)) *
               scale;
    }
};

// The known answers' inputs for `type`: rows x k weights and cols x k activations from the generator (seeded by
// the type), the weights mostly small with every fifth larger, the activations every third larger.
void known_inputs(ggml_type type, int64_t k, int64_t rows, int64_t cols, std::vector<float> & w, std::vector<float> & x) {
    Generator gen{12345u + static_cast<uint32_t>(type)};
    w.resize(static_cast<size_t>(k * rows));
    x.resize(static_cast<size_t>(k * cols));
    for (size_t i = 0; i < w.size(); ++i) w[i] = gen.next(i % 5 == 0 ? 0.5f : 0.05f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = gen.next(i % 3 == 0 ? 4.0f : 1.0f);
}

// MUL_MAT's outputs (out = a x, a of 4 rows, x of 2 columns of a's k) and the oracle on a's bytes both give ka's bits.
void expect_known_answer(const KnownAnswer & ka, const ggml_tensor * a, const ggml_tensor * out,
                         const std::vector<float> & x) {
    const int64_t k = a->ne[0], rows = a->ne[1];
    for (int64_t i = 0; i < static_cast<int64_t>(ka.bits.size()); ++i) {
        const float got = static_cast<const float *>(out->data)[i];
        EXPECT_EQ(bits(got), ka.bits[i]) << ggml_type_name(ka.type) << " output " << i << ": " << got;
        const float want = upstream_dot(ka.type, static_cast<const uint8_t *>(a->data) + (i % rows) * a->nb[1],
                                        x.data() + (i / rows) * k, k);
        EXPECT_EQ(bits(want), ka.bits[i]) << ggml_type_name(ka.type) << " oracle, output " << i;
    }
}

} // namespace

TEST(UpstreamBits, KnownAnswersOfUpstreamsCpuBackend) {
    constexpr int64_t kRows = 4, kCols = 2;
    for (const KnownAnswer & ka : kUpstream) {
        const int64_t      k = ggml_blck_size(ka.type) == 256 ? 512 : 96;
        std::vector<float> w, x;
        known_inputs(ka.type, k, kRows, kCols, w, x);
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_2d(ctx, ka.type, k, kRows);
        ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, kCols);
        ggml_quantize_chunk(ka.type, w.data(), a->data, 0, kRows, k, nullptr);
        std::memcpy(b->data, x.data(), x.size() * sizeof(float));
        ggml_tensor * out = ggml_mul_mat(ctx, a, b);
        ASSERT_EQ(compute(ctx, out, 2), GGML_STATUS_SUCCESS);
        expect_known_answer(ka, a, out, x);
    }
}

namespace {

// Known answers of the -1 / 0 / +1 formats (iq1 has no quantizer here): 4 rows x 2 columns of MUL_MAT, k = 512,
// weights of random bytes from the LCG (state 777 + type; each byte the top byte of the next state), every block's
// f16 d then set to 0x2000 + (its second byte % 4) * 0x400 (iq1_m: into the top nibbles of its scale words),
// activations as above. The values computed by upstream ggml d99724f2's CPU backend (x86-64, built natively with GCC
// and, the same bits, for AVX2 only): its vec_dot of these types is the AVX2 code the oracle follows.
const KnownAnswer kUpstreamTernary[] = {
    {GGML_TYPE_IQ1_S,
     {0xc066e59au, 0xc089c7b8u, 0x418c4d37u, 0xc046bba7u,
      0xc03758c3u, 0x3f393b84u, 0xc0f94577u, 0xc17c686au}},
    {GGML_TYPE_IQ1_M,
     {0x410a0c47u, 0xc11cf058u, 0xbf92ae60u, 0x3fdf8b58u,
      0x40db0929u, 0x40d6290cu, 0xc0337ee0u, 0x40038fdeu}},
    {GGML_TYPE_TQ1_0,
     {0x3f1b888cu, 0x3e94f95du, 0xbf562930u, 0x3df24e98u,
      0x3f1cb117u, 0x3fc8d78fu, 0xbeaaab50u, 0x3f0f574eu}},
    {GGML_TYPE_TQ2_0,
     {0x407c8959u, 0x3eef2fc4u, 0x40873e9du, 0x40a82a51u,
      0xbf1db032u, 0x40218ec4u, 0xbf0ddc96u, 0xbf96ada2u}},
};

// The f16 d of a block of these formats (iq1_m: its nibbles in the top of the four scale words).
void set_block_d(ggml_type t, uint8_t * b, uint16_t h) {
    if (t == GGML_TYPE_IQ1_M) {
        for (int n = 0; n < 4; ++n) {
            b[49 + 2 * n] = static_cast<uint8_t>((b[49 + 2 * n] & 0x0f) | (((h >> (4 * n)) & 0xf) << 4));
        }
        return;
    }
    const size_t at = t == GGML_TYPE_TQ1_0 ? 52 : t == GGML_TYPE_TQ2_0 ? 64 : 0;
    std::memcpy(b + at, &h, sizeof(h));
}

} // namespace

TEST(UpstreamBits, KnownAnswersOfTheTernaryFormats) {
    constexpr int64_t kRows = 4, kCols = 2, k = 512;
    for (const KnownAnswer & ka : kUpstreamTernary) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_2d(ctx, ka.type, k, kRows);
        ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, kCols);
        Generator     gen{777u + static_cast<uint32_t>(ka.type)};
        auto *        w  = static_cast<uint8_t *>(a->data);
        const size_t  bs = ggml_type_size(ka.type);
        for (size_t i = 0; i < ggml_nbytes(a); ++i) {
            gen.next(1.0f);
            w[i] = static_cast<uint8_t>(gen.state >> 24);
        }
        for (size_t i = 0; i < ggml_nbytes(a); i += bs) {
            set_block_d(ka.type, w + i, static_cast<uint16_t>(0x2000 + (w[i + 1] % 4) * 0x400));
        }
        std::vector<float> x(static_cast<size_t>(k * kCols));
        for (size_t i = 0; i < x.size(); ++i) x[i] = gen.next(i % 3 == 0 ? 4.0f : 1.0f);
        std::memcpy(b->data, x.data(), x.size() * sizeof(float));
        ggml_tensor * out = ggml_mul_mat(ctx, a, b);
        ASSERT_EQ(compute(ctx, out, 2), GGML_STATUS_SUCCESS);
        expect_known_answer(ka, a, out, x);
    }
}

namespace {

// Known answers of ggml 0.25.1's formats, as kUpstream's (the same generator, weights by ggml_quantize_chunk) with
// k = 256; the values computed by upstream ggml 0.25.1's CPU backend as llama.cpp v0.5.0's release binaries ship it
// (node-llama-cpp 3.22.1's linux-x64 build: its haswell, skylakex and zen4 variants agree). nvfp4 and q1_0 run
// upstream's AVX2 vec_dot; q2_0 its portable one, whose scale steps those builds fuse into FMAs (a build tuned to
// avoid FMA chains, GCC's for Zen, gives the last bit differently in two of the eight).
const KnownAnswer kUpstreamGgml0_25_1[] = {
    {GGML_TYPE_NVFP4,
     {0x4062b866u, 0x4030f525u, 0x3e61cdf0u, 0x4037bed6u,
      0xbffff06cu, 0x401d6a4bu, 0x3ff5db2au, 0xbe516ce0u}},
    {GGML_TYPE_Q1_0,
     {0x3fc3dfa2u, 0xbe92ef70u, 0x3f4df2b6u, 0x3fa50978u,
      0x3eafd23cu, 0xc08491dcu, 0xbe323640u, 0x3ee515feu}},
    {GGML_TYPE_Q2_0,
     {0xbfab2b34u, 0x40817b20u, 0x3fc59a5bu, 0xc099f8b7u,
      0xbf3a2c67u, 0xc05e6a6du, 0xbfe4add8u, 0xbfe1eed4u}},
};

} // namespace

// The two columns give upstream's bits alone and among 37 (these types take the matrix-vector kernel at every
// batch size, as upstream's vec_dot does), on 1 and 2 threads.
TEST(UpstreamBits, KnownAnswersOfGgml0_25_1Formats) {
    constexpr int64_t kRows = 4, kCols = 2, kWide = 37, k = 256;
    for (const KnownAnswer & ka : kUpstreamGgml0_25_1) {
        std::vector<float> w, x;
        known_inputs(ka.type, k, kRows, kCols, w, x);
        for (int64_t cols : {kCols, kWide}) {
            for (int nt : {1, 2}) {
                Ctx           ctx;
                ggml_tensor * a = ggml_new_tensor_2d(ctx, ka.type, k, kRows);
                ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, cols);
                ggml_quantize_chunk(ka.type, w.data(), a->data, 0, kRows, k, nullptr);
                auto * bd = static_cast<float *>(b->data);
                for (int64_t i = 0; i < k * cols; ++i) {
                    bd[i] = i < k * kCols ? x[static_cast<size_t>(i)] : 0.25f * static_cast<float>(i % 7) - 0.5f;
                }
                ggml_tensor * out = ggml_mul_mat(ctx, a, b);
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                for (size_t i = 0; i < ka.bits.size(); ++i) {
                    const float got = static_cast<const float *>(out->data)[i];
                    EXPECT_EQ(bits(got), ka.bits[i]) << ggml_type_name(ka.type) << " output " << i << ", " << cols
                                                     << " columns, " << nt << " threads: " << got;
                }
            }
        }
    }
}
