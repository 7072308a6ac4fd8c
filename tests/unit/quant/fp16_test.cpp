// fp16 and bf16 conversions against references written here from the definition of the formats (values
// computed in double with ldexp; rounding by comparing distances to the two neighbouring representable
// values), never against the library's own code: all 65536 halves, chosen float edge cases, and random bit
// patterns; then every row converter path this CPU can run (F16C, AVX-512 BF16) against the scalar one.
#include "base/cpuid.h"
#include "base/fp16.h"
#include "base/fp16_isa.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// The value of a half (NaN for NaNs), from the IEEE 754 binary16 definition.
double half_value(uint16_t h) {
    const int    exp  = (h >> 10) & 0x1f;
    const int    mant = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0x1f) {
        return mant ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
    }
    if (exp == 0) {
        return sign * std::ldexp(mant, -24);
    }
    return sign * std::ldexp(1024 + mant, exp - 25);
}

// Nearest half to a finite float, ties to the even bit pattern, overflow to Inf. Searches the monotonic
// sequence of non-negative finite halves 0x0000..0x7bff; 0x7c00 (Inf) stands for 2^16 in the comparison,
// which is the IEEE overflow rule for round-to-nearest-even.
uint16_t reference_fp32_to_fp16(float f) {
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double   a    = std::fabs(static_cast<double>(f));
    auto           mag  = [](uint16_t h) { return h == 0x7c00 ? 65536.0 : half_value(h); };
    uint16_t       lo = 0, hi = 0x7c00; // invariant: mag(lo) <= a < mag(hi), or a >= 65536
    if (a >= 65536.0) {
        return sign | 0x7c00;
    }
    while (hi - lo > 1) {
        const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
        (mag(mid) <= a ? lo : hi) = mid;
    }
    const double dlo = a - mag(lo), dhi = mag(hi) - a;
    const uint16_t pick = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1) ? hi : lo);
    return static_cast<uint16_t>(sign | pick);
}

// Nearest bf16 to a finite float: compare the distances to the truncated value and the next one up.
uint16_t reference_fp32_to_bf16(float f) {
    const uint32_t u     = bits_of(f);
    const uint16_t lo    = static_cast<uint16_t>((u >> 16) & 0x7fff);
    const uint16_t hi    = static_cast<uint16_t>(lo + 1);
    auto           mag   = [](uint16_t b) {
        return b == 0x7f80 ? std::ldexp(1.0, 128) : static_cast<double>(float_of(static_cast<uint32_t>(b) << 16));
    };
    const double   a     = std::fabs(static_cast<double>(f));
    const double   dlo   = a - mag(lo), dhi = mag(hi) - a;
    const uint16_t pick  = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1) ? hi : lo);
    return static_cast<uint16_t>((u >> 16 & 0x8000) | pick);
}

// NaNs come out quiet with the top of the payload kept, as the x86 conversion instructions produce them.
uint16_t expected_fp16_nan(uint32_t u) {
    return static_cast<uint16_t>(((u >> 16) & 0x8000) | 0x7e00 | ((u & 0x7fffff) >> 13));
}

uint16_t expected_bf16_nan(uint32_t u) {
    return static_cast<uint16_t>((u >> 16) | 0x40);
}

bool is_nan_bits(uint32_t u) {
    return (u & 0x7fffffffu) > 0x7f800000u;
}

TEST(Fp16, AllHalvesToFloatMatchTheDefinition) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float  got      = switchyard::fp16_to_fp32(static_cast<uint16_t>(h));
        const double expected = half_value(static_cast<uint16_t>(h));
        if (std::isnan(expected)) {
            // quiet NaN, sign and payload kept
            const uint32_t want = ((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13);
            ASSERT_EQ(bits_of(got), want) << "half 0x" << std::hex << h;
        } else {
            ASSERT_EQ(bits_of(got), bits_of(static_cast<float>(expected))) << "half 0x" << std::hex << h;
        }
        ASSERT_EQ(bits_of(ggml_fp16_to_fp32(static_cast<ggml_fp16_t>(h))), bits_of(got));
    }
}

TEST(Fp16, AllHalvesRoundTripThroughFloat) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const uint16_t back = switchyard::fp32_to_fp16(switchyard::fp16_to_fp32(static_cast<uint16_t>(h)));
        const bool     nan  = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
        ASSERT_EQ(back, nan ? (h | 0x200u) : h) << "half 0x" << std::hex << h;
    }
}

TEST(Fp16, FloatToHalfEdgeCases) {
    struct Case {
        float    in;
        uint16_t out;
    };
    const Case cases[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {1.0f, 0x3c00},
        {-2.0f, 0xc000},
        {65504.0f, 0x7bff},                     // max finite
        {65519.99f, 0x7bff},                    // just below the overflow midpoint
        {65520.0f, 0x7c00},                     // midpoint to 2^16: ties to even = overflow
        {-1e10f, 0xfc00},                       // overflow to -Inf
        {std::ldexp(1.0f, -14), 0x0400},        // smallest normal
        {std::ldexp(1.0f, -24), 0x0001},        // smallest subnormal
        {std::ldexp(1.0f, -25), 0x0000},        // half of it: tie, rounds to even (0)
        {std::ldexp(1.5f, -25), 0x0001},        // above the tie
        {std::ldexp(3.0f, -25), 0x0002},        // 1.5 ulp: tie between 1 and 2, even is 2
        {std::ldexp(5.0f, -25), 0x0002},        // 2.5 ulp: tie between 2 and 3, even is 2
        {std::ldexp(1023.5f, -24), 0x0400},     // largest subnormal + half ulp: rounds up into the normals
        {1.0f + std::ldexp(1.0f, -11), 0x3c00}, // tie 1 | 1+2^-10: even is 1
        {1.0f + std::ldexp(3.0f, -11), 0x3c02}, // tie 1+2^-10 | 1+2^-9: even is 1+2^-9
        {std::ldexp(1.0f, -126), 0x0000},       // float normal far below the half range
        {float_of(0x00000001u), 0x0000},        // float subnormal
        {float_of(0x80000001u), 0x8000},
        {std::numeric_limits<float>::infinity(), 0x7c00},
        {-std::numeric_limits<float>::infinity(), 0xfc00},
        {float_of(0x7fc00000u), 0x7e00},        // default quiet NaN
        {float_of(0x7f800001u), 0x7e00},        // signalling NaN, payload below the kept bits: still NaN
        {float_of(0xffa02000u), 0xff01},        // negative NaN with payload
    };
    for (const Case & c : cases) {
        EXPECT_EQ(switchyard::fp32_to_fp16(c.in), c.out) << "float bits 0x" << std::hex << bits_of(c.in);
        EXPECT_EQ(ggml_fp32_to_fp16(c.in), c.out);
        if (!std::isnan(c.in)) {
            EXPECT_EQ(reference_fp32_to_fp16(c.in), c.out) << "the test's reference disagrees with the table";
        }
    }
}

TEST(Fp16, RandomFloatsToHalfMatchTheReference) {
    std::mt19937 rng(1234);
    for (int i = 0; i < 2000000; ++i) {
        uint32_t u = rng();
        if (i % 2 == 0) { // half of them in and around the half range, where rounding happens
            u = (u & 0x807fffffu) | ((100u + (u >> 23) % 50u) << 23);
        }
        const float    f    = float_of(u);
        const uint16_t want = is_nan_bits(u) ? expected_fp16_nan(u) : reference_fp32_to_fp16(f);
        ASSERT_EQ(switchyard::fp32_to_fp16(f), want) << "float bits 0x" << std::hex << u;
    }
}

TEST(Bf16, EdgeCases) {
    struct Case {
        uint32_t in;
        uint16_t out;
    };
    const Case cases[] = {
        {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, // zeros
        {0x3f800000u, 0x3f80},                        // 1
        {0x3f808000u, 0x3f80},                        // tie, even stays
        {0x3f818000u, 0x3f82},                        // tie, odd rounds up
        {0x3f808001u, 0x3f81},                        // above the tie
        {0x7f7f7fffu, 0x7f7f},                        // below the overflow midpoint
        {0x7f7f8000u, 0x7f80},                        // overflow midpoint -> Inf
        {0x7f7fffffu, 0x7f80},                        // max float -> Inf
        {0x00000001u, 0x0000},                        // subnormals are kept and rounded, not flushed
        {0x00008000u, 0x0000},                        // tie, even
        {0x00018000u, 0x0002},                        // tie, odd up
        {0x007fffffu, 0x0080},                        // largest subnormal rounds to the smallest normal
        {0x807f0000u, 0x807f},                        // negative subnormal, exact
        {0x7f800000u, 0x7f80}, {0xff800000u, 0xff80}, // infinities
        {0x7fc00000u, 0x7fc0},                        // quiet NaN
        {0x7f800001u, 0x7fc0},                        // signalling NaN made quiet
        {0xff812345u, 0xffc1},                        // payload top bits kept
    };
    for (const Case & c : cases) {
        EXPECT_EQ(switchyard::fp32_to_bf16(float_of(c.in)), c.out) << "float bits 0x" << std::hex << c.in;
        EXPECT_EQ(ggml_fp32_to_bf16(float_of(c.in)).bits, c.out);
        if (!is_nan_bits(c.in)) {
            EXPECT_EQ(reference_fp32_to_bf16(float_of(c.in)), c.out) << "the test's reference disagrees";
        }
    }
}

TEST(Bf16, AllBf16ToFloatAreTheUpperHalf) {
    for (uint32_t b = 0; b < 0x10000; ++b) {
        ASSERT_EQ(bits_of(switchyard::bf16_to_fp32(static_cast<uint16_t>(b))), b << 16);
        ASSERT_EQ(bits_of(ggml_bf16_to_fp32(ggml_bf16_t{static_cast<uint16_t>(b)})), b << 16);
    }
}

TEST(Bf16, RandomFloatsMatchTheReference) {
    std::mt19937 rng(99);
    for (int i = 0; i < 2000000; ++i) {
        const uint32_t u    = rng();
        const uint16_t want = is_nan_bits(u) ? expected_bf16_nan(u) : reference_fp32_to_bf16(float_of(u));
        ASSERT_EQ(switchyard::fp32_to_bf16(float_of(u)), want) << "float bits 0x" << std::hex << u;
    }
}

// ---- row converters --------------------------------------------------------------------------------------

std::vector<float> random_float_patterns(size_t n, uint32_t seed) {
    std::mt19937       rng(seed);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t u = rng();
        switch (i % 4) { // mix: any bits, the fp16 range, float subnormals, specials
            case 1: u = (u & 0x807fffffu) | ((100u + (u >> 23) % 50u) << 23); break;
            case 2: u &= 0x807fffffu; break;
            case 3: u |= 0x7f800000u; break;
            default: break;
        }
        v[i] = float_of(u);
    }
    return v;
}

constexpr size_t kRowElements = 4u << 20; // 4M random bit patterns per path

template <typename Row, typename Scalar>
void expect_fp32_rows_match(Row row, Scalar scalar, const char * what) {
    const auto            x = random_float_patterns(kRowElements, 7);
    std::vector<uint16_t> got(x.size());
    row(x.data(), got.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(got[i], scalar(x[i])) << what << " at " << i << ", float bits 0x" << std::hex << bits_of(x[i]);
    }
    for (int64_t n = 0; n <= 40; ++n) { // lengths around the vector widths, tails included
        std::vector<uint16_t> small(static_cast<size_t>(n) + 1, 0xabcd);
        row(x.data() + 3, small.data(), n);
        for (int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(small[static_cast<size_t>(i)], scalar(x[static_cast<size_t>(i) + 3])) << what << " n=" << n;
        }
        ASSERT_EQ(small[static_cast<size_t>(n)], 0xabcd) << what << " wrote past the end, n=" << n;
    }
}

void expect_half_rows_match(void (*row)(const uint16_t *, float *, int64_t), const char * what) {
    std::vector<uint16_t> h(0x10000 + 13);
    for (size_t i = 0; i < h.size(); ++i) {
        h[i] = static_cast<uint16_t>(i * 40503u); // every half (40503 is odd), plus a few
    }
    std::vector<float> got(h.size());
    row(h.data(), got.data(), static_cast<int64_t>(h.size()));
    for (size_t i = 0; i < h.size(); ++i) {
        ASSERT_EQ(bits_of(got[i]), bits_of(switchyard::fp16_to_fp32(h[i]))) << what << " half 0x" << std::hex << h[i];
    }
}

TEST(Fp16Rows, DispatchedRowsMatchScalar) {
    expect_fp32_rows_match(switchyard::fp32_to_fp16_row, switchyard::fp32_to_fp16, "fp32_to_fp16_row");
    expect_fp32_rows_match(switchyard::fp32_to_bf16_row, switchyard::fp32_to_bf16, "fp32_to_bf16_row");
    expect_fp32_rows_match(switchyard::fp32_to_bf16_row_scalar, switchyard::fp32_to_bf16, "fp32_to_bf16_row_ref");
    expect_half_rows_match(switchyard::fp16_to_fp32_row, "fp16_to_fp32_row");
}

TEST(Fp16Rows, PublicRowFunctionsMatchScalar) {
    const auto            x = random_float_patterns(4096, 3);
    std::vector<uint16_t> h(x.size());
    std::vector<float>    back(x.size());
    ggml_fp32_to_fp16_row(x.data(), h.data(), static_cast<int64_t>(x.size()));
    ggml_fp16_to_fp32_row(h.data(), back.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(h[i], switchyard::fp32_to_fp16(x[i]));
        ASSERT_EQ(bits_of(back[i]), bits_of(switchyard::fp16_to_fp32(h[i])));
    }
    std::vector<ggml_bf16_t> b(x.size()), bref(x.size());
    ggml_fp32_to_bf16_row(x.data(), b.data(), static_cast<int64_t>(x.size()));
    ggml_fp32_to_bf16_row_ref(x.data(), bref.data(), static_cast<int64_t>(x.size()));
    ggml_bf16_to_fp32_row(b.data(), back.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(b[i].bits, switchyard::fp32_to_bf16(x[i]));
        ASSERT_EQ(bref[i].bits, b[i].bits);
        ASSERT_EQ(bits_of(back[i]), static_cast<uint32_t>(b[i].bits) << 16);
    }
}

#if defined(SWITCHYARD_FP16_X86)

TEST(Fp16Rows, F16cPathMatchesScalar) {
    if (!switchyard::base_isa().f16c) {
        GTEST_SKIP() << "no F16C on this CPU";
    }
    expect_fp32_rows_match(switchyard::fp16_isa::fp32_to_fp16_row_f16c, switchyard::fp32_to_fp16, "f16c fp32->fp16");
    expect_half_rows_match(switchyard::fp16_isa::fp16_to_fp32_row_f16c, "f16c fp16->fp32");
}

TEST(Fp16Rows, Avx512Bf16PathMatchesScalar) {
    if (!switchyard::base_isa().avx512_bf16) {
        GTEST_SKIP() << "no AVX-512 BF16 on this CPU";
    }
    expect_fp32_rows_match(switchyard::fp16_isa::fp32_to_bf16_row_avx512bf16, switchyard::fp32_to_bf16,
                           "avx512bf16 fp32->bf16");
}

#endif

} // namespace
