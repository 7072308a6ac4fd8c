// Split state values and how a split maps through views and reshapes (no devices involved).
#include "backend/meta/split_state.h"

#include "meta_fixture.h"

namespace switchyard::testing {
namespace {

using meta::canonical;
using meta::map_reshape;
using meta::map_view;
using meta::same_state;
using meta::ViewMap;

class ViewMapTest : public ::testing::Test {
protected:
    void SetUp() override {
        ggml_init_params params{16 * ggml_tensor_overhead(), nullptr, true};
        ctx_ = ggml_init(params);
    }
    void TearDown() override { ggml_free(ctx_); }

    ggml_tensor * root(std::vector<int64_t> ne, ggml_type type = GGML_TYPE_F32) {
        return ggml_new_tensor(ctx_, type, static_cast<int>(ne.size()), ne.data());
    }

    ggml_context * ctx_ = nullptr;
};

int64_t share_of(const SplitState & s, int seg, int d, int n = 2) { return s.ne[seg * n + d]; }

TEST(SplitState, AxisNames) {
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_0), "0");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_3), "3");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_MIRRORED), "MIRRORED");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_PARTIAL), "PARTIAL");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_NONE), "NONE");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_UNKNOWN), "UNKNOWN");
    EXPECT_STREQ(ggml_backend_meta_split_axis_name(static_cast<ggml_backend_meta_split_axis>(42)), "INVALID");
}

TEST(SplitState, ExtentsCountSegmentsAndRepetitions) {
    SplitState s = state_segments(1, {{4, 2}, {1, 3}});
    s.nr[1]      = 2;
    EXPECT_EQ(meta::device_extent(s, 2, 0), 4 + 2 * 1);
    EXPECT_EQ(meta::device_extent(s, 2, 1), 2 + 2 * 3);
    EXPECT_EQ(meta::total_extent(s, 2), 14);
}

TEST(SplitState, EqualNeighbouringSegmentsAreTheSameLayout) {
    const SplitState three = state_segments(0, {{8, 8}, {4, 4}, {4, 4}});
    SplitState       two   = state_segments(0, {{8, 8}, {4, 4}});
    two.nr[1]              = 2;
    EXPECT_TRUE(same_state(three, two, 2));
    const SplitState c = canonical(three, 2);
    EXPECT_EQ(c.n_segments, 2u);
    EXPECT_EQ(c.nr[1], 2u);
    EXPECT_FALSE(same_state(three, state_segments(0, {{8, 8}, {4, 4}, {2, 6}}), 2));
    EXPECT_FALSE(same_state(three, meta::with_axis(three, 1), 2));
}

TEST_F(ViewMapTest, UserStatesAreCompletedAndChecked) {
    ggml_tensor * t = root({16, 6});
    SplitState    s = state_split(1, {4, 2});
    s.nr[0]         = 0;
    s.n_segments    = 0;
    EXPECT_TRUE(meta::normalize_user_state(s, t, 2));
    EXPECT_EQ(s.n_segments, 1u);
    EXPECT_EQ(s.nr[0], 1u);
    SplitState wrong_total = state_split(1, {4, 3});
    EXPECT_FALSE(meta::normalize_user_state(wrong_total, t, 2));
    SplitState bad_axis = blank_state(GGML_BACKEND_SPLIT_AXIS_NONE);
    EXPECT_FALSE(meta::normalize_user_state(bad_axis, t, 2));
    ggml_tensor * q = root({64, 2}, GGML_TYPE_Q8_0);
    SplitState    half_block = state_split(0, {48, 16});
    EXPECT_FALSE(meta::normalize_user_state(half_block, q, 2));
    SplitState whole_blocks = state_split(0, {32, 32});
    EXPECT_TRUE(meta::normalize_user_state(whole_blocks, q, 2));
}

// The head views of a fused QKV product [E + 2 Ekv, T] split in three segments (q, k, v heads per device).
TEST_F(ViewMapTest, HeadViewsOfFusedQkv) {
    const int64_t hd = 4, T = 3;
    ggml_tensor * qkv = root({32 + 2 * 16, T}); // 8 q heads, 4 kv heads
    const SplitState s = state_segments(0, {{24, 8}, {12, 4}, {12, 4}});
    const size_t es = sizeof(float);
    // k: 4 heads at offset 32
    const int64_t ne[4] = {hd, 4, T, 1};
    const size_t  nb[4] = {es, hd * es, qkv->nb[1], qkv->nb[1] * T};
    const ViewMap m     = map_view(s, 2, qkv, ne, nb, 32 * es);
    ASSERT_TRUE(m.ok);
    EXPECT_EQ(m.state.axis, GGML_BACKEND_SPLIT_AXIS_1);
    EXPECT_EQ(share_of(m.state, 0, 0), 3);
    EXPECT_EQ(share_of(m.state, 0, 1), 1);
    // device 0 holds 24 + 12 + 12 = 48 rows: its k heads start after its 24 q rows
    EXPECT_EQ(m.dev[0].offs, 24 * es);
    EXPECT_EQ(m.dev[0].ne[1], 3);
    EXPECT_EQ(m.dev[0].nb[2], 48 * es);
    // device 1 holds 8 + 4 + 4 = 16 rows: k after its 8 q rows
    EXPECT_EQ(m.dev[1].offs, 8 * es);
    EXPECT_EQ(m.dev[1].ne[1], 1);
    EXPECT_EQ(m.dev[1].nb[2], 16 * es);
}

TEST_F(ViewMapTest, PermuteMovesTheSplitAxis) {
    ggml_tensor * t = root({4, 6, 5}); // split by the 6 "heads" of dimension 1
    const SplitState s = state_split(1, {4, 2});
    ggml_tensor * p = ggml_permute(ctx_, t, 0, 2, 1, 3); // [4, 5, 6]
    const ViewMap m = map_view(s, 2, t, p->ne, p->nb, 0);
    ASSERT_TRUE(m.ok);
    EXPECT_EQ(m.state.axis, GGML_BACKEND_SPLIT_AXIS_2);
    EXPECT_EQ(m.dev[1].ne[2], 2);
    EXPECT_EQ(m.dev[1].nb[1], 4 * 2 * sizeof(float)); // a token holds 2 heads on device 1
    EXPECT_EQ(m.dev[1].nb[2], 4 * sizeof(float));
}

TEST_F(ViewMapTest, ReshapeOfHeadsIntoRows) {
    // [hd=4, heads=6, T=5] split by heads -> [24, 5] split along rows in multiples of 4
    const int64_t src[4] = {4, 6, 5, 1}, dst[4] = {24, 5, 1, 1};
    SplitState    out;
    ASSERT_TRUE(map_reshape(state_split(1, {4, 2}), 2, GGML_TYPE_F32, src, dst, out));
    EXPECT_TRUE(same_state(out, state_split(0, {16, 8}), 2));
    // and back
    ASSERT_TRUE(map_reshape(out, 2, GGML_TYPE_F32, dst, src, out));
    EXPECT_TRUE(same_state(out, state_split(1, {4, 2}), 2));
}

TEST_F(ViewMapTest, ReshapeMergingOuterDimensionsRepeatsThePattern) {
    // [8, 3] split along dimension 0 as [5, 3] -> [24]: the pattern repeats 3 times
    const int64_t src[4] = {8, 3, 1, 1}, dst[4] = {24, 1, 1, 1};
    SplitState    out;
    ASSERT_TRUE(map_reshape(state_split(0, {5, 3}), 2, GGML_TYPE_F32, src, dst, out));
    EXPECT_EQ(out.axis, GGML_BACKEND_SPLIT_AXIS_0);
    EXPECT_EQ(out.n_segments, 1u);
    EXPECT_EQ(out.nr[0], 3u);
    EXPECT_EQ(share_of(out, 0, 0), 5);
    EXPECT_EQ(share_of(out, 0, 1), 3);
}

TEST_F(ViewMapTest, WindowOfRowsOverARepeatedPattern) {
    // llama.cpp's delta-net conv state: conv_input [k - 1 + T, 3 * C, S] split by channels in 3 groups (q, k, v:
    // 6 / 2 channels each), and the last k - 1 columns of every row as a view at offset T
    const int64_t k1 = 3, T = 5, C = 8, S = 2;
    ggml_tensor * t = root({k1 + T, 3 * C, S});
    SplitState    s = state_split(1, {6, 2});
    s.nr[0]         = 3;
    ggml_tensor * v = ggml_view_3d(ctx_, t, k1, 3 * C, S, t->nb[1], t->nb[2], T * t->nb[0]);
    const ViewMap m = map_view(s, 2, t, v->ne, v->nb, v->view_offs);
    ASSERT_TRUE(m.ok);
    EXPECT_TRUE(same_state(m.state, s, 2));
    for (int d = 0; d < 2; ++d) {
        const int64_t rows = d == 0 ? 18 : 6;
        EXPECT_EQ(m.dev[d].offs, T * t->nb[0]) << d;
        EXPECT_EQ(m.dev[d].ne[1], rows) << d;
        EXPECT_EQ(m.dev[d].nb[1], t->nb[1]) << d;
        EXPECT_EQ(m.dev[d].nb[2], rows * t->nb[1]) << d;
    }
}

TEST_F(ViewMapTest, ReshapeCuttingAHeadIsNotDescribable) {
    // rows split 5/3 cannot become [2, 4] with the split along dimension 1 (a device boundary inside a row of 2)
    const int64_t src[4] = {8, 1, 1, 1}, dst[4] = {2, 4, 1, 1};
    SplitState    out;
    EXPECT_FALSE(map_reshape(state_split(0, {5, 3}), 2, GGML_TYPE_F32, src, dst, out));
    EXPECT_TRUE(map_reshape(state_split(0, {6, 2}), 2, GGML_TYPE_F32, src, dst, out));
    EXPECT_TRUE(same_state(out, state_split(1, {3, 1}), 2));
}

TEST_F(ViewMapTest, SubRangeAcrossADeviceBoundary) {
    ggml_tensor *    t = root({3, 8}); // rows split 5 / 3
    const SplitState s = state_split(1, {5, 3});
    ggml_tensor *    v = ggml_view_2d(ctx_, t, 3, 4, t->nb[1], 3 * t->nb[1]); // rows 3..6
    const ViewMap    m = map_view(s, 2, t, v->ne, v->nb, v->view_offs);
    ASSERT_TRUE(m.ok);
    EXPECT_TRUE(same_state(m.state, state_split(1, {2, 2}), 2));
    EXPECT_EQ(m.dev[0].offs, 3 * t->nb[1]);
    EXPECT_EQ(m.dev[1].offs, 0u);
}

TEST_F(ViewMapTest, ViewInsideOneSliceLivesOnOneDevice) {
    ggml_tensor *    t = root({3, 8});
    const SplitState s = state_split(1, {5, 3});
    ggml_tensor *    v = ggml_view_1d(ctx_, t, 3, 6 * t->nb[1]); // row 6: device 1, its row 1
    const ViewMap    m = map_view(s, 2, t, v->ne, v->nb, v->view_offs);
    ASSERT_TRUE(m.ok);
    ASSERT_TRUE(meta::is_dim_split(m.state));
    EXPECT_EQ(meta::device_extent(m.state, 2, 0), 0);
    EXPECT_EQ(meta::device_extent(m.state, 2, 1), 1);
    EXPECT_EQ(m.dev[1].offs, 1 * t->nb[1]);
}

TEST_F(ViewMapTest, MirroredAndPartialPassThrough) {
    ggml_tensor * t = root({6, 4});
    ggml_tensor * v = ggml_transpose(ctx_, t);
    for (const SplitState & s : {state_mirrored(), state_partial()}) {
        const ViewMap m = map_view(s, 3, t, v->ne, v->nb, 0);
        ASSERT_TRUE(m.ok);
        EXPECT_EQ(m.state.axis, s.axis);
        EXPECT_EQ(m.dev[2].nb[0], v->nb[0]);
        EXPECT_EQ(m.dev[2].ne[0], 4);
    }
}

} // namespace
} // namespace switchyard::testing
