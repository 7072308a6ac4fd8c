// ggml_is_view and ggml_is_contiguous_to_1/2/3 (core/tensor_layout.cpp), with strides written by hand.
#include "ggml.h"

#include <gtest/gtest.h>

#include <array>

namespace {

class TensorLayout : public ::testing::Test {
protected:
    void SetUp() override { ctx_ = ggml_init(ggml_init_params{1 << 20, nullptr, true}); }
    void TearDown() override { ggml_free(ctx_); }

    // a tensor of `type` with the given extents and byte strides (metadata only)
    ggml_tensor * make(ggml_type type, std::array<int64_t, 4> ne, std::array<size_t, 4> nb) {
        ggml_tensor * t = ggml_new_tensor_4d(ctx_, type, ne[0], ne[1], ne[2], ne[3]);
        for (int i = 0; i < 4; ++i) {
            t->nb[i] = nb[i];
        }
        return t;
    }

    ggml_context * ctx_ = nullptr;
};

struct Expect {
    bool to1, to2, to3;
};

void expect_contiguous_to(const ggml_tensor * t, Expect e) {
    EXPECT_EQ(ggml_is_contiguous_to_1(t), e.to1);
    EXPECT_EQ(ggml_is_contiguous_to_2(t), e.to2);
    EXPECT_EQ(ggml_is_contiguous_to_3(t), e.to3);
}

TEST_F(TensorLayout, ContiguousToNChecksOnlyTheDimensionsBelowN) {
    {
        SCOPED_TRACE("packed");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 3, 2, 2}, {4, 16, 48, 96}), {true, true, true});
    }
    {
        SCOPED_TRACE("padded rows: dims 1.. have gaps");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 3, 2, 2}, {4, 32, 96, 192}), {true, false, false});
    }
    {
        SCOPED_TRACE("gap between planes only");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 3, 2, 2}, {4, 16, 64, 128}), {true, true, false});
    }
    {
        SCOPED_TRACE("gap between volumes only: not seen by any of them");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 3, 2, 2}, {4, 16, 48, 200}), {true, true, true});
    }
    {
        SCOPED_TRACE("strided elements");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 3, 1, 1}, {8, 32, 96, 96}), {false, false, false});
    }
    {
        SCOPED_TRACE("a dimension of extent 1 may have any stride");
        expect_contiguous_to(make(GGML_TYPE_F32, {4, 1, 2, 1}, {4, 999, 16, 7}), {true, true, true});
    }
    {
        SCOPED_TRACE("one element per row: its stride does not matter");
        expect_contiguous_to(make(GGML_TYPE_F32, {1, 3, 2, 1}, {100, 4, 12, 24}), {true, true, true});
    }
    {
        SCOPED_TRACE("q4_0: two blocks of 18 bytes per row");
        expect_contiguous_to(make(GGML_TYPE_Q4_0, {64, 3, 2, 1}, {18, 36, 108, 216}), {true, true, true});
        expect_contiguous_to(make(GGML_TYPE_Q4_0, {64, 3, 2, 1}, {18, 40, 120, 240}), {true, false, false});
    }
}

TEST_F(TensorLayout, TransposedAndPermutedViews) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 4, 3, 2);
    expect_contiguous_to(ggml_transpose(ctx_, a), {false, false, false});
    // [4, 2, 3]: dims 0 packed, dim 1 jumps a plane
    expect_contiguous_to(ggml_permute(ctx_, a, 0, 2, 1, 3), {true, false, false});
    // a view of the first 2 rows of every plane: packed rows, gaps between planes
    expect_contiguous_to(ggml_view_3d(ctx_, a, 4, 2, 2, a->nb[1], a->nb[2], 0), {true, true, false});
}

TEST_F(TensorLayout, IsViewMeansAliasingAnotherTensor) {
    ggml_tensor * a = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 3);
    EXPECT_FALSE(ggml_is_view(a));
    EXPECT_TRUE(ggml_is_view(ggml_view_1d(ctx_, a, 4, 0)));
    EXPECT_TRUE(ggml_is_view(ggml_transpose(ctx_, a)));
    EXPECT_TRUE(ggml_is_view(ggml_reshape_1d(ctx_, a, 12)));
    EXPECT_TRUE(ggml_is_view(ggml_view_tensor(ctx_, a)));
    EXPECT_TRUE(ggml_is_view(ggml_scale_inplace(ctx_, a, 2.0f)));
    EXPECT_FALSE(ggml_is_view(ggml_scale(ctx_, a, 2.0f)));
    EXPECT_FALSE(ggml_is_view(ggml_dup_tensor(ctx_, a)));
}

} // namespace
