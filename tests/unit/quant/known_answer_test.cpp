// Known answers: blocks written byte by byte from the documented layouts (ggml-reference.md section 10 and the
// comments of quant/blocks.h), never by our quantizers, dequantize to exactly the values worked out here.
// Each format gets a block whose bytes are spelled out, and blocks of random levels placed by a writer that
// follows the documented bit positions; scales are powers of two and small integers so every expected value
// is exact whatever the order of the float operations.
#include "quant_test_util.h"
#include "quant/formats.h"

#include <algorithm>
#include <array>
#include <limits>

namespace {

using namespace switchyard::quant_test;

// Levels 0..(2^bits - 1) at random, from a fixed seed.
std::vector<int> random_levels(size_t n, int top, uint32_t seed) {
    std::mt19937                       rng(seed);
    std::uniform_int_distribution<int> dist(0, top);
    std::vector<int>                   q(n);
    for (int & v : q) {
        v = dist(rng);
    }
    return q;
}

void expect_values(ggml_type type, const Bytes & block, const std::vector<float> & expected) {
    ASSERT_EQ(block.size() % ggml_type_size(type), 0u);
    const auto got = dequantize(type, block.data(), static_cast<int64_t>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(got[i], expected[i]) << ggml_type_name(type) << " element " << i;
    }
}

// Nibble i of a 32-element block: byte i % 16, low nibble for i < 16.
void put_nibble(Bytes & b, size_t qs_offset, int i, int v) {
    b.or8(qs_offset + static_cast<size_t>(i % 16), static_cast<uint8_t>((v & 0xf) << (i < 16 ? 0 : 4)));
}

TEST(KnownAnswer, Q4_0) {
    // d = 0.5; qs[j] = j | (15 - j) << 4: element j is (j - 8) / 2, element j + 16 is (7 - j) / 2
    Bytes b(18);
    b.u16(0, kHalfHalf);
    for (int j = 0; j < 16; ++j) {
        b.u8(2 + static_cast<size_t>(j), static_cast<uint8_t>(j | ((15 - j) << 4)));
    }
    std::vector<float> want(32);
    for (int j = 0; j < 16; ++j) {
        want[static_cast<size_t>(j)]      = static_cast<float>(j - 8) * 0.5f;
        want[static_cast<size_t>(j + 16)] = static_cast<float>(7 - j) * 0.5f;
    }
    EXPECT_EQ(want[0], -4.0f);
    EXPECT_EQ(want[16], 3.5f);
    expect_values(GGML_TYPE_Q4_0, b, want);
}

TEST(KnownAnswer, Q4_1) {
    // two blocks: d = 0.25, m = -1 and d = 2, m = 0.5; random levels
    const auto         q = random_levels(64, 15, 1);
    Bytes              b(40);
    std::vector<float> want(64);
    const float        d[2] = {0.25f, 2.0f}, m[2] = {-1.0f, 0.5f};
    b.u16(0, kHalfQuarter).u16(2, kHalfMinus1).u16(20, kHalfTwo).u16(22, kHalfHalf);
    for (int i = 0; i < 64; ++i) {
        const int blk = i / 32;
        put_nibble(b, 20 * static_cast<size_t>(blk) + 4, i % 32, q[static_cast<size_t>(i)]);
        want[static_cast<size_t>(i)] = static_cast<float>(q[static_cast<size_t>(i)]) * d[blk] + m[blk];
    }
    expect_values(GGML_TYPE_Q4_1, b, want);
}

TEST(KnownAnswer, Q5_0) {
    // d = 1, all low nibbles 0, qh bytes 01 80 00 01: bits 0, 15 and 24 set -> elements 0, 15, 24 are 0,
    // every other element is -16
    Bytes b(22);
    b.u16(0, kHalfOne).u8(2, 0x01).u8(3, 0x80).u8(4, 0x00).u8(5, 0x01);
    std::vector<float> want(32, -16.0f);
    want[0] = want[15] = want[24] = 0.0f;
    expect_values(GGML_TYPE_Q5_0, b, want);

    // random 5-bit levels, d = 0.125
    const auto q = random_levels(32, 31, 2);
    Bytes      r(22);
    r.u16(0, kHalfEighth);
    uint32_t qh = 0;
    for (int i = 0; i < 32; ++i) {
        put_nibble(r, 6, i, q[static_cast<size_t>(i)]);
        qh |= static_cast<uint32_t>(q[static_cast<size_t>(i)] >> 4) << i;
        want[static_cast<size_t>(i)] = static_cast<float>(q[static_cast<size_t>(i)] - 16) * 0.125f;
    }
    for (int k = 0; k < 4; ++k) {
        r.u8(2 + static_cast<size_t>(k), static_cast<uint8_t>(qh >> (8 * k)));
    }
    expect_values(GGML_TYPE_Q5_0, r, want);
}

TEST(KnownAnswer, Q5_1) {
    // d = 0.5, m = 2, qs all 0x21 (low 1, high 2), qh bytes ff 00 00 80: elements 0-7 and 31 get bit 4
    Bytes b(24);
    b.u16(0, kHalfHalf).u16(2, kHalfTwo).u8(4, 0xff).u8(7, 0x80);
    for (int j = 0; j < 16; ++j) {
        b.u8(8 + static_cast<size_t>(j), 0x21);
    }
    std::vector<float> want(32);
    for (int i = 0; i < 32; ++i) {
        const int q                  = (i < 16 ? 1 : 2) + ((i < 8 || i == 31) ? 16 : 0);
        want[static_cast<size_t>(i)] = static_cast<float>(q) * 0.5f + 2.0f;
    }
    EXPECT_EQ(want[0], 10.5f);
    EXPECT_EQ(want[31], 11.0f);
    expect_values(GGML_TYPE_Q5_1, b, want);
}

TEST(KnownAnswer, Q8_0AndQ8_1) {
    // d = 0.125, qs[j] = j - 16, with the extremes -128 and 127 at both ends
    Bytes q80(34), q81(36);
    q80.u16(0, kHalfEighth);
    q81.u16(0, kHalfEighth).u16(2, kHalfNaN); // s is not used by dequantization
    std::vector<float> want(32);
    for (int j = 0; j < 32; ++j) {
        const int v = j == 0 ? -128 : j == 31 ? 127 : j - 16;
        q80.u8(2 + static_cast<size_t>(j), static_cast<uint8_t>(static_cast<int8_t>(v)));
        q81.u8(4 + static_cast<size_t>(j), static_cast<uint8_t>(static_cast<int8_t>(v)));
        want[static_cast<size_t>(j)] = static_cast<float>(v) * 0.125f;
    }
    EXPECT_EQ(want[0], -16.0f);
    EXPECT_EQ(want[31], 15.875f);
    expect_values(GGML_TYPE_Q8_0, q80, want);
    expect_values(GGML_TYPE_Q8_1, q81, want);
}

// ---- K-quants --------------------------------------------------------------------------------------------

// Q2_K and Q3_K place the 2-bit part of element i in byte 32 * (i / 128) + i % 32 at bits 2 * ((i % 128) / 32).
void put_2bit(Bytes & b, size_t qs_offset, int i, int v) {
    const size_t byte = qs_offset + static_cast<size_t>(32 * (i / 128) + i % 32);
    b.or8(byte, static_cast<uint8_t>((v & 3) << (2 * ((i % 128) / 32))));
}

TEST(KnownAnswer, Q2_K) {
    // d = 1, dmin = 0.5; sub-block k: scale k % 4 + 1, min k / 4; random 2-bit levels
    const auto q = random_levels(256, 3, 3);
    Bytes      b(84);
    b.u16(80, kHalfOne).u16(82, kHalfHalf);
    std::vector<float> want(256);
    for (int k = 0; k < 16; ++k) {
        b.u8(static_cast<size_t>(k), static_cast<uint8_t>((k % 4 + 1) | ((k / 4) << 4)));
    }
    for (int i = 0; i < 256; ++i) {
        put_2bit(b, 16, i, q[static_cast<size_t>(i)]);
        const int k                  = i / 16;
        want[static_cast<size_t>(i)] = static_cast<float>((k % 4 + 1) * q[static_cast<size_t>(i)]) -
                                       0.5f * static_cast<float>(k / 4);
    }
    expect_values(GGML_TYPE_Q2_K, b, want);
}

TEST(KnownAnswer, Q3_K) {
    // d = 0.5; sub-block k has scale k - 8, i.e. 6-bit code k + 24. Packed by hand: low nibbles of codes k and
    // k + 8 in byte k (k < 8), high 2 bits of codes m, m + 4, m + 8, m + 12 in byte 8 + m at bits 0, 2, 4, 6.
    // Codes 24..31 have high bits 01, codes 32..39 have 10: bytes 8..11 are 01 01 10 10 -> 0b10100101.
    const std::array<uint8_t, 12> scales = {0x08, 0x19, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f, 0xa5, 0xa5, 0xa5, 0xa5};
    const auto                    q      = random_levels(256, 7, 4); // 3-bit levels 0..7, value q - 4
    Bytes                         b(110);
    b.u16(108, kHalfHalf);
    for (size_t k = 0; k < 12; ++k) {
        b.u8(96 + k, scales[k]);
    }
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int v = q[static_cast<size_t>(i)];
        put_2bit(b, 32, i, v & 3);
        if (v & 4) { // high bit set: no -4
            b.or8(static_cast<size_t>(i % 32), static_cast<uint8_t>(1u << (i / 32)));
        }
        want[static_cast<size_t>(i)] = 0.5f * static_cast<float>((i / 16 - 8) * (v - 4));
    }
    expect_values(GGML_TYPE_Q3_K, b, want);
}

// Q4_K / Q5_K sub-block scales sc_j = 7j + 5 and mins m_j = 63 - 8j, packed by hand (see blocks.h):
// bytes 0-3: sc_0..3 | top 2 bits of sc_4..7 << 6 = 5|2<<6, 12|2<<6, 19|2<<6, 26|3<<6
// bytes 4-7: m_0..3 | top 2 bits of m_4..7 << 6 = 63|1<<6, 55|1<<6, 47, 39
// bytes 8-11: low 4 bits of sc_4..7 | low 4 bits of m_4..7 << 4 = 1|15<<4, 8|7<<4, 15|15<<4, 6|7<<4
constexpr std::array<uint8_t, 12> kK4Scales = {0x85, 0x8c, 0x93, 0xda, 0x7f, 0x77, 0x2f, 0x27, 0xf1, 0x78, 0xff, 0x76};

void put_k4_levels(Bytes & b, size_t qs_offset, const std::vector<int> & q) {
    for (int i = 0; i < 256; ++i) {
        const size_t byte = qs_offset + static_cast<size_t>(32 * (i / 64) + i % 32);
        b.or8(byte, static_cast<uint8_t>((q[static_cast<size_t>(i)] & 0xf) << ((i % 64) < 32 ? 0 : 4)));
    }
}

std::vector<float> k4_expected(const std::vector<int> & q) {
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int j                  = i / 32;
        const int sc = 7 * j + 5, m = 63 - 8 * j;
        want[static_cast<size_t>(i)] = 2.0f * static_cast<float>(sc * q[static_cast<size_t>(i)]) -
                                       static_cast<float>(m);
    }
    return want;
}

TEST(KnownAnswer, Q4_K) {
    const auto q = random_levels(256, 15, 5);
    Bytes      b(144);
    b.u16(0, kHalfTwo).u16(2, kHalfOne);
    for (size_t k = 0; k < 12; ++k) {
        b.u8(4 + k, kK4Scales[k]);
    }
    put_k4_levels(b, 16, q);
    expect_values(GGML_TYPE_Q4_K, b, k4_expected(q));
}

TEST(KnownAnswer, Q5_K) {
    const auto q = random_levels(256, 31, 6);
    Bytes      b(176);
    b.u16(0, kHalfTwo).u16(2, kHalfOne);
    for (size_t k = 0; k < 12; ++k) {
        b.u8(4 + k, kK4Scales[k]);
    }
    put_k4_levels(b, 48, q);
    for (int i = 0; i < 256; ++i) { // bit 4 of element i: qh[i % 32], bit i / 32
        if (q[static_cast<size_t>(i)] & 16) {
            b.or8(16 + static_cast<size_t>(i % 32), static_cast<uint8_t>(1u << (i / 32)));
        }
    }
    expect_values(GGML_TYPE_Q5_K, b, k4_expected(q));
}

TEST(KnownAnswer, Q6_K) {
    // d = 0.25; scales[k] = +-(k + 1) alternating in sign; random 6-bit levels, value q - 32
    const auto q = random_levels(256, 63, 7);
    Bytes      b(210);
    b.u16(208, kHalfQuarter);
    for (int k = 0; k < 16; ++k) {
        b.u8(192 + static_cast<size_t>(k), static_cast<uint8_t>(static_cast<int8_t>(k % 2 ? -(k + 1) : k + 1)));
    }
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int h = i / 128, r = i % 128, v = q[static_cast<size_t>(i)];
        b.or8(static_cast<size_t>(64 * h + r % 64), static_cast<uint8_t>((v & 0xf) << (r < 64 ? 0 : 4)));
        b.or8(128 + static_cast<size_t>(32 * h + r % 32), static_cast<uint8_t>((v >> 4) << (2 * (r / 32))));
        const int k                  = i / 16;
        const int scale              = k % 2 ? -(k + 1) : k + 1;
        want[static_cast<size_t>(i)] = 0.25f * static_cast<float>(scale * (v - 32));
    }
    expect_values(GGML_TYPE_Q6_K, b, want);
}

TEST(KnownAnswer, Q8_K) {
    // d is a float32 (here 0.75); qs int8; bsums are not used by dequantization
    Bytes b(292);
    b.f32(0, 0.75f);
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int v = i - 128;
        b.u8(4 + static_cast<size_t>(i), static_cast<uint8_t>(static_cast<int8_t>(v)));
        want[static_cast<size_t>(i)] = 0.75f * static_cast<float>(v);
    }
    expect_values(GGML_TYPE_Q8_K, b, want);
}

// ---- non-linear ------------------------------------------------------------------------------------------

TEST(KnownAnswer, IQ4_NL) {
    // d = 0.5; qs[j] = j | (15 - j) << 4 picks every table entry once in each half
    const int table[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    Bytes     b(18);
    b.u16(0, kHalfHalf);
    std::vector<float> want(32);
    for (int j = 0; j < 16; ++j) {
        b.u8(2 + static_cast<size_t>(j), static_cast<uint8_t>(j | ((15 - j) << 4)));
        want[static_cast<size_t>(j)]      = 0.5f * static_cast<float>(table[j]);
        want[static_cast<size_t>(j + 16)] = 0.5f * static_cast<float>(table[15 - j]);
    }
    EXPECT_EQ(want[0], -63.5f);
    EXPECT_EQ(want[16], 56.5f);
    expect_values(GGML_TYPE_IQ4_NL, b, want);
}

TEST(KnownAnswer, IQ4_XS) {
    // d = 0.5 at byte 0; sub-block g's 6-bit scale ls_g = 32 + g - 4 (signed scale g - 4: -4..3): low nibbles in
    // scales_l (byte 4 + g / 2, low nibble for even g), top two bits in scales_h (bytes 2..3, bits 2g, 2g + 1);
    // sub-block 7 takes ls = 63 (scale 31) and sub-block 6 ls = 0 (scale -32) to reach both ends. Element
    // 32 g + j (j < 16) is the low nibble of byte 8 + 16 g + j, element 32 g + j + 16 its high nibble.
    const int  table[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    const auto q         = random_levels(256, 15, 36);
    Bytes      b(136);
    b.u16(0, kHalfHalf);
    int ls[8];
    for (int g = 0; g < 8; ++g) {
        ls[g] = g == 7 ? 63 : g == 6 ? 0 : 32 + g - 4;
        b.or8(4 + static_cast<size_t>(g / 2), static_cast<uint8_t>((ls[g] & 0xf) << (g % 2 == 0 ? 0 : 4)));
        b.or8(2 + static_cast<size_t>(g / 4), static_cast<uint8_t>((ls[g] >> 4) << (2 * (g % 4))));
    }
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int g = i / 32, j = i % 32, level = q[static_cast<size_t>(i)];
        b.or8(8 + static_cast<size_t>(16 * g + j % 16), static_cast<uint8_t>(level << (j < 16 ? 0 : 4)));
        want[static_cast<size_t>(i)] = 0.5f * static_cast<float>(ls[g] - 32) * static_cast<float>(table[level]);
    }
    EXPECT_EQ(b.data()[3] >> 6, 0x3); // ls[7] = 63: its top bits 0b11 at bits 14, 15 of scales_h
    expect_values(GGML_TYPE_IQ4_XS, b, want);
}

TEST(KnownAnswer, TQ2_0) {
    // element i = 128 h + 32 l + m is code (qs[32 h + m] >> 2 l) & 3, value (code - 1) * d; d = 0.5 at byte 64.
    // Random codes 0..2, and code 3 (unused by the quantizer) once: it decodes to 2 d.
    const auto codes = random_levels(256, 2, 35);
    Bytes      b(66);
    b.u16(64, kHalfHalf);
    std::vector<float> want(256);
    for (int i = 0; i < 256; ++i) {
        const int code = i == 200 ? 3 : codes[static_cast<size_t>(i)];
        const int h = i / 128, l = (i / 32) % 4, m = i % 32;
        b.or8(static_cast<size_t>(32 * h + m), static_cast<uint8_t>(code << (2 * l)));
        want[static_cast<size_t>(i)] = 0.5f * static_cast<float>(code - 1);
    }
    EXPECT_EQ(want[200], 1.0f);
    expect_values(GGML_TYPE_TQ2_0, b, want);
}

TEST(ReferenceQuantizer, Tq2_0RoundsToTernaryLevelsOfTheLargestMagnitude) {
    // d = max |x| = 4; x / d rounds half away from zero: 0.5 -> 1, -0.5 -> -1, 0.49 -> 0; codes = level + 1
    std::vector<float> x(256, 0.0f);
    x[0]   = 4.0f;   // level 1
    x[1]   = -4.0f;  // level -1
    x[2]   = 2.0f;   // 0.5 -> 1
    x[3]   = -2.0f;  // -0.5 -> -1
    x[4]   = 1.96f;  // 0.49 -> 0
    x[130] = -3.0f;  // -0.75 -> -1, in the second half (h = 1, l = 0, m = 2)
    x[255] = 2.5f;   // 0.625 -> 1 (h = 1, l = 3, m = 31)
    std::vector<uint8_t> y(66, 0xee);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_TQ2_0)(x.data(), y.data(), 256);
    EXPECT_EQ(y[64] | (y[65] << 8), 0x4400); // 4.0 in fp16
    const auto code = [&](int i) { return (y[static_cast<size_t>(32 * (i / 128) + i % 32)] >> (2 * ((i / 32) % 4))) & 3; };
    const int expected[][2] = {{0, 2}, {1, 0}, {2, 2}, {3, 0}, {4, 1}, {130, 0}, {255, 2}, {5, 1}, {100, 1}};
    for (const auto & e : expected) {
        EXPECT_EQ(code(e[0]), e[1]) << "element " << e[0];
    }
    // an all-zero block: d = 0 and every code 1 (level 0)
    std::vector<float> zeros(256, 0.0f);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_TQ2_0)(zeros.data(), y.data(), 256);
    EXPECT_EQ(y[64] | (y[65] << 8), 0);
    for (int j = 0; j < 64; ++j) {
        ASSERT_EQ(y[static_cast<size_t>(j)], 0x55) << "byte " << j;
    }
}

TEST(KnownAnswer, MXFP4) {
    // E2M1 codes: bit 3 sign, then magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6. Value = E2M1 * 2^(e - 127).
    const float e2m1[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
    for (int e : {127, 130, 120, 1, 0, 254}) {
        Bytes b(17);
        b.u8(0, static_cast<uint8_t>(e));
        std::vector<float> want(32);
        for (int j = 0; j < 16; ++j) {
            b.u8(1 + static_cast<size_t>(j), static_cast<uint8_t>(j | ((15 - j) << 4)));
            want[static_cast<size_t>(j)]      = static_cast<float>(std::ldexp(e2m1[j], e - 127));
            want[static_cast<size_t>(j + 16)] = static_cast<float>(std::ldexp(e2m1[15 - j], e - 127));
        }
        SCOPED_TRACE("e = " + std::to_string(e));
        if (e == 127) {
            EXPECT_EQ(want[7], 6.0f);
            EXPECT_EQ(want[16], -6.0f);
        }
        const auto got = dequantize(GGML_TYPE_MXFP4, b.data(), 32);
        for (size_t i = 0; i < 32; ++i) { // -0 and +0 both decode to +0 (the table holds 0 twice)
            ASSERT_EQ(got[i], want[i]) << "element " << i;
        }
    }
}

// ---- plain types through their formats -------------------------------------------------------------------

TEST(KnownAnswer, PlainTypesThroughTheirFormats) {
    const float  src[4] = {1.0f, -2.5f, 65504.0f, 1e-8f};
    uint16_t     h[4];
    ggml_bf16_t  bf[4];
    double       f64[4];
    float        back[4];
    switchyard::quant::from_float_ref_fn(GGML_TYPE_F16)(src, h, 4);
    EXPECT_EQ(h[0], 0x3c00);
    EXPECT_EQ(h[1], 0xc100);
    EXPECT_EQ(h[2], 0x7bff);
    EXPECT_EQ(h[3], 0x0000); // 1e-8 < 2^-25: rounds to zero
    switchyard::quant::from_float_ref_fn(GGML_TYPE_BF16)(src, bf, 4);
    EXPECT_EQ(bf[0].bits, 0x3f80);
    EXPECT_EQ(bf[1].bits, 0xc020);
    switchyard::quant::to_float_fn(GGML_TYPE_BF16)(bf, back, 2);
    EXPECT_EQ(back[1], -2.5f);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_F64)(src, f64, 4);
    EXPECT_EQ(f64[1], -2.5);
    switchyard::quant::to_float_fn(GGML_TYPE_F64)(f64, back, 4);
    EXPECT_EQ(back[3], 1e-8f);
}

// Integers: nearest integer (ties to even), saturated to the type's range, NaN as 0; back to float exactly.
TEST(KnownAnswer, IntegerTypesThroughTheirFormats) {
    const float nan    = std::numeric_limits<float>::quiet_NaN();
    const float src[8] = {1.0f, -2.5f, 3.5f, 200.0f, -1e30f, nan, 0.49f, -129.0f};
    int8_t      i8[8];
    switchyard::quant::from_float_ref_fn(GGML_TYPE_I8)(src, i8, 8);
    const int8_t want8[8] = {1, -2, 4, 127, -128, 0, 0, -128};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(i8[i], want8[i]) << i;
    }
    int16_t i16[8];
    switchyard::quant::from_float_ref_fn(GGML_TYPE_I16)(src, i16, 8);
    const int16_t want16[8] = {1, -2, 4, 200, -32768, 0, 0, -129};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(i16[i], want16[i]) << i;
    }
    int32_t i32[8];
    switchyard::quant::from_float_ref_fn(GGML_TYPE_I32)(src, i32, 8);
    EXPECT_EQ(i32[3], 200);
    EXPECT_EQ(i32[4], INT32_MIN);
    int64_t i64[3];
    const float big[3] = {1e30f, -1e30f, 16777216.0f};
    switchyard::quant::from_float_ref_fn(GGML_TYPE_I64)(big, i64, 3);
    EXPECT_EQ(i64[0], INT64_MAX);
    EXPECT_EQ(i64[1], INT64_MIN);
    EXPECT_EQ(i64[2], 16777216);
    float back[8];
    switchyard::quant::to_float_fn(GGML_TYPE_I16)(i16, back, 8);
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(back[i], static_cast<float>(want16[i])) << i;
    }
    const int32_t ints[2] = {-7, 16777217}; // the second is not a float: rounds to the nearest even, 2^24
    switchyard::quant::to_float_fn(GGML_TYPE_I32)(ints, back, 2);
    EXPECT_EQ(back[0], -7.0f);
    EXPECT_EQ(back[1], 16777216.0f);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_I32, src, i32, 0, 2, 4, nullptr), 2u * 4u * sizeof(int32_t));
    EXPECT_EQ(i32[2], 4);
}

} // namespace

// ---- reference quantizers: the conventions model files were written with --------------------------------

namespace reference_bytes {

uint16_t half_at(const std::vector<uint8_t> & q, size_t off) {
    return static_cast<uint16_t>(q[off] | q[off + 1] << 8);
}

TEST(ReferenceQuantizer, Q4_0ScaleCarriesTheSignOfTheExtremeAndTopLevelIsClamped) {
    // x_j = (j - 15) / 4: the extreme is +4, so d = 4 / -8 = -0.5 (0xb800) and x / d + 8.5 truncated gives
    // q_j = 16 - ceil(j / 2), where q_0 = 16 is clamped to 15.
    std::vector<float> x(32);
    for (int j = 0; j < 32; ++j) {
        x[static_cast<size_t>(j)] = 0.25f * static_cast<float>(j - 15);
    }
    const auto q = quantize_ref(GGML_TYPE_Q4_0, x);
    EXPECT_EQ(half_at(q, 0), 0xb800);
    for (int j = 0; j < 16; ++j) {
        const int lo = std::min(15, 16 - (j + 1) / 2), hi = 16 - (j + 17) / 2;
        EXPECT_EQ(q[2 + static_cast<size_t>(j)], lo | hi << 4) << "byte " << j;
    }
    EXPECT_EQ(dequantize(GGML_TYPE_Q4_0, q.data(), 32)[0], -3.5f); // the clamped end is off by a quarter
}

TEST(ReferenceQuantizer, Q5_0AndQ8_KScalesAreNegativeForAPositiveExtreme) {
    std::vector<float> x(256, 0.0f);
    x[3]       = 16.0f; // extreme
    x[4]       = -8.0f;
    const auto q5 = quantize_ref(GGML_TYPE_Q5_0, std::vector<float>(x.begin(), x.begin() + 32));
    EXPECT_EQ(half_at(q5, 0), kHalfMinus1); // d = 16 / -16
    EXPECT_EQ(q5[6 + 3], 0x00);             // x = 16 -> q = 0 (low nibble 0, no fifth bit)
    EXPECT_EQ(q5[6 + 4] & 0xf, 8);          // x = -8 -> q = 24 -> low nibble 8 ...
    EXPECT_EQ(q5[2] >> 4 & 1, 1);           // ... fifth bit of element 4 set
    x[3]          = 127.0f;
    x[4]          = -1.0f;
    const auto qk = quantize_ref(GGML_TYPE_Q8_K, x);
    float      d;
    std::memcpy(&d, qk.data(), 4);
    EXPECT_EQ(d, -1.0f);                          // d = -max / 127
    EXPECT_EQ(static_cast<int8_t>(qk[4 + 3]), -127);
    EXPECT_EQ(static_cast<int8_t>(qk[4 + 4]), 1);
    EXPECT_EQ(static_cast<int16_t>(half_at(qk, 260)), -126); // bsums[0] = -127 + 1
}

TEST(ReferenceQuantizer, Mxfp4ExponentComesFromTheLargestMagnitude) {
    // amax = 6 -> e = floor(log2 6) - 2 + 127 = 127: scale 1, so E2M1 values are stored exactly
    std::vector<float> x = {6, -6, 0.5f, -0.5f, 1.5f, 3, 4, -2};
    x.resize(32, 0.0f);
    const auto q = quantize_ref(GGML_TYPE_MXFP4, x);
    EXPECT_EQ(q[0], 127);
    EXPECT_EQ(q[1], 0x07);        // element 0: 6 -> code 7; element 16: 0 -> code 0
    EXPECT_EQ(q[2], 0x0f);        // -6 -> code 15
    EXPECT_EQ(q[3] & 0xf, 0x01);  // 0.5
    EXPECT_EQ(q[4] & 0xf, 0x09);  // -0.5
    EXPECT_EQ(q[8] & 0xf, 0x0c);  // -2
}

} // namespace reference_bytes
