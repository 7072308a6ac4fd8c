// Bad input to quantization and row validation: ggml_quantize_chunk with a type it cannot produce, sizes that
// are not whole blocks, NULL buffers (0 returned, a message, the destination untouched); ggml_validate_row_data
// on rows corrupted the way a damaged or hostile model file would be (NaN/Inf values and scales, invalid E8M0
// exponents, sizes that are not whole blocks).
#include "bad_input.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace switchyard::bad_input {
namespace {

constexpr uint16_t kHalfNan = 0x7e00;
constexpr uint16_t kHalfInf = 0x7c00;

std::vector<float> row_values(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
    }
    return v;
}

TEST(QuantBadInput, QuantizeChunkRefusesBadArgumentsAndWritesNothing) {
    const std::vector<float> src = row_values(256);
    std::vector<uint8_t>     dst(1024, 0xC3);
    const auto               untouched = [&] { return dst == std::vector<uint8_t>(1024, 0xC3); };
    struct Case {
        const char * what;
        ggml_type    type;
        const float * src;
        void *       dst;
        int64_t      start, nrows, n_per_row;
        const char * message;
    };
    const Case cases[] = {
        {"type with no quantizer", GGML_TYPE_IQ2_XXS, src.data(), dst.data(), 0, 1, 256, "not supported"},
        {"invalid type", static_cast<ggml_type>(GGML_TYPE_COUNT + 3), src.data(), dst.data(), 0, 1, 256, "type"},
        {"n_per_row not a multiple of the block", GGML_TYPE_Q4_0, src.data(), dst.data(), 0, 1, 33, "multiple"},
        {"n_per_row not a multiple of the super-block", GGML_TYPE_Q4_K, src.data(), dst.data(), 0, 1, 128, "multiple"},
        {"start not at a row", GGML_TYPE_Q8_0, src.data(), dst.data(), 32, 1, 64, "multiple"},
        {"zero n_per_row", GGML_TYPE_Q8_0, src.data(), dst.data(), 0, 1, 0, "n_per_row"},
        {"negative rows", GGML_TYPE_Q8_0, src.data(), dst.data(), 0, -1, 32, "nrows"},
        {"negative start", GGML_TYPE_Q8_0, src.data(), dst.data(), -32, 1, 32, "start"},
        {"NULL source", GGML_TYPE_Q8_0, nullptr, dst.data(), 0, 1, 32, "NULL"},
        {"NULL destination", GGML_TYPE_Q8_0, src.data(), nullptr, 0, 1, 32, "NULL"},
    };
    for (const Case & c : cases) {
        LogCapture log;
        EXPECT_EQ(ggml_quantize_chunk(c.type, c.src, c.dst, c.start, c.nrows, c.n_per_row, nullptr), 0u) << c.what;
        EXPECT_TRUE(log.has_error({"[ggml_quantize_chunk]", c.message})) << c.what << logged(log);
        EXPECT_TRUE(untouched()) << c.what;
    }
    // good arguments still quantize: 2 rows of 64 values in Q8_0 are 2 * 2 * 34 bytes
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q8_0, src.data(), dst.data(), 0, 2, 64, nullptr), 136u);
    EXPECT_EQ(dst[136], 0xC3) << "wrote past the rows it was asked for";
}

TEST(QuantBadInput, ValidateRejectsNonFiniteFloatValues) {
    std::vector<ggml_fp16_t> h(64);
    ggml_fp32_to_fp16_row(row_values(64).data(), h.data(), 64);
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_F16, h.data(), h.size() * 2));
    std::memcpy(&h[37], &kHalfNan, 2);
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_F16, h.data(), h.size() * 2));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "37", "NaN"})) << logged(log);
    log.clear();

    std::vector<float> f = row_values(100);
    f[99]                = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_F32, f.data(), f.size() * 4));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "99", "Inf"})) << logged(log);
    log.clear();

    std::vector<ggml_bf16_t> b(16);
    ggml_fp32_to_bf16_row(row_values(16).data(), b.data(), 16);
    const uint16_t bf16_nan = 0x7fc1;
    std::memcpy(&b[3], &bf16_nan, 2);
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_BF16, b.data(), b.size() * 2));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "NaN"})) << logged(log);
}

// Four quantized blocks of type with the 16-bit scale at byte `offset` of block `block` replaced by `bits`.
std::vector<uint8_t> corrupted_row(ggml_type type, int64_t n, size_t block, size_t offset, uint16_t bits) {
    const std::vector<float> x = row_values(static_cast<size_t>(n));
    std::vector<uint8_t>     row(ggml_row_size(type, n));
    EXPECT_EQ(ggml_quantize_chunk(type, x.data(), row.data(), 0, 1, n, nullptr), row.size());
    EXPECT_TRUE(ggml_validate_row_data(type, row.data(), row.size())) << "the uncorrupted row must pass";
    std::memcpy(row.data() + block * ggml_type_size(type) + offset, &bits, 2);
    return row;
}

TEST(QuantBadInput, ValidateRejectsCorruptedScales) {
    struct Case {
        ggml_type    type;
        int64_t      n;
        size_t       block, offset;
        uint16_t     bits;
        const char * field;
        const char * problem;
    };
    const Case cases[] = {
        {GGML_TYPE_Q4_0, 128, 2, 0, kHalfNan, "d", "NaN"},
        {GGML_TYPE_Q8_0, 128, 3, 0, kHalfInf, "d", "Inf"},
        {GGML_TYPE_Q4_1, 128, 1, 2, kHalfNan, "m", "NaN"},
        {GGML_TYPE_Q4_K, 512, 1, 2, kHalfInf, "dmin", "Inf"},
        {GGML_TYPE_Q6_K, 512, 0, 208, kHalfNan, "d", "NaN"},
    };
    for (const Case & c : cases) {
        const std::vector<uint8_t> row = corrupted_row(c.type, c.n, c.block, c.offset, c.bits);
        LogCapture                 log;
        EXPECT_FALSE(ggml_validate_row_data(c.type, row.data(), row.size())) << ggml_type_name(c.type);
        EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", ggml_type_name(c.type),
                                   ("block " + std::to_string(c.block)).c_str(), c.field, c.problem}))
            << ggml_type_name(c.type) << logged(log);
    }
}

TEST(QuantBadInput, ValidateRejectsAnInvalidE8M0Exponent) {
    const std::vector<float> x = row_values(64);
    std::vector<uint8_t>     row(ggml_row_size(GGML_TYPE_MXFP4, 64));
    ASSERT_EQ(ggml_quantize_chunk(GGML_TYPE_MXFP4, x.data(), row.data(), 0, 1, 64, nullptr), row.size());
    ASSERT_TRUE(ggml_validate_row_data(GGML_TYPE_MXFP4, row.data(), row.size()));
    row[ggml_type_size(GGML_TYPE_MXFP4)] = 0xff; // block 1's exponent
    LogCapture log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_MXFP4, row.data(), row.size()));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "block 1", "0xff"})) << logged(log);
}

TEST(QuantBadInput, ValidateRejectsBadSizesTypesAndNull) {
    std::vector<uint8_t> row(ggml_row_size(GGML_TYPE_Q4_0, 64), 0);
    LogCapture           log;
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_Q4_0, row.data(), row.size() - 1));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "size"})) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_validate_row_data(static_cast<ggml_type>(GGML_TYPE_COUNT), row.data(), row.size()));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "type"})) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_validate_row_data(GGML_TYPE_Q4_0, nullptr, row.size()));
    EXPECT_TRUE(log.has_error({"[ggml_validate_row_data]", "NULL"})) << logged(log);
    EXPECT_TRUE(ggml_validate_row_data(GGML_TYPE_Q4_0, nullptr, 0)) << "an empty row is valid";
}

} // namespace
} // namespace switchyard::bad_input
