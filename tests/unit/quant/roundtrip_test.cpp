// Quantize -> dequantize through the public API: error bounds per format on Gaussian and heavy-tailed data,
// upstream's own acceptance thresholds (tests/test-quantize-fns.cpp), exact round trips of data each format
// can represent, the importance matrix being honoured, and ggml_quantize_chunk's contract.
#include "quant_test_util.h"

#include "quant/formats.h"

#include <algorithm>
#include <limits>

namespace {

using namespace switchyard::quant_test;

constexpr int64_t kRow = 4096;

struct Bound {
    ggml_type type;
    double    gaussian;    // relative RMSE bound on N(0, 1) data
    double    heavy;       // relative RMSE bound on Student-t (3 dof) data
    double    upstream;    // upstream's bound on sqrt(sum d^2) / n for 0.1 + 2 cos(i)
};

// Gaussian / Student-t bounds are ~5-15% above what the reference quantizers measure (bench/quant_rmse);
// they catch a wrong search or a lost bit, not noise.
const Bound kBounds[] = {
    {GGML_TYPE_Q2_K, 0.31, 0.40, 0.0075},  {GGML_TYPE_Q3_K, 0.16, 0.215, 0.004},
    {GGML_TYPE_MXFP4, 0.12, 0.16, 0.002},  {GGML_TYPE_Q4_0, 0.09, 0.145, 0.002},
    {GGML_TYPE_Q4_1, 0.082, 0.115, 0.002}, {GGML_TYPE_IQ4_NL, 0.082, 0.117, 0.002},
    {GGML_TYPE_IQ4_XS, 0.084, 0.115, 0.002},
    {GGML_TYPE_Q4_K, 0.075, 0.105, 0.002}, {GGML_TYPE_Q5_0, 0.045, 0.075, 0.002},
    {GGML_TYPE_Q5_1, 0.040, 0.057, 0.002}, {GGML_TYPE_Q5_K, 0.038, 0.054, 0.002},
    {GGML_TYPE_Q6_K, 0.019, 0.030, 0.002}, {GGML_TYPE_Q8_0, 0.0057, 0.010, 0.002},
    {GGML_TYPE_Q8_1, 0.0057, 0.010, 0.002}, {GGML_TYPE_Q8_K, 0.0073, 0.021, 0.002},
    {GGML_TYPE_BF16, 0.0018, 0.0018, 0.002}, {GGML_TYPE_F16, 0.00023, 0.00023, 0.002},
};

// Formats whose ggml_quantize_chunk without an importance matrix is the reference quantizer byte for byte
// (IQ4_NL and MXFP4 search more candidate scales there).
bool chunk_is_reference(ggml_type t) {
    return t != GGML_TYPE_IQ4_NL && t != GGML_TYPE_MXFP4;
}

std::vector<float> round_trip_ref(ggml_type type, const std::vector<float> & x) {
    const auto q = quantize_ref(type, x);
    return dequantize(type, q.data(), static_cast<int64_t>(x.size()));
}

std::vector<float> round_trip_chunk(ggml_type type, const std::vector<float> & x, const float * imatrix = nullptr) {
    const auto q = quantize_chunk(type, x, kRow, imatrix);
    return dequantize(type, q.data(), static_cast<int64_t>(x.size()));
}

TEST(RoundTrip, GaussianAndHeavyTailedWithinBounds) {
    const auto gauss = gaussian(16 * kRow, 11);
    const auto heavy = student_t3(16 * kRow, 12);
    for (const Bound & b : kBounds) {
        SCOPED_TRACE(ggml_type_name(b.type));
        EXPECT_LT(relative_rmse(gauss, round_trip_ref(b.type, gauss)), b.gaussian);
        EXPECT_LT(relative_rmse(gauss, round_trip_chunk(b.type, gauss)), b.gaussian);
        EXPECT_LT(relative_rmse(heavy, round_trip_ref(b.type, heavy)), b.heavy);
        EXPECT_LT(relative_rmse(heavy, round_trip_chunk(b.type, heavy)), b.heavy);
    }
}

TEST(RoundTrip, MeetsUpstreamAcceptanceThresholds) {
    std::vector<float> x(kRow);
    for (size_t i = 0; i < x.size(); ++i) {
        x[i] = 0.1f + 2.0f * std::cos(static_cast<float>(i));
    }
    for (const Bound & b : kBounds) {
        for (const auto & y : {round_trip_ref(b.type, x), round_trip_chunk(b.type, x)}) {
            double sum = 0.0;
            for (size_t i = 0; i < x.size(); ++i) {
                sum += (static_cast<double>(x[i]) - y[i]) * (static_cast<double>(x[i]) - y[i]);
            }
            EXPECT_LT(std::sqrt(sum) / static_cast<double>(x.size()), b.upstream) << ggml_type_name(b.type);
        }
    }
}

TEST(RoundTrip, ChunkWithoutImatrixIsTheReference) {
    const auto x = gaussian(4 * kRow, 13);
    for (const Bound & b : kBounds) {
        if (chunk_is_reference(b.type)) {
            EXPECT_EQ(quantize_chunk(b.type, x, kRow), quantize_ref(b.type, x)) << ggml_type_name(b.type);
        }
    }
}

TEST(RoundTrip, SearchedChunkIsNoWorseThanReference) {
    const auto x = student_t3(16 * kRow, 14);
    for (ggml_type t : {GGML_TYPE_IQ4_NL, GGML_TYPE_MXFP4}) {
        EXPECT_LE(relative_rmse(x, round_trip_chunk(t, x)), relative_rmse(x, round_trip_ref(t, x)))
            << ggml_type_name(t);
    }
}

// Each value is k * d with d a power of two and k on the format's grid, the block's extreme chosen so that
// the reference picks exactly d: dequantization must give the input back.
std::vector<float> on_grid(ggml_type type, uint32_t seed) {
    std::mt19937                       rng(seed);
    const int                          blck = static_cast<int>(ggml_blck_size(type));
    std::vector<float>                 x(2 * kRow);
    std::uniform_int_distribution<int> level(0, 255);
    for (size_t i = 0; i < x.size(); ++i) {
        const int  j     = static_cast<int>(i) % blck;
        const int  r     = level(rng);
        const auto scale = std::ldexp(1.0f, static_cast<int>(i / static_cast<size_t>(blck)) % 7 - 3);
        switch (type) {
            case GGML_TYPE_Q4_0:   x[i] = scale * static_cast<float>(j == 0 ? -8 : r % 15 - 7); break;
            case GGML_TYPE_Q5_0:   x[i] = scale * static_cast<float>(j == 0 ? -16 : r % 31 - 15); break;
            case GGML_TYPE_Q4_1:   x[i] = scale * static_cast<float>(j == 0 ? 0 : j == 1 ? 15 : r % 16) - 1.0f; break;
            case GGML_TYPE_Q5_1:   x[i] = scale * static_cast<float>(j == 0 ? 0 : j == 1 ? 31 : r % 32) + 0.5f; break;
            case GGML_TYPE_Q8_0:
            case GGML_TYPE_Q8_1:   x[i] = scale * static_cast<float>(j == 0 ? 127 : r % 255 - 127); break;
            case GGML_TYPE_Q8_K:   x[i] = static_cast<float>(j == 0 ? -127 : r % 255 - 127); break;
            case GGML_TYPE_IQ4_NL: {
                const int table[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
                x[i]                = scale * static_cast<float>(table[j == 0 ? 0 : r % 16]);
                break;
            }
            case GGML_TYPE_IQ4_XS: { // every sub-block's extreme -127 * scale: each one's scale is the block's
                const int table[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
                x[i]                = scale * static_cast<float>(table[j % 32 == 0 ? 0 : r % 16]);
                break;
            }
            case GGML_TYPE_MXFP4: {
                const float e2m1[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, 0, -0.5f, -1, -1.5f, -2, -3, -4, -6};
                x[i]                 = scale * e2m1[j == 0 ? 15 : r % 16];
                break;
            }
            default: x[i] = scale * static_cast<float>(r - 128) / 64.0f; break; // F16, BF16, F32, F64
        }
    }
    return x;
}

TEST(RoundTrip, RepresentableDataComesBackExactly) {
    const ggml_type types[] = {GGML_TYPE_Q4_0,  GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0,   GGML_TYPE_Q5_1,  GGML_TYPE_Q8_0,
                               GGML_TYPE_Q8_1,  GGML_TYPE_Q8_K,   GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4,
                               GGML_TYPE_F16,   GGML_TYPE_BF16,   GGML_TYPE_F32,    GGML_TYPE_F64};
    for (ggml_type t : types) {
        const auto x = on_grid(t, 21);
        EXPECT_EQ(round_trip_ref(t, x), x) << ggml_type_name(t) << " (reference)";
        EXPECT_EQ(round_trip_chunk(t, x), x) << ggml_type_name(t) << " (chunk)";
    }
}

TEST(RoundTrip, ZerosStayZero) {
    const std::vector<float> x(2 * kRow, 0.0f);
    for (const Bound & b : kBounds) {
        EXPECT_EQ(round_trip_ref(b.type, x), x) << ggml_type_name(b.type);
        EXPECT_EQ(round_trip_chunk(b.type, x), x) << ggml_type_name(b.type);
    }
}

TEST(RoundTrip, ExtremeInputs) {
    // finite data within the fp16 range, with float subnormals, zeros and large values: finite results
    std::vector<float> x = gaussian(2 * kRow, 22);
    for (size_t i = 0; i < x.size(); i += 7) {
        x[i] = i % 3 == 0 ? 1e-40f : i % 3 == 1 ? -0.0f : 1000.0f;
    }
    // NaN and Inf in user data: the quantizers must return normally (the values are unspecified)
    std::vector<float> bad = gaussian(2 * kRow, 23);
    bad[5]                 = std::numeric_limits<float>::quiet_NaN();
    bad[300]               = std::numeric_limits<float>::infinity();
    bad[kRow + 1]          = -std::numeric_limits<float>::infinity();
    for (const Bound & b : kBounds) {
        SCOPED_TRACE(ggml_type_name(b.type));
        for (const auto & y : {round_trip_ref(b.type, x), round_trip_chunk(b.type, x)}) {
            EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); }));
        }
        EXPECT_EQ(quantize_ref(b.type, bad).size(), ggml_row_size(b.type, 2 * kRow));
        EXPECT_EQ(quantize_chunk(b.type, bad, kRow).size(), ggml_row_size(b.type, 2 * kRow));
    }
}

TEST(RoundTrip, Q8AuxiliaryFields) {
    const auto x = gaussian(kRow, 15);
    const auto q81 = quantize_ref(GGML_TYPE_Q8_1, x);
    for (size_t blk = 0; blk < q81.size() / 36; ++blk) { // s = d * sum(qs), stored as fp16
        const uint8_t * b   = q81.data() + 36 * blk;
        int             sum = 0;
        for (int j = 0; j < 32; ++j) {
            sum += static_cast<int8_t>(b[4 + j]);
        }
        const float d = ggml_fp16_to_fp32(static_cast<uint16_t>(b[0] | b[1] << 8));
        const float s = ggml_fp16_to_fp32(static_cast<uint16_t>(b[2] | b[3] << 8));
        EXPECT_NEAR(s, d * static_cast<float>(sum), std::fabs(d * static_cast<float>(sum)) * 2e-3f + 1e-6f);
    }
    const auto q8k = quantize_ref(GGML_TYPE_Q8_K, x);
    for (size_t blk = 0; blk < q8k.size() / 292; ++blk) { // bsums[k] = sum of qs[16k .. 16k + 15]
        const uint8_t * b = q8k.data() + 292 * blk;
        for (int k = 0; k < 16; ++k) {
            int sum = 0;
            for (int j = 0; j < 16; ++j) {
                sum += static_cast<int8_t>(b[4 + 16 * k + j]);
            }
            EXPECT_EQ(static_cast<int16_t>(b[260 + 2 * k] | b[261 + 2 * k] << 8), sum);
        }
    }
}

// ---- importance matrix -----------------------------------------------------------------------------------

// One column in eight matters a hundred times more than the others.
std::vector<float> spiky_imatrix(uint32_t seed) {
    std::mt19937       rng(seed);
    std::vector<float> w(kRow, 1.0f);
    for (float & v : w) {
        if (rng() % 8 == 0) {
            v = 100.0f;
        }
    }
    return w;
}

double weighted_sse(const std::vector<float> & x, const std::vector<float> & y, const std::vector<float> & w,
                    bool heavy_only) {
    double s = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double wi = w[i % kRow];
        if (heavy_only && wi < 2.0) {
            continue;
        }
        s += wi * (static_cast<double>(x[i]) - y[i]) * (static_cast<double>(x[i]) - y[i]);
    }
    return s;
}

// The formats whose table entry says they use the importance matrix (all but the 8- and 16-bit ones).
bool uses_imatrix(ggml_type t) {
    const switchyard::quant::Format * f = switchyard::quant::find_format(t);
    return f != nullptr && f->uses_imatrix;
}

TEST(Imatrix, WeightedQuantizationReducesWeightedError) {
    const auto x       = gaussian(16 * kRow, 16);
    const auto imatrix = spiky_imatrix(17);
    int        checked = 0;
    for (const Bound & b : kBounds) {
        const ggml_type t = b.type;
        if (!uses_imatrix(t)) {
            continue;
        }
        ++checked;
        SCOPED_TRACE(ggml_type_name(t));
        const auto plain    = round_trip_chunk(t, x);
        const auto weighted = round_trip_chunk(t, x, imatrix.data());
        EXPECT_LT(weighted_sse(x, weighted, imatrix, false), weighted_sse(x, plain, imatrix, false));
        EXPECT_LT(weighted_sse(x, weighted, imatrix, true), weighted_sse(x, plain, imatrix, true));
    }
    EXPECT_EQ(checked, 12); // Q2_K..Q6_K, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, IQ4_XS, MXFP4
}

TEST(Imatrix, EightBitFormatsIgnoreIt) {
    const auto x       = gaussian(2 * kRow, 18);
    const auto imatrix = spiky_imatrix(19);
    for (ggml_type t : {GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        EXPECT_FALSE(uses_imatrix(t)) << ggml_type_name(t);
        EXPECT_EQ(quantize_chunk(t, x, kRow, imatrix.data()), quantize_chunk(t, x, kRow)) << ggml_type_name(t);
    }
}

TEST(Imatrix, NoImplementedFormatRequiresOne) {
    for (const Bound & b : kBounds) {
        EXPECT_FALSE(ggml_quantize_requires_imatrix(b.type)) << ggml_type_name(b.type);
    }
    EXPECT_TRUE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ2_XXS)); // as upstream, for formats not built here
    EXPECT_TRUE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ1_S));
}

// ---- ggml_quantize_chunk contract ------------------------------------------------------------------------

TEST(QuantizeChunk, WritesRowsAtStartAndNothingElse) {
    const int64_t n_per_row = 512;
    const auto    x         = gaussian(4 * n_per_row, 20);
    for (const Bound & b : kBounds) {
        SCOPED_TRACE(ggml_type_name(b.type));
        const size_t         row_size = ggml_row_size(b.type, n_per_row);
        std::vector<uint8_t> dst(4 * row_size, 0xee);
        ggml_quantize_init(b.type);
        const size_t written = ggml_quantize_chunk(b.type, x.data(), dst.data(), 2 * n_per_row, 2, n_per_row, nullptr);
        EXPECT_EQ(written, 2 * row_size);
        EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(2 * row_size),
                                [](uint8_t v) { return v == 0xee; }));
        const auto all = quantize_chunk(b.type, x, n_per_row);
        EXPECT_TRUE(std::equal(dst.begin() + static_cast<std::ptrdiff_t>(2 * row_size), dst.end(),
                               all.begin() + static_cast<std::ptrdiff_t>(2 * row_size)));
    }
    ggml_quantize_free();
}

TEST(QuantizeChunk, RejectsBadArgumentsWithAMessage) {
    std::vector<float>   x(1024, 1.0f);
    std::vector<uint8_t> dst(4096);
    LogCapture           log;
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_XXS, x.data(), dst.data(), 0, 1, 256, nullptr), 0u);
    EXPECT_NE(log.text().find("[ggml_quantize_chunk]"), std::string::npos);
    log.clear();
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q4_0, x.data(), dst.data(), 32, 1, 64, nullptr), 0u); // start % n_per_row
    EXPECT_NE(log.text().find("multiple"), std::string::npos);
    log.clear();
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q4_K, x.data(), dst.data(), 0, 1, 100, nullptr), 0u); // n_per_row % 256
    EXPECT_NE(log.text().find("multiple"), std::string::npos);
    log.clear();
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q8_0, nullptr, dst.data(), 0, 1, 32, nullptr), 0u);
    EXPECT_NE(log.text().find("NULL"), std::string::npos);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q8_0, x.data(), dst.data(), 0, 0, 32, nullptr), 0u); // nothing to do
}

// Every format round-tripped here has both conversions (the public traits leave q8_1's and q8_K's out, as upstream:
// type_traits_table_test.cpp).
TEST(QuantizeChunk, FormatsHaveTheConversions) {
    for (const Bound & b : kBounds) {
        EXPECT_NE(switchyard::quant::to_float_fn(b.type), nullptr) << ggml_type_name(b.type);
        EXPECT_NE(switchyard::quant::from_float_ref_fn(b.type), nullptr) << ggml_type_name(b.type);
    }
}

} // namespace
