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

} // namespace
