// View constructors (RESHAPE, VIEW 1d-4d, PERMUTE, TRANSPOSE): shapes and byte strides, aliasing of the root
// tensor's memory at the right offset, names, op_params, and the rejected cases (non-contiguous reshape,
// wrong element count, views out of range or splitting a block, bad permutations).
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace {

using switchyard::testing::expect_layout;
using switchyard::testing::FatalError;
using switchyard::testing::param_f32;

class ViewOps : public switchyard::testing::OpFixture {};

void expect_view_of(const ggml_tensor * r, ggml_tensor * root, size_t offs) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->view_src, root);
    EXPECT_EQ(r->view_offs, offs);
    EXPECT_EQ(r->data, static_cast<char *>(root->data) + offs);
}

TEST_F(ViewOps, ReshapeAliasesContiguousA) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 4);
    ggml_set_name(a, "w");
    ggml_tensor * r = ggml_reshape_2d(ctx_, a, 8, 3);
    expect_layout(r, GGML_TYPE_F32, {8, 3, 1, 1}, {4, 32, 96, 96});
    EXPECT_EQ(r->op, GGML_OP_RESHAPE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_STREQ(r->name, "w (reshaped)");
    expect_view_of(r, a, 0);

    expect_layout(ggml_reshape_1d(ctx_, a, 24), GGML_TYPE_F32, {24, 1, 1, 1}, {4, 96, 96, 96});
    expect_layout(ggml_reshape_3d(ctx_, a, 2, 3, 4), GGML_TYPE_F32, {2, 3, 4, 1}, {4, 8, 24, 96});
    expect_layout(ggml_reshape_4d(ctx_, a, 2, 3, 2, 2), GGML_TYPE_F32, {2, 3, 2, 2}, {4, 8, 24, 48});
}

TEST_F(ViewOps, ReshapeLikeTakesOnlyTheShapeOfB) {
    ggml_tensor * a = t(GGML_TYPE_F16, 6, 4);
    ggml_tensor * b = ggml_transpose(ctx_, t(GGML_TYPE_F32, 3, 8)); // [8, 3], not contiguous
    ggml_tensor * r = ggml_reshape(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F16, {8, 3, 1, 1}, {2, 16, 48, 48});
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
}

TEST_F(ViewOps, ReshapeOfAViewAliasesTheRoot) {
    ggml_tensor * base = t(GGML_TYPE_F32, 12);
    ggml_tensor * v    = ggml_view_1d(ctx_, base, 8, 16);
    ggml_tensor * r    = ggml_reshape_2d(ctx_, v, 4, 2);
    expect_layout(r, GGML_TYPE_F32, {4, 2, 1, 1}, {4, 16, 32, 32});
    EXPECT_EQ(r->src[0], v);
    expect_view_of(r, base, 16);
}

TEST_F(ViewOps, ReshapeRejectsStridedAAndOtherCounts) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 6, 4);
    const std::string msg = fatal_message([&] { ggml_reshape_2d(ctx_, ggml_transpose(ctx_, a), 4, 6); });
    EXPECT_EQ(msg.rfind("[ggml_reshape_2d]", 0), 0u) << msg;
    fatal_message([&] { ggml_reshape_1d(ctx_, a, 25); });
    fatal_message([&] { ggml_reshape_3d(ctx_, a, 2, 2, 2); });
    fatal_message([&] { ggml_reshape_4d(ctx_, a, 1, 1, 1, 23); });
    fatal_message([&] { ggml_reshape(ctx_, a, t(GGML_TYPE_F32, 5, 5)); });
}

TEST_F(ViewOps, View1dStoresItsOffset) {
    ggml_tensor * base = t(GGML_TYPE_F32, 12);
    ggml_set_name(base, "base");
    ggml_tensor * r = ggml_view_1d(ctx_, base, 5, 8);
    expect_layout(r, GGML_TYPE_F32, {5, 1, 1, 1}, {4, 20, 20, 20});
    EXPECT_EQ(r->op, GGML_OP_VIEW);
    EXPECT_EQ(r->src[0], base);
    size_t offset = 0;
    std::memcpy(&offset, r->op_params, sizeof(offset));
    EXPECT_EQ(offset, 8u);
    EXPECT_EQ(r->op_params[2], 0);
    EXPECT_STREQ(r->name, "base (view)");
    expect_view_of(r, base, 8);
}

TEST_F(ViewOps, View2d3d4dTakeTheGivenStrides) {
    ggml_tensor * base = t(GGML_TYPE_F32, 4, 6, 2);
    ggml_tensor * v2   = ggml_view_2d(ctx_, base, 3, 2, 32, 4);
    expect_layout(v2, GGML_TYPE_F32, {3, 2, 1, 1}, {4, 32, 64, 64});
    expect_view_of(v2, base, 4);
    ggml_tensor * v3 = ggml_view_3d(ctx_, base, 2, 3, 2, 16, 96, 0);
    expect_layout(v3, GGML_TYPE_F32, {2, 3, 2, 1}, {4, 16, 96, 192});
    expect_view_of(v3, base, 0);
    ggml_tensor * v4 = ggml_view_4d(ctx_, base, 2, 2, 1, 2, 32, 64, 96, 8);
    expect_layout(v4, GGML_TYPE_F32, {2, 2, 1, 2}, {4, 32, 64, 96});
    expect_view_of(v4, base, 8);
    for (ggml_tensor * v : {v2, v3, v4}) {
        EXPECT_EQ(v->op, GGML_OP_VIEW);
        EXPECT_EQ(v->src[0], base);
    }
}

TEST_F(ViewOps, ViewOfAViewAddsTheOffsets) {
    ggml_tensor * base = t(GGML_TYPE_F32, 12);
    ggml_tensor * v1   = ggml_view_1d(ctx_, base, 8, 8);
    ggml_tensor * v2   = ggml_view_1d(ctx_, v1, 4, 4);
    EXPECT_EQ(v2->src[0], v1);
    expect_view_of(v2, base, 12);
    size_t offset = 0;
    std::memcpy(&offset, v2->op_params, sizeof(offset));
    EXPECT_EQ(offset, 4u); // the offset relative to the direct source, as passed
}

TEST_F(ViewOps, ViewsMustStayInsideTheMemoryAndWholeBlocks) {
    ggml_tensor * base = t(GGML_TYPE_F32, 12);
    expect_layout(ggml_view_1d(ctx_, base, 5, 28), GGML_TYPE_F32, {5, 1, 1, 1}, {4, 20, 20, 20}); // ends at 48
    const std::string msg = fatal_message([&] { ggml_view_1d(ctx_, base, 5, 32); });
    EXPECT_EQ(msg.rfind("[ggml_view_1d]", 0), 0u) << msg;
    fatal_message([&] { ggml_view_2d(ctx_, base, 4, 4, 16, 0); });

    ggml_tensor * q = t(GGML_TYPE_Q8_0, 64, 2); // 2 blocks of 34 bytes per row
    expect_layout(ggml_view_1d(ctx_, q, 32, 34), GGML_TYPE_Q8_0, {32, 1, 1, 1}, {34, 34, 34, 34});
    fatal_message([&] { ggml_view_1d(ctx_, q, 16, 0); });
}

TEST_F(ViewOps, PermuteMovesSourceDimIToAxisI) {
    ggml_tensor * a = t(GGML_TYPE_F32, 2, 3, 4, 5);
    ggml_set_name(a, "a");
    ggml_tensor * r = ggml_permute(ctx_, a, 1, 2, 0, 3);
    expect_layout(r, GGML_TYPE_F32, {4, 2, 3, 5}, {24, 4, 8, 96});
    EXPECT_EQ(r->op, GGML_OP_PERMUTE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 1);
    EXPECT_EQ(r->op_params[1], 2);
    EXPECT_EQ(r->op_params[2], 0);
    EXPECT_EQ(r->op_params[3], 3);
    EXPECT_STREQ(r->name, "a (permuted)");
    expect_view_of(r, a, 0);
    expect_layout(ggml_permute(ctx_, a, 0, 2, 1, 3), GGML_TYPE_F32, {2, 4, 3, 5}, {4, 24, 8, 96});
}

TEST_F(ViewOps, PermuteRejectsNonPermutations) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 2, 3, 4, 5);
    const std::string msg = fatal_message([&] { ggml_permute(ctx_, a, 0, 0, 1, 2); });
    EXPECT_EQ(msg.rfind("[ggml_permute]", 0), 0u) << msg;
    fatal_message([&] { ggml_permute(ctx_, a, 0, 1, 2, 4); });
    fatal_message([&] { ggml_permute(ctx_, a, -1, 1, 2, 3); });
}

TEST_F(ViewOps, TransposeSwapsTheFirstTwoDims) {
    ggml_tensor * a = t(GGML_TYPE_F32, 3, 5);
    ggml_set_name(a, "m");
    ggml_tensor * r = ggml_transpose(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {5, 3, 1, 1}, {12, 4, 60, 60});
    EXPECT_EQ(r->op, GGML_OP_TRANSPOSE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_STREQ(r->name, "m (transposed)");
    expect_view_of(r, a, 0);
    EXPECT_TRUE(ggml_is_transposed(r));
}

TEST_F(ViewOps, NullInputsGiveNull) {
    EXPECT_EQ(ggml_reshape_2d(ctx_, nullptr, 2, 2), nullptr);
    EXPECT_EQ(ggml_reshape(ctx_, t(GGML_TYPE_F32, 4), nullptr), nullptr);
    EXPECT_EQ(ggml_view_4d(ctx_, nullptr, 1, 1, 1, 1, 4, 4, 4, 0), nullptr);
    EXPECT_EQ(ggml_permute(ctx_, nullptr, 0, 1, 2, 3), nullptr);
    EXPECT_EQ(ggml_transpose(ctx_, nullptr), nullptr);
}

} // namespace
