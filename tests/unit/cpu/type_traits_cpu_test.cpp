// ggml_get_type_traits_cpu's generic dot products (vec_dot), which convert both operands a chunk of 256 elements
// at a time on the stack: rows shorter than, equal to and longer than a chunk, for F32, F16 and a block format
// whose src1 is Q8_0. Expected values are double sums over the decoded inputs.
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

float value_at(int i, int salt) {
    return static_cast<float>(((i * 37 + salt * 11) % 101) - 50) / 64.0f;
}

// The encoded row of n values of `type` (plain or block), and its decoded floats.
struct Row {
    std::vector<uint8_t> bytes;
    std::vector<float>   decoded;
};

Row make_row(ggml_type type, int n, int salt) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        v[static_cast<size_t>(i)] = value_at(i, salt);
    }
    Row row;
    row.bytes.resize(ggml_row_size(type, n));
    row.decoded.resize(static_cast<size_t>(n));
    if (type == GGML_TYPE_F32) {
        row.bytes.assign(reinterpret_cast<const uint8_t *>(v.data()), reinterpret_cast<const uint8_t *>(v.data() + n));
    } else if (type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(v.data(), reinterpret_cast<ggml_fp16_t *>(row.bytes.data()), n);
    } else {
        ggml_quantize_chunk(type, v.data(), row.bytes.data(), 0, 1, n, nullptr);
    }
    if (type == GGML_TYPE_F32) {
        row.decoded = v;
    } else if (type == GGML_TYPE_F16) {
        ggml_fp16_to_fp32_row(reinterpret_cast<const ggml_fp16_t *>(row.bytes.data()), row.decoded.data(), n);
    } else {
        ggml_get_type_traits(type)->to_float(row.bytes.data(), row.decoded.data(), n);
    }
    return row;
}

TEST(TypeTraitsCpu, GenericDotsCoverRowsOfAnyLength) {
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q4_0}) {
        const ggml_type_traits_cpu * tt = ggml_get_type_traits_cpu(type);
        ASSERT_NE(tt, nullptr);
        ASSERT_NE(tt->vec_dot, nullptr);
        for (int n : {32, 256, 288, 1024}) {
            SCOPED_TRACE(std::string(ggml_type_name(type)) + ", n " + std::to_string(n));
            constexpr int kRows = 2;
            for (int r = 0; r < kRows; ++r) {
                const Row x = make_row(type, n, r + 1);
                const Row y = make_row(tt->vec_dot_type, n, r + 7);
                float     out = 0.0f;
                tt->vec_dot(n, &out, sizeof(float), x.bytes.data(), x.bytes.size(), y.bytes.data(), y.bytes.size(), 1);
                double want = 0.0, mag = 0.0;
                for (int i = 0; i < n; ++i) {
                    const double t = static_cast<double>(x.decoded[static_cast<size_t>(i)]) * y.decoded[static_cast<size_t>(i)];
                    want += t;
                    mag += std::fabs(t);
                }
                EXPECT_NEAR(out, want, 1e-5 * (1.0 + mag)) << "row " << r;
            }
        }
    }
}

// from_float converts floats into the entry's own type, as upstream's does (ggml-cpu.c: mul_mat converts its
// activations with the entry of the weight's vec_dot_type): it writes exactly one row of that type, the same bytes
// as the type's reference quantizer where the type is not an activation format (those use the kernels' own
// converter, upstream's activation bytes, which may round a tie the other way).
TEST(TypeTraitsCpu, FromFloatWritesTheEntrysOwnType) {
    constexpr int64_t kN = 512;
    std::vector<float> x(kN);
    for (int64_t i = 0; i < kN; ++i) {
        x[static_cast<size_t>(i)] = value_at(static_cast<int>(i), 3) + 0.001f * static_cast<float>(i % 7);
    }
    int checked = 0;
    for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
        const auto                   type = static_cast<ggml_type>(i);
        const ggml_type_traits_cpu * cpu  = ggml_get_type_traits_cpu(type);
        const ggml_type_traits *     tt   = ggml_get_type_traits(type);
        if (cpu == nullptr || cpu->from_float == nullptr || tt == nullptr || tt->blck_size == 0 ||
            ggml_type_size(type) == 0) {
            continue;
        }
        SCOPED_TRACE(ggml_type_name(type));
        const size_t         row = ggml_row_size(type, kN);
        std::vector<uint8_t> got(row + 64, 0xcd);
        cpu->from_float(x.data(), got.data(), kN);
        for (size_t b = row; b < got.size(); ++b) {
            ASSERT_EQ(got[b], 0xcd) << "byte " << b << " past the row written";
        }
        const bool activation = type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16 ||
                                type == GGML_TYPE_Q8_0 || type == GGML_TYPE_Q8_1 || type == GGML_TYPE_Q8_K;
        if (!activation && tt->from_float_ref != nullptr) {
            std::vector<uint8_t> want(row + 64, 0xcd);
            tt->from_float_ref(x.data(), want.data(), kN);
            EXPECT_EQ(got, want);
        }
        ++checked;
    }
    EXPECT_GE(checked, 20); // the plain, legacy, K-quant and other formats with a quantizer
    // upstream's pairs: Q4_0's entry quantizes to Q4_0, its activations go through Q8_0's entry
    EXPECT_EQ(ggml_get_type_traits_cpu(GGML_TYPE_Q4_0)->vec_dot_type, GGML_TYPE_Q8_0);
    EXPECT_EQ(ggml_get_type_traits_cpu(GGML_TYPE_Q8_1)->vec_dot_type, GGML_TYPE_Q8_1);
    EXPECT_EQ(ggml_get_type_traits_cpu(GGML_TYPE_TQ2_0)->vec_dot_type, GGML_TYPE_Q8_K);
}

} // namespace
