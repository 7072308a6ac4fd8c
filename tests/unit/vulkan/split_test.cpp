// Cutting a node into parts that fit one descriptor window (vulkan/split.h), without a device: the pieces of
// element-wise, broadcast, gathering and matrix-product nodes under a small window, with the counts and
// boundaries worked out by hand, and the nodes that cannot be cut.
#include "vulkan/ops.h"
#include "vulkan/split.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <vector>

namespace switchyard::testing {
namespace {

using vulkan::Follow;
using vulkan::Part;
using vulkan::Piece;
using vulkan::SplitMap;

class SplitTest : public ::testing::Test {
protected:
    void SetUp() override {
        ggml_init_params params{64 * ggml_tensor_overhead(), nullptr, true};
        ctx_ = ggml_init(params);
    }
    void TearDown() override { ggml_free(ctx_); }

    // the node's pieces under `limit`; false when it cannot be cut
    bool pieces(const ggml_tensor * node, uint64_t limit, std::vector<Piece> & out, SplitMap & map) {
        const vulkan::OpInfo & info = vulkan::op_info(node->op);
        return info.map != nullptr && info.map(node, map) && vulkan::split_node(node, map, limit, &out);
    }

    ggml_context * ctx_ = nullptr;
};

// ADD of [1000, 300] f32 (4000-byte rows) under a 40000-byte window: ten rows a piece, 30 pieces in order.
TEST_F(SplitTest, RowsAreCutIntoTheLongestRunsThatFit) {
    ggml_tensor *      a    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 1000, 300);
    ggml_tensor *      b    = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 1000);
    ggml_tensor *      node = ggml_add(ctx_, a, b);
    std::vector<Piece> list;
    SplitMap           map;
    ASSERT_TRUE(pieces(node, 40000, list, map));
    ASSERT_EQ(list.size(), 30u);
    for (size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(list[i].begin[0], 0);
        EXPECT_EQ(list[i].end[0], 1000);
        EXPECT_EQ(list[i].begin[1], static_cast<int64_t>(10 * i));
        EXPECT_EQ(list[i].end[1], static_cast<int64_t>(10 * i + 10));
    }
}

// [1000, 7, 5] under a window of 2.5 rows: dimension 2 cannot keep a whole slice (7 rows), so each slice is cut
// along dimension 1 into runs of 2 rows and a last run of 1: 4 pieces per slice.
TEST_F(SplitTest, AStepThatDoesNotFitIsCutAlongTheNextDimension) {
    ggml_tensor *      a    = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 1000, 7, 5);
    ggml_tensor *      node = ggml_scale(ctx_, a, 2.0f);
    std::vector<Piece> list;
    SplitMap           map;
    ASSERT_TRUE(pieces(node, 10000, list, map));
    ASSERT_EQ(list.size(), 20u);
    EXPECT_EQ(list[3].begin[2], 0);
    EXPECT_EQ(list[3].end[2], 1);
    EXPECT_EQ(list[3].begin[1], 6);
    EXPECT_EQ(list[3].end[1], 7);
    EXPECT_EQ(list[4].begin[2], 1);
    EXPECT_EQ(list[4].begin[1], 0);
    EXPECT_EQ(list[4].end[1], 2);
}

// b repeats every 3 rows of a: pieces start at multiples of 3 rows (6 rows fit, 7 would).
TEST_F(SplitTest, ARepeatedSourceKeepsPiecesOnItsPeriod) {
    ggml_tensor *      a    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 100, 12);
    ggml_tensor *      b    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 100, 3);
    ggml_tensor *      node = ggml_mul(ctx_, a, b);
    std::vector<Piece> list;
    SplitMap           map;
    ASSERT_TRUE(pieces(node, 7 * 400, list, map));
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].end[1], 6);
    EXPECT_EQ(list[1].begin[1], 6);

    // the part's views: b stays whole, a and the output start at row 6
    Part part;
    int  base = 0;
    a->data = b->data = node->data = &base; // any address: the views move by whole rows
    vulkan::make_part(node, map, list[1], part);
    EXPECT_EQ(part.node.ne[1], 6);
    EXPECT_EQ(part.node.src[0]->ne[1], 6);
    EXPECT_EQ(part.node.src[1]->ne[1], 3);
    EXPECT_EQ(static_cast<char *>(part.node.src[0]->data) - static_cast<char *>(a->data), 6 * 400);
    EXPECT_EQ(part.node.src[1]->data, b->data);
}

// GET_ROWS from a [100, 50] f32 source (400-byte rows) under 4000 bytes: the output's 8 rows fit, the source's
// rows are read in windows of 10: five pieces, windows [0, 10) .. [40, 50).
TEST_F(SplitTest, GatheredRowsAreReadInWindows) {
    ggml_tensor *      src  = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 100, 50);
    ggml_tensor *      idx  = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, 8);
    ggml_tensor *      node = ggml_get_rows(ctx_, src, idx);
    std::vector<Piece> list;
    SplitMap           map;
    ASSERT_TRUE(pieces(node, 4000, list, map));
    ASSERT_EQ(list.size(), 5u);
    for (size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(list[i].gather.first, static_cast<int64_t>(10 * i));
        EXPECT_EQ(list[i].gather.count, 10);
        EXPECT_EQ(list[i].gather.total, 50);
        EXPECT_EQ(list[i].end[1], 8);
    }
}

// MUL_MAT of weights [64, 10, 2] (a 2560-byte matrix) broadcast over 8 batches of activations [64, 3, 8] (768
// bytes a batch): a weight matrix serves 4 batches, so pieces take batches in steps of 4. Under 3072 bytes the
// activations of 4 batches and one weight matrix fit: 2 pieces. Under 2304 even one column of 4 batches spans
// 2560 bytes of activations: the node cannot be cut.
TEST_F(SplitTest, BroadcastWeightsMoveInStepsOfTheirRatio) {
    ggml_tensor *      w    = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 64, 10, 2);
    ggml_tensor *      b    = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 64, 3, 8);
    ggml_tensor *      node = ggml_mul_mat(ctx_, w, b);
    std::vector<Piece> list;
    SplitMap           map;
    ASSERT_TRUE(pieces(node, 3072, list, map));
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].begin[2], 0);
    EXPECT_EQ(list[0].end[2], 4);
    EXPECT_EQ(list[1].begin[2], 4);
    EXPECT_EQ(list[1].end[2], 8);
    EXPECT_EQ(list[1].end[0], 10);
    EXPECT_EQ(list[1].end[1], 3);

    Part part;
    int  base = 0;
    w->data = b->data = node->data = &base;
    vulkan::make_part(node, map, list[1], part);
    EXPECT_EQ(part.node.src[0]->ne[2], 1); // the second weight matrix
    EXPECT_EQ(static_cast<char *>(part.node.src[0]->data) - static_cast<char *>(w->data), 2560);
    EXPECT_EQ(part.node.src[1]->ne[2], 4);
    EXPECT_EQ(static_cast<char *>(part.node.src[1]->data) - static_cast<char *>(b->data), 4 * 768);

    list.clear();
    EXPECT_FALSE(pieces(node, 2304, list, map));
}

// Copies between shapes that differ (a reshape) cannot be cut; neither can a source that is read whole and
// does not fit.
TEST_F(SplitTest, NodesThatCannotBeCut) {
    ggml_tensor *      a    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 100, 40);
    ggml_tensor *      node = ggml_cpy(ctx_, a, ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4000));
    std::vector<Piece> list;
    SplitMap           map;
    EXPECT_FALSE(pieces(node, 4000, list, map));

    ggml_tensor * x    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 100, 40);
    ggml_tensor * pos  = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, 1);
    ggml_tensor * rope = ggml_rope(ctx_, ggml_reshape_3d(ctx_, x, 100, 40, 1), pos, 100, 0);
    EXPECT_FALSE(pieces(rope, 399, list, map)); // not even one row fits
}

} // namespace
} // namespace switchyard::testing
