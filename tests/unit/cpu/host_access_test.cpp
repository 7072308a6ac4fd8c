// Host accessors of ggml-cpu.h (new/set/get of elements in every accessible type, strides of views honoured,
// errors logged instead of crashing) and the row converters (bit patterns written out by hand).
#include "cpu_test_util.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace switchyard::testing;

template <typename T> T raw(const ggml_tensor * t, int64_t i) {
    T v;
    std::memcpy(&v, static_cast<const char *>(t->data) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return v;
}

TEST(HostAccess, NewScalars) {
    HostContext   ctx;
    ggml_tensor * i = ggml_new_i32(ctx.get(), -7);
    ggml_tensor * f = ggml_new_f32(ctx.get(), 2.5f);
    ASSERT_NE(i, nullptr);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(i->type, GGML_TYPE_I32);
    EXPECT_EQ(f->type, GGML_TYPE_F32);
    EXPECT_EQ(ggml_nelements(i), 1);
    EXPECT_EQ(raw<int32_t>(i, 0), -7);
    EXPECT_EQ(raw<float>(f, 0), 2.5f);
}

TEST(HostAccess, NewScalarsNeedMemory) {
    ggml_init_params params = {1024 * 1024, nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    CpuLogCapture    log;
    EXPECT_EQ(ggml_new_i32(ctx, 1), nullptr);
    EXPECT_EQ(ggml_new_f32(ctx, 1.0f), nullptr);
    EXPECT_TRUE(log.contains("[ggml_new_i32]"));
    EXPECT_TRUE(log.contains("[ggml_new_f32]"));
    ggml_free(ctx);
}

struct TypeCase {
    ggml_type type;
    // the bytes an element holding 3 has, and the float 0.1 after a round trip through the type
    std::vector<uint8_t> three;
    float                tenth;
};

TEST(HostAccess, IntAndFloatRoundTripsPerType) {
    const std::vector<TypeCase> cases = {
        {GGML_TYPE_I8, {0x03}, 0.0f},
        {GGML_TYPE_I16, {0x03, 0x00}, 0.0f},
        {GGML_TYPE_I32, {0x03, 0x00, 0x00, 0x00}, 0.0f},
        {GGML_TYPE_F16, {0x00, 0x42}, 0.0999755859375f},
        {GGML_TYPE_BF16, {0x40, 0x40}, 0.10009765625f},
        {GGML_TYPE_F32, {0x00, 0x00, 0x40, 0x40}, 0.1f},
    };
    for (const TypeCase & c : cases) {
        HostContext   ctx;
        ggml_tensor * t = ggml_new_tensor_3d(ctx.get(), c.type, 3, 2, 2);
        std::memset(t->data, 0, ggml_nbytes(t));
        const size_t size = ggml_type_size(c.type);

        ggml_set_i32_1d(t, 7, 3);
        EXPECT_EQ(std::memcmp(static_cast<char *>(t->data) + 7 * size, c.three.data(), size), 0) << ggml_type_name(c.type);
        EXPECT_EQ(ggml_get_i32_1d(t, 7), 3);
        EXPECT_EQ(ggml_get_f32_1d(t, 7), 3.0f);
        // element 7 = (1, 0, 1) for ne = (3, 2, 2)
        EXPECT_EQ(ggml_get_i32_nd(t, 1, 0, 1, 0), 3);

        ggml_set_i32_nd(t, 2, 1, 1, 0, -100);
        EXPECT_EQ(ggml_get_i32_1d(t, 11), -100);
        ggml_set_f32_nd(t, 0, 1, 0, 0, -2.0f);
        EXPECT_EQ(ggml_get_f32_1d(t, 3), -2.0f);

        ggml_set_f32_1d(t, 0, 0.1f);
        EXPECT_EQ(ggml_get_f32_nd(t, 0, 0, 0, 0), c.tenth) << ggml_type_name(c.type);
        EXPECT_EQ(ggml_get_i32_1d(t, 1), 0); // untouched neighbour
    }
}

TEST(HostAccess, FloatToIntegerTruncatesTowardZero) {
    HostContext   ctx;
    ggml_tensor * i8  = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_I8, 4);
    ggml_tensor * f32 = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_set_f32_1d(i8, 0, 2.9f);
    ggml_set_f32_1d(i8, 1, -2.9f);
    EXPECT_EQ(raw<int8_t>(i8, 0), 2);
    EXPECT_EQ(raw<int8_t>(i8, 1), -2);
    ggml_set_f32_1d(f32, 0, -7.75f);
    EXPECT_EQ(ggml_get_i32_1d(f32, 0), -7);
    ggml_set_f32_1d(f32, 1, NAN);
    EXPECT_EQ(ggml_get_i32_1d(f32, 1), std::numeric_limits<int32_t>::min());
}

TEST(HostAccess, FlatIndexFollowsTheStridesOfAView) {
    HostContext   ctx;
    ggml_tensor * base = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 4); // 4 rows of 3
    for (int i = 0; i < 12; ++i) {
        static_cast<float *>(base->data)[i] = static_cast<float>(10 * i);
    }
    ggml_tensor * t = ggml_transpose(ctx.get(), base); // ne = (4, 3): t(i0, i1) = base(i1, i0)
    ASSERT_FALSE(ggml_is_contiguous(t));
    // flat index i of t -> (i0 = i % 4, i1 = i / 4) -> base element i1 + 3 * i0
    for (int i = 0; i < 12; ++i) {
        const int i0 = i % 4, i1 = i / 4;
        EXPECT_EQ(ggml_get_f32_1d(t, i), static_cast<float>(10 * (i1 + 3 * i0))) << i;
    }
    ggml_set_f32_1d(t, 5, -1.0f); // (1, 1) -> base element 1 + 3 = 4
    EXPECT_EQ(static_cast<float *>(base->data)[4], -1.0f);
    EXPECT_EQ(ggml_get_f32_nd(t, 2, 1, 0, 0), static_cast<float>(10 * (1 + 6)));
}

TEST(HostAccess, FillTouchesOnlyTheViewsElements) {
    HostContext   ctx;
    ggml_tensor * base = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_I16, 4, 3);
    std::memset(base->data, 0, ggml_nbytes(base));
    ggml_tensor * column = ggml_view_2d(ctx.get(), base, 1, 3, base->nb[1], 2 * base->nb[0]); // column 2
    EXPECT_EQ(ggml_set_i32(column, 9), column);
    for (int i = 0; i < 12; ++i) {
        EXPECT_EQ(raw<int16_t>(base, i), i % 4 == 2 ? 9 : 0) << i;
    }
    ggml_tensor * whole = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_BF16, 5, 2);
    ggml_set_f32(whole, -1.5f);
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(raw<uint16_t>(whole, i), 0xbfc0) << i;
    }
}

TEST(HostAccess, ErrorsAreLoggedNotFatal) {
    HostContext   ctx;
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 4);
    ggml_set_name(t, "grid");
    ggml_set_f32(t, 1.0f);
    CpuLogCapture log;
    EXPECT_EQ(ggml_get_f32_1d(t, 12), 0.0f);
    EXPECT_EQ(ggml_get_i32_1d(t, -1), 0);
    ggml_set_f32_1d(t, 12, 5.0f);
    EXPECT_TRUE(log.contains("[ggml_get_f32_1d] index 12 is out of range for tensor 'grid' of 12 elements"));
    EXPECT_TRUE(log.contains("[ggml_set_f32_1d] index 12"));
    EXPECT_EQ(ggml_get_f32_nd(t, 0, 4, 0, 0), 0.0f);
    ggml_set_i32_nd(t, 3, 0, 0, 0, 5);
    ggml_set_f32_nd(t, 0, 0, 1, 0, 5.0f);
    EXPECT_TRUE(log.contains("[ggml_get_f32_nd] index 4 of dimension 1 is out of range for tensor 'grid'"));
    for (int i = 0; i < 12; ++i) {
        ASSERT_EQ(raw<float>(t, i), 1.0f) << i; // nothing written
    }

    ggml_tensor * q = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_Q4_0, 32);
    EXPECT_EQ(ggml_get_f32_1d(q, 0), 0.0f);
    EXPECT_EQ(ggml_set_f32(q, 1.0f), q);
    EXPECT_TRUE(log.contains("has type q4_0")) << log.text();
    EXPECT_EQ(ggml_get_i32_1d(nullptr, 0), 0);
    EXPECT_EQ(ggml_set_i32(nullptr, 0), nullptr);
}

// 37 elements: long enough for the vector paths, with a tail
TEST(RowConverters, Fp16BitPatterns) {
    const float    in[5]   = {1.0f, -2.0f, 65504.0f, 1e6f, 0.1f};
    const uint16_t bits[5] = {0x3c00, 0xc000, 0x7bff, 0x7c00, 0x2e66};
    std::vector<float>       src(37);
    std::vector<ggml_fp16_t> half(37);
    for (size_t i = 0; i < src.size(); ++i) {
        src[i] = in[i % 5];
    }
    ggml_cpu_fp32_to_fp16(src.data(), half.data(), 37);
    for (size_t i = 0; i < half.size(); ++i) {
        ASSERT_EQ(half[i], bits[i % 5]) << i;
    }
    std::vector<float> back(37);
    ggml_cpu_fp16_to_fp32(half.data(), back.data(), 37);
    const float expected[5] = {1.0f, -2.0f, 65504.0f, INFINITY, 0.0999755859375f};
    for (size_t i = 0; i < back.size(); ++i) {
        ASSERT_EQ(back[i], expected[i % 5]) << i;
    }
}

TEST(RowConverters, Bf16BitPatterns) {
    const float    in[4]   = {1.0f, 0.1f, -3.0f, 1.00390625f}; // the last is a tie: rounds to even (1.0)
    const uint16_t bits[4] = {0x3f80, 0x3dcd, 0xc040, 0x3f80};
    std::vector<float>       src(37);
    std::vector<ggml_bf16_t> bf(37);
    for (size_t i = 0; i < src.size(); ++i) {
        src[i] = in[i % 4];
    }
    ggml_cpu_fp32_to_bf16(src.data(), bf.data(), 37);
    for (size_t i = 0; i < bf.size(); ++i) {
        ASSERT_EQ(bf[i].bits, bits[i % 4]) << i;
    }
    std::vector<float> back(37);
    ggml_cpu_bf16_to_fp32(bf.data(), back.data(), 37);
    const float expected[4] = {1.0f, 0.10009765625f, -3.0f, 1.0f};
    for (size_t i = 0; i < back.size(); ++i) {
        ASSERT_EQ(back[i], expected[i % 4]) << i;
    }
}

TEST(RowConverters, Fp32ToI32AndCopy) {
    const float        src[6] = {2.7f, -2.7f, 0.0f, 1e10f, -1e10f, NAN};
    int32_t            out[6];
    const int32_t      min    = std::numeric_limits<int32_t>::min();
    ggml_cpu_fp32_to_i32(src, out, 6);
    EXPECT_EQ(out[0], 2);
    EXPECT_EQ(out[1], -2);
    EXPECT_EQ(out[2], 0);
    EXPECT_EQ(out[3], min);
    EXPECT_EQ(out[4], min);
    EXPECT_EQ(out[5], min);

    std::vector<float> a = ramp(19, 1.5f), b(19, 0.0f);
    ggml_cpu_fp32_to_fp32(a.data(), b.data(), 19);
    EXPECT_EQ(a, b);
    ggml_cpu_fp32_to_fp32(a.data(), b.data(), 0); // nothing to do
}

} // namespace
