// ggml 0.25.1's formats Q1_0, Q2_0 and NVFP4 from their documented layouts: dequantized values of hand-built blocks
// and the reference quantizer's bytes for inputs whose encoding can be worked out by hand, including the edges of
// NVFP4's E4M3 scale byte (subnormal steps, rounding up into the next exponent, saturation at 448, 0x7f).
#include "quant_test_util.h"
#include "quant/formats.h"

#include <cmath>
#include <vector>

namespace {

using namespace switchyard::quant_test;

std::vector<float> decode(ggml_type type, const Bytes & b, int64_t n) { return dequantize(type, b.data(), n); }

std::vector<uint8_t> encode(ggml_type type, const std::vector<float> & x) {
    std::vector<uint8_t> y(ggml_row_size(type, static_cast<int64_t>(x.size())), 0xee);
    switchyard::quant::from_float_ref_fn(type)(x.data(), y.data(), static_cast<int64_t>(x.size()));
    return y;
}

TEST(NewFormats, Q1_0IsTheSignTimesTheMeanMagnitude) {
    Bytes b(18);
    b.u16(0, 0x3c00);           // d = 1
    b.u8(2, 0x01).u8(17, 0x80); // elements 0 and 127 positive
    const std::vector<float> got = decode(GGML_TYPE_Q1_0, b, 128);
    for (int j = 0; j < 128; ++j) {
        ASSERT_EQ(got[j], j == 0 || j == 127 ? 1.0f : -1.0f) << "element " << j;
    }
    // mean magnitude 0.75 (half the elements 0.5, half 1.0); bit set for x >= 0, so 0 and -0 count as positive
    std::vector<float> x(128);
    for (int j = 0; j < 128; ++j) {
        x[j] = (j % 2 ? -1.0f : 1.0f) * (j < 64 ? 0.5f : 1.0f);
    }
    x[1] = -0.0f, x[3] = -0.0f, x[0] = 0.0f; // magnitudes 0 here: the mean is (61 * 0.5 + 64 * 1) / 128
    const std::vector<uint8_t> y = encode(GGML_TYPE_Q1_0, x);
    EXPECT_EQ(y[0] | (y[1] << 8), 0x39e8); // 94.5 / 128 = 0.73828125 in fp16
    EXPECT_EQ(y[2], 0x5f);                 // elements 0..7: +, 0, +, 0, +, -, +, - -> bits 0, 1, 2, 3, 4, 6
    for (int byte = 3; byte < 18; ++byte) {
        EXPECT_EQ(y[static_cast<size_t>(byte)], 0x55) << "byte " << byte;
    }
}

TEST(NewFormats, Q2_0RoundsToLevelsOfTheLargestMagnitude) {
    Bytes b(18);
    b.u16(0, 0x4000);                     // d = 2
    b.u8(2, 0xe4);                        // elements 0..3: codes 0, 1, 2, 3
    const std::vector<float> got = decode(GGML_TYPE_Q2_0, b, 64);
    EXPECT_EQ(got[0], -2.0f);
    EXPECT_EQ(got[1], 0.0f);
    EXPECT_EQ(got[2], 2.0f);
    EXPECT_EQ(got[3], 4.0f); // code 3: +2 d, valid data the reference never writes
    EXPECT_EQ(got[4], -2.0f); // code 0

    // d = max |x| = 4; x / d rounds half away from zero: 0.5 -> 1, -0.5 -> -1, 0.49 -> 0; code = level + 1
    std::vector<float> x(64, 0.0f);
    x[0] = 4.0f, x[1] = -4.0f, x[2] = 2.0f, x[3] = -2.0f, x[4] = 1.96f, x[63] = -3.0f, x[5] = NAN;
    const std::vector<uint8_t> y = encode(GGML_TYPE_Q2_0, x);
    EXPECT_EQ(y[0] | (y[1] << 8), 0x4400); // 4 in fp16: a NaN is never the largest magnitude
    EXPECT_EQ(y[2], 0x22);                 // codes 2, 0, 2, 0
    EXPECT_EQ(y[3] & 0x0f, 0x01);          // 1.96 -> level 0 (code 1); NaN -> code 0
    EXPECT_EQ(y[17] >> 6, 0);              // -0.75 -> -1
}

// One NVFP4 block whose sub-block s has scale byte d[s] and every code `code`.
Bytes nvfp4_block(const uint8_t (&d)[4], uint8_t code) {
    Bytes b(36);
    for (size_t s = 0; s < 4; ++s) b.u8(s, d[s]);
    for (size_t j = 0; j < 32; ++j) b.u8(4 + j, static_cast<uint8_t>(code | (code << 4)));
    return b;
}

TEST(NewFormats, Nvfp4ScalesAreHalfTheirE4M3Value) {
    // code 2 is twice E2M1's 1.0, so each value is the scale byte's E4M3 value: 0x38 = 1.0, 0x01 = 2^-9 (the
    // smallest subnormal), 0x7e = 448 (the largest), 0x7f reads as 0, and the top bit is not read (0xb8 = 0x38)
    struct Case {
        uint8_t d;
        float   value;
    };
    const Case cases[] = {{0x38, 1.0f}, {0x01, 0x1p-9f}, {0x07, 7 * 0x1p-9f}, {0x08, 0x1p-6f}, {0x3d, 1.625f},
                          {0x7e, 448.0f}, {0x7f, 0.0f}, {0x00, 0.0f}, {0xb8, 1.0f}, {0xff, 480.0f}};
    for (const Case & c : cases) {
        const std::vector<float> got = decode(GGML_TYPE_NVFP4, nvfp4_block({c.d, 0x38, 0x38, 0x38}, 2), 64);
        EXPECT_EQ(got[0], c.value) << "scale byte " << int(c.d);
        EXPECT_EQ(got[15], c.value) << "scale byte " << int(c.d);
        EXPECT_EQ(got[16], 1.0f);
    }
    // sub-block s: qs[8 s + j] holds element j (low nibble) and j + 8 (high nibble)
    Bytes b = nvfp4_block({0x38, 0x40, 0x38, 0x38}, 0); // sub-block 1 scale 2
    b.u8(4 + 8 + 3, 0xf7);                               // sub-block 1: element 3 code 7 (6), element 11 code 15 (-6)
    const std::vector<float> got = decode(GGML_TYPE_NVFP4, b, 64);
    EXPECT_EQ(got[16 + 3], 12.0f);
    EXPECT_EQ(got[16 + 11], -12.0f);
    EXPECT_EQ(got[16 + 4], 0.0f);
}

TEST(NewFormats, Nvfp4ReferenceEncodesEachSubBlocksLargestMagnitudeOverSix) {
    // scale = amax / 6 rounded to E4M3 as upstream does it, then every value to the nearest code at that scale
    struct Case {
        float   amax;
        uint8_t d; // the scale byte written
    };
    const Case cases[] = {
        {6.0f, 0x38},            // 1.0: exponent 7, mantissa 0
        {6.0f * 1.03125f, 0x38}, // 1.03125: the bit below the 3 kept is clear, rounds down
        {6.0f * 1.0625f, 0x39},  // 1.0625: that bit set, rounds up
        {6.0f * 1.9375f, 0x40},  // 1.9375 rounds its mantissa up past 7: 2.0, the next exponent
        {6.0f * 300.0f, 0x7e},   // 300 lands in exponent 15: 0x7e (448), whatever the mantissa
        {6.0f * 1000.0f, 0x7e},  // above 448: 448
        {6.0f * 0x1p-8f, 0x02},  // subnormal: 2^-8 = 2 steps of 2^-9
        {6.0f * 0x1p-11f, 0x00}, // under half a step: 0, the whole sub-block reads 0
        {0.0f, 0x00},
    };
    for (const Case & c : cases) {
        std::vector<float> x(64, 0.0f);
        x[0] = -c.amax;
        x[1] = c.amax / 3.0f; // a third of the top: E2M1 2.0 at scale amax / 6 (code 4)
        x[17] = 6.0f;         // sub-block 1: scale 1.0, code 7
        const std::vector<uint8_t> y = encode(GGML_TYPE_NVFP4, x);
        EXPECT_EQ(y[0], c.d) << "amax " << c.amax;
        EXPECT_EQ(y[1], 0x38) << "amax " << c.amax;
        EXPECT_EQ(y[2], 0x00);
        if (c.d == 0x38 || c.d == 0x39 || c.d == 0x40) {
            EXPECT_EQ(y[4] & 0xf, 0xf) << "amax " << c.amax; // -amax: the largest negative code
            EXPECT_EQ(y[5] & 0xf, 0x4) << "amax " << c.amax; // amax / 3: E2M1 2.0
        }
        EXPECT_EQ(y[4 + 8 + 1] & 0xf, 0x7); // element 17 = sub-block 1, element 1
    }
}

} // namespace
