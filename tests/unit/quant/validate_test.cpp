// ggml_validate_row_data: good rows pass; every kind of corruption a loader must catch is rejected with a
// message naming the block (or element) and the field.
#include "quant_test_util.h"

namespace {

using namespace switchyard::quant_test;

struct ScaleCase {
    ggml_type   type;
    size_t      offset; // byte offset of the field inside a block
    const char * field;
    bool        is_float32 = false;
};

// The scale fields of each block format, at the offsets of the documented layouts.
const ScaleCase kScaleCases[] = {
    {GGML_TYPE_Q4_0, 0, "d"},    {GGML_TYPE_Q4_1, 0, "d"},     {GGML_TYPE_Q4_1, 2, "m"},
    {GGML_TYPE_Q5_0, 0, "d"},    {GGML_TYPE_Q5_1, 0, "d"},     {GGML_TYPE_Q5_1, 2, "m"},
    {GGML_TYPE_Q8_0, 0, "d"},    {GGML_TYPE_Q8_1, 0, "d"},     {GGML_TYPE_Q8_1, 2, "s"},
    {GGML_TYPE_Q2_K, 80, "d"},   {GGML_TYPE_Q2_K, 82, "dmin"}, {GGML_TYPE_Q3_K, 108, "d"},
    {GGML_TYPE_Q4_K, 0, "d"},    {GGML_TYPE_Q4_K, 2, "dmin"},  {GGML_TYPE_Q5_K, 0, "d"},
    {GGML_TYPE_Q5_K, 2, "dmin"}, {GGML_TYPE_Q6_K, 208, "d"},   {GGML_TYPE_Q8_K, 0, "d", true},
    {GGML_TYPE_IQ4_NL, 0, "d"},  {GGML_TYPE_IQ2_XXS, 0, "d"},  {GGML_TYPE_IQ4_XS, 0, "d"},
    {GGML_TYPE_TQ1_0, 52, "d"},  {GGML_TYPE_TQ2_0, 64, "d"},
};

// Four blocks of the type: quantized Gaussian data where we have a quantizer, zeros otherwise.
std::vector<uint8_t> good_row(ggml_type type) {
    const int64_t n = 4 * ggml_blck_size(type);
    const auto    x = gaussian(static_cast<size_t>(n), 5);
    if (ggml_get_type_traits(type)->from_float_ref != nullptr) {
        return quantize_ref(type, x);
    }
    return std::vector<uint8_t>(ggml_row_size(type, n), 0);
}

void poke_scale(std::vector<uint8_t> & row, const ScaleCase & c, size_t block, bool nan) {
    Bytes  b(row.size());
    size_t at = block * ggml_type_size(c.type) + c.offset;
    std::memcpy(b.data(), row.data(), row.size());
    if (c.is_float32) {
        b.f32(at, nan ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity());
    } else {
        b.u16(at, nan ? kHalfNaN : static_cast<uint16_t>(kHalfInf | 0x8000)); // NaN, or -Inf
    }
    row = b.vec();
}

TEST(ValidateRowData, AcceptsGoodRows) {
    for (const ScaleCase & c : kScaleCases) {
        const auto row = good_row(c.type);
        EXPECT_TRUE(ggml_validate_row_data(c.type, row.data(), row.size())) << ggml_type_name(c.type);
    }
    const ggml_type others[] = {GGML_TYPE_MXFP4, GGML_TYPE_NVFP4, GGML_TYPE_IQ1_M,
                                GGML_TYPE_I8,    GGML_TYPE_I32,   GGML_TYPE_I64};
    for (ggml_type t : others) {
        const auto row = good_row(t);
        EXPECT_TRUE(ggml_validate_row_data(t, row.data(), row.size())) << ggml_type_name(t);
    }
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_Q4_0, nullptr, 0)); // an empty row is valid
}

TEST(ValidateRowData, RejectsNaNAndInfScalesNamingBlockAndField) {
    for (const ScaleCase & c : kScaleCases) {
        for (bool nan : {true, false}) {
            SCOPED_TRACE(std::string(ggml_type_name(c.type)) + " " + c.field + (nan ? " NaN" : " Inf"));
            auto row = good_row(c.type);
            poke_scale(row, c, 2, nan);
            LogCapture log;
            EXPECT_FALSE(ggml_validate_row_data(c.type, row.data(), row.size()));
            EXPECT_NE(log.text().find("block 2"), std::string::npos) << log.text();
            EXPECT_NE(log.text().find(std::string(c.field) + " is " + (nan ? "NaN" : "Inf")), std::string::npos)
                << log.text();
        }
    }
}

TEST(ValidateRowData, RejectsInvalidMxfp4Exponent) {
    auto row = good_row(GGML_TYPE_MXFP4);
    row[3 * 17] = 0xff; // e of block 3
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_MXFP4, row.data(), row.size()));
    EXPECT_NE(log.text().find("block 3: e is 0xff"), std::string::npos) << log.text();
    row[3 * 17] = 0xfe;
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_MXFP4, row.data(), row.size()));
}

TEST(ValidateRowData, RejectsIq1mWithNaNSuperScale) {
    // IQ1_M's fp16 scale is the top nibble of each of the four uint16 words at bytes 48..55: NaN = 0x7e00
    // puts nibbles 0, 0, e, 7 there (lowest first).
    std::vector<uint8_t> row(2 * 56, 0);
    const uint8_t        nibbles[4] = {0x0, 0x0, 0xe, 0x7};
    for (int k = 0; k < 4; ++k) {
        row[56 + 48 + 2 * static_cast<size_t>(k) + 1] = static_cast<uint8_t>(nibbles[k] << 4);
    }
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_IQ1_M, row.data(), row.size()));
    EXPECT_NE(log.text().find("block 1: d is NaN"), std::string::npos) << log.text();
}

TEST(ValidateRowData, RejectsNaNAndInfValuesOfFloatTypes) {
    std::vector<float>    f32(100, 1.5f);
    std::vector<uint16_t> f16(100, kHalfOne), bf16(100, 0x3f80);
    std::vector<double>   f64(100, 2.0);
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_F32, f32.data(), f32.size() * 4));
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_F16, f16.data(), f16.size() * 2));
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_BF16, bf16.data(), bf16.size() * 2));
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_F64, f64.data(), f64.size() * 8));
    struct Case {
        ggml_type   type;
        void *      data;
        size_t      nbytes;
        const char * expect;
    };
    f32[17] = std::numeric_limits<float>::quiet_NaN();
    f16[42] = 0xfc00; // -Inf
    bf16[99] = 0x7f81; // signalling NaN
    f64[0]  = std::numeric_limits<double>::infinity();
    const Case cases[] = {
        {GGML_TYPE_F32, f32.data(), 400, "f32 value 17 is NaN"},
        {GGML_TYPE_F16, f16.data(), 200, "f16 value 42 is Inf"},
        {GGML_TYPE_BF16, bf16.data(), 200, "bf16 value 99 is NaN"},
        {GGML_TYPE_F64, f64.data(), 800, "f64 value 0 is Inf"},
    };
    for (const Case & c : cases) {
        LogCapture log;
        EXPECT_FALSE(ggml_validate_row_data(c.type, c.data, c.nbytes)) << ggml_type_name(c.type);
        EXPECT_NE(log.text().find(c.expect), std::string::npos) << log.text();
    }
    // far into a long row (past the first chunk of the fast scan)
    std::vector<float> long_row(5000, 0.25f);
    long_row[4321] = -std::numeric_limits<float>::infinity();
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, long_row.data(), long_row.size() * 4));
    EXPECT_NE(log.text().find("value 4321 is Inf"), std::string::npos) << log.text();
}

TEST(ValidateRowData, RejectsWrongSizesAndBadTypes) {
    const auto row = good_row(GGML_TYPE_Q4_K);
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_Q4_K, row.data(), row.size() - 1));
    EXPECT_NE(log.text().find("invalid size"), std::string::npos);
    log.clear();
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, row.data(), 6));
    EXPECT_NE(log.text().find("invalid size"), std::string::npos);
    log.clear();
    EXPECT_FALSE(ggml_validate_row_data(static_cast<ggml_type>(4), row.data(), 18)); // removed Q4_2
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_COUNT, row.data(), 18));
    EXPECT_NE(log.text().find("invalid type"), std::string::npos);
}

} // namespace
