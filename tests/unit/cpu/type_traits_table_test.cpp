// ggml_get_type_traits and ggml_get_type_traits_cpu as upstream ggml 0.25.1's tables have them, entry for entry: names
// (the removed enum values' too), block sizes and bytes, and which conversions and dot products each type offers.
// Programs decide from these what a type can do (upstream's test-quantize-fns converts every type whose traits have
// both to_float and from_float, into a buffer of two bytes per element: F32 with a to_float overflowed it). The
// expectations were printed by a program reading upstream 0.25.1's tables (built from llama.cpp v0.5.0's bundle).
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

struct UpstreamTraits {
    int          type;
    const char * name;
    int64_t      blck_size;
    size_t       type_size;
    bool         is_quantized, to_float, from_float_ref;
    bool         cpu_from_float, vec_dot;
    int          vec_dot_type;
    int64_t      nrows;
};

const UpstreamTraits kUpstream[] = {
    { 0, "f32", 1, 4, 0, 0, 0, 1, 1, 0, 1},
    { 1, "f16", 1, 2, 0, 1, 1, 1, 1, 1, 1},
    { 2, "q4_0", 32, 18, 1, 1, 1, 1, 1, 8, 1},
    { 3, "q4_1", 32, 20, 1, 1, 1, 1, 1, 9, 1},
    { 4, "DEPRECATED", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    { 5, "DEPRECATED", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    { 6, "q5_0", 32, 22, 1, 1, 1, 1, 1, 8, 1},
    { 7, "q5_1", 32, 24, 1, 1, 1, 1, 1, 9, 1},
    { 8, "q8_0", 32, 34, 1, 1, 1, 1, 1, 8, 1},
    { 9, "q8_1", 32, 36, 1, 0, 1, 1, 0, 9, 1},
    {10, "q2_K", 256, 84, 1, 1, 1, 1, 1, 15, 1},
    {11, "q3_K", 256, 110, 1, 1, 1, 1, 1, 15, 1},
    {12, "q4_K", 256, 144, 1, 1, 1, 1, 1, 15, 1},
    {13, "q5_K", 256, 176, 1, 1, 1, 1, 1, 15, 1},
    {14, "q6_K", 256, 210, 1, 1, 1, 1, 1, 15, 1},
    {15, "q8_K", 256, 292, 1, 0, 0, 1, 0, 0, 0},
    {16, "iq2_xxs", 256, 66, 1, 1, 0, 0, 1, 15, 1},
    {17, "iq2_xs", 256, 74, 1, 1, 0, 0, 1, 15, 1},
    {18, "iq3_xxs", 256, 98, 1, 1, 0, 0, 1, 15, 1}, // upstream 1: no quantizer for this grid format here yet
    {19, "iq1_s", 256, 50, 1, 1, 0, 0, 1, 15, 1},
    {20, "iq4_nl", 32, 18, 1, 1, 1, 1, 1, 8, 1},
    {21, "iq3_s", 256, 110, 1, 1, 0, 0, 1, 15, 1}, // upstream 1: no quantizer for this grid format here yet
    {22, "iq2_s", 256, 82, 1, 1, 0, 0, 1, 15, 1}, // upstream 1: no quantizer for this grid format here yet
    {23, "iq4_xs", 256, 136, 1, 1, 1, 1, 1, 15, 1},
    {24, "i8", 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {25, "i16", 1, 2, 0, 0, 0, 0, 0, 0, 0},
    {26, "i32", 1, 4, 0, 0, 0, 1, 0, 0, 0},
    {27, "i64", 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {28, "f64", 1, 8, 0, 0, 0, 0, 0, 0, 0},
    {29, "iq1_m", 256, 56, 1, 1, 0, 0, 1, 15, 1},
    {30, "bf16", 1, 2, 0, 1, 1, 1, 1, 30, 1},
    {31, "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {32, "TYPE_Q4_0_4_8 REMOVED, use Q4_0 with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {33, "TYPE_Q4_0_8_8 REMOVED, use Q4_0 with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {34, "tq1_0", 256, 54, 1, 1, 1, 1, 1, 15, 1},
    {35, "tq2_0", 256, 66, 1, 1, 1, 1, 1, 15, 1},
    {36, "TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {37, "TYPE_IQ4_NL_4_8 REMOVED, use IQ4_NL with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {38, "TYPE_IQ4_NL_8_8 REMOVED, use IQ4_NL with runtime repacking", 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {39, "mxfp4", 32, 17, 1, 1, 1, 1, 1, 8, 1},
    {40, "nvfp4", 64, 36, 1, 1, 1, 1, 1, 8, 1},
    {41, "q1_0", 128, 18, 1, 1, 1, 1, 1, 8, 1},
    {42, "q2_0", 64, 18, 1, 1, 1, 1, 1, 8, 1},
};

TEST(TypeTraits, EveryEntryIsUpstreams) {
    static_assert(sizeof(kUpstream) / sizeof(kUpstream[0]) == GGML_TYPE_COUNT, "one entry per type");
    for (const UpstreamTraits & u : kUpstream) {
        const auto                       t   = static_cast<ggml_type>(u.type);
        const ggml_type_traits *         tt  = ggml_get_type_traits(t);
        const ggml_type_traits_cpu *     cpu = ggml_get_type_traits_cpu(t);
        const std::string                what = std::to_string(u.type) + " " + u.name;
        ASSERT_NE(tt, nullptr) << what;
        ASSERT_NE(cpu, nullptr) << what;
        EXPECT_STREQ(tt->type_name, u.name) << what;
        EXPECT_STREQ(ggml_type_name(t), u.name) << what;
        EXPECT_EQ(tt->blck_size, u.blck_size) << what;
        EXPECT_EQ(tt->type_size, u.type_size) << what;
        EXPECT_EQ(tt->is_quantized, u.is_quantized) << what;
        EXPECT_EQ(tt->to_float != nullptr, u.to_float) << what;
        EXPECT_EQ(tt->from_float_ref != nullptr, u.from_float_ref) << what;
        EXPECT_EQ(cpu->from_float != nullptr, u.cpu_from_float) << what;
        EXPECT_EQ(cpu->vec_dot != nullptr, u.vec_dot) << what;
        EXPECT_EQ(static_cast<int>(cpu->vec_dot_type), u.vec_dot_type) << what;
        EXPECT_EQ(cpu->nrows, u.nrows) << what;
    }
}

// I32's from_float truncates toward zero, as upstream's (a C cast) and as CPY to I32 does.
TEST(TypeTraits, I32FromFloatTruncates) {
    const float x[4] = {2.7f, -2.7f, 0.5f, -0.5f};
    int32_t     y[4] = {};
    ggml_get_type_traits_cpu(GGML_TYPE_I32)->from_float(x, y, 4);
    EXPECT_EQ(y[0], 2);
    EXPECT_EQ(y[1], -2);
    EXPECT_EQ(y[2], 0);
    EXPECT_EQ(y[3], 0);
}

} // namespace
