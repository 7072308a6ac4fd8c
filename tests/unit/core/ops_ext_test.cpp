// Constructors of the issue 16 batch: result shapes, types and op_params layouts (upstream's), and the shape
// errors that go through the abort callback. Values were worked out by hand from the definitions.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using switchyard::testing::expect_layout;

class ExtOps : public switchyard::testing::OpFixture {};

TEST_F(ExtOps, CountEqualIsAnI64Scalar) {
    ggml_tensor * a = t(GGML_TYPE_I32, 5, 3);
    ggml_tensor * r = ggml_count_equal(ctx_, a, t(GGML_TYPE_I32, 5, 3));
    expect_layout(r, GGML_TYPE_I64, {1, 1, 1, 1}, {8, 8, 8, 8});
    EXPECT_EQ(r->op, GGML_OP_COUNT_EQUAL);
    EXPECT_NE(fatal_message([&] { ggml_count_equal(ctx_, a, t(GGML_TYPE_I32, 5, 4)); }).find("ggml_count_equal"),
              std::string::npos);
}

TEST_F(ExtOps, DiagMaskZeroStoresNPast) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 4);
    ggml_tensor * r = ggml_diag_mask_zero(ctx_, a, 3);
    EXPECT_EQ(r->op, GGML_OP_DIAG_MASK_ZERO);
    EXPECT_EQ(r->op_params[0], 3);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(ggml_diag_mask_zero_inplace(ctx_, a, 1)->view_src, a);
}

TEST_F(ExtOps, MulMatHintGoesToSlotOne) {
    ggml_tensor * r = ggml_mul_mat(ctx_, t(GGML_TYPE_F32, 8, 4), t(GGML_TYPE_F32, 8, 2));
    ggml_mul_mat_set_hint(r, GGML_HINT_SRC0_IS_HADAMARD);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(r->op_params[1], 1);
    EXPECT_FALSE(fatal_message([&] { ggml_mul_mat_set_hint(t(GGML_TYPE_F32, 4), GGML_HINT_NONE); }).empty());
}

TEST_F(ExtOps, CircularPadSetsTheFlag) {
    ggml_tensor * r = ggml_pad_ext_circular(ctx_, t(GGML_TYPE_F32, 4, 3), 1, 2, 0, 1, 0, 0, 0, 0);
    expect_layout(r, GGML_TYPE_F32, {7, 4, 1, 1}, {4, 28, 112, 112});
    EXPECT_EQ(r->op, GGML_OP_PAD);
    EXPECT_EQ(r->op_params[0], 1);
    EXPECT_EQ(r->op_params[1], 2);
    EXPECT_EQ(r->op_params[3], 1);
    EXPECT_EQ(r->op_params[8], 1);
    EXPECT_EQ(ggml_pad(ctx_, t(GGML_TYPE_F32, 4), 1, 0, 0, 0)->op_params[8], 0);
    EXPECT_EQ(ggml_pad_circular(ctx_, t(GGML_TYPE_F32, 4), 1, 0, 0, 0)->op_params[8], 1);
}

TEST_F(ExtOps, PadReflectRules) {
    ggml_tensor * r = ggml_pad_reflect_1d(ctx_, t(GGML_TYPE_F32, 5, 2), 4, 1);
    expect_layout(r, GGML_TYPE_F32, {10, 2, 1, 1}, {4, 40, 80, 80});
    EXPECT_EQ(r->op, GGML_OP_PAD_REFLECT_1D);
    EXPECT_EQ(r->op_params[0], 4);
    EXPECT_EQ(r->op_params[1], 1);
    EXPECT_FALSE(fatal_message([&] { ggml_pad_reflect_1d(ctx_, t(GGML_TYPE_F32, 5), 5, 0); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_pad_reflect_1d(ctx_, t(GGML_TYPE_F16, 5), 1, 1); }).empty());
}

TEST_F(ExtOps, InterpolateStoresTheMode) {
    ggml_tensor * r = ggml_upscale(ctx_, t(GGML_TYPE_F32, 3, 2, 4), 3, GGML_SCALE_MODE_NEAREST);
    expect_layout(r, GGML_TYPE_F32, {9, 6, 4, 1}, {4, 36, 216, 864});
    EXPECT_EQ(r->op, GGML_OP_UPSCALE);
    EXPECT_EQ(r->op_params[0], 0);
    const uint32_t mode = uint32_t{GGML_SCALE_MODE_BILINEAR} | uint32_t{GGML_SCALE_FLAG_ALIGN_CORNERS};
    r = ggml_interpolate(ctx_, t(GGML_TYPE_F32, 8, 8, 2, 2), 3, 5, 2, 1, mode);
    expect_layout(r, GGML_TYPE_F32, {3, 5, 2, 1}, {4, 12, 60, 120});
    EXPECT_EQ(r->op_params[0], 0x101);
    EXPECT_FALSE(fatal_message([&] { ggml_upscale(ctx_, t(GGML_TYPE_F32, 3), 1, GGML_SCALE_MODE_NEAREST); }).empty());
    EXPECT_FALSE(fatal_message([&] {
                     ggml_interpolate(ctx_, t(GGML_TYPE_F32, 3), 6, 1, 1, 1,
                                      uint32_t{GGML_SCALE_MODE_NEAREST} | uint32_t{GGML_SCALE_FLAG_ANTIALIAS});
                 }).empty());
}

TEST_F(ExtOps, WindowShapes) {
    // 14 x 13 in windows of 8: 2 x 2 windows
    ggml_tensor * p = ggml_win_part(ctx_, t(GGML_TYPE_F32, 16, 14, 13), 8);
    expect_layout(p, GGML_TYPE_F32, {16, 8, 8, 4}, {4, 64, 512, 4096});
    EXPECT_EQ(p->op_params[0], 2);
    EXPECT_EQ(p->op_params[1], 2);
    EXPECT_EQ(p->op_params[2], 8);
    ggml_tensor * u = ggml_win_unpart(ctx_, p, 14, 13, 8);
    expect_layout(u, GGML_TYPE_F32, {16, 14, 13, 1}, {4, 64, 896, 11648});
    EXPECT_EQ(u->op_params[0], 8);
    EXPECT_FALSE(fatal_message([&] { ggml_win_unpart(ctx_, p, 20, 13, 8); }).empty());
}

TEST_F(ExtOps, RelativePositionShapes) {
    ggml_tensor * g = ggml_get_rel_pos(ctx_, t(GGML_TYPE_F16, 16, 7), 4, 4);
    expect_layout(g, GGML_TYPE_F16, {16, 4, 4, 1}, {2, 32, 128, 512});
    EXPECT_FALSE(fatal_message([&] { ggml_get_rel_pos(ctx_, t(GGML_TYPE_F16, 16, 7), 4, 3); }).empty());
    ggml_tensor * a = t(GGML_TYPE_F32, 16, 6, 2);
    ggml_tensor * r = ggml_add_rel_pos(ctx_, a, t(GGML_TYPE_F32, 4, 3, 2, 2), t(GGML_TYPE_F32, 4, 3, 2, 2));
    EXPECT_EQ(r->op, GGML_OP_ADD_REL_POS);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(ggml_add_rel_pos_inplace(ctx_, a, t(GGML_TYPE_F32, 4, 3, 2, 2), t(GGML_TYPE_F32, 4, 3, 2, 2))->op_params[0], 1);
    EXPECT_FALSE(fatal_message([&] { ggml_add_rel_pos(ctx_, a, t(GGML_TYPE_F32, 4, 3, 2, 2), t(GGML_TYPE_F32, 4, 2, 3, 2)); }).empty());
}

TEST_F(ExtOps, ConvTranspose1dAndDepthwise) {
    ggml_tensor * r = ggml_conv_transpose_1d(ctx_, t(GGML_TYPE_F16, 3, 4, 5), t(GGML_TYPE_F32, 7, 5), 2, 0, 1);
    expect_layout(r, GGML_TYPE_F32, {15, 4, 1, 1}, {4, 60, 240, 240}); // (7 - 1)*2 + 3
    EXPECT_EQ(r->op_params[0], 2);
    EXPECT_EQ(r->op_params[1], 0);
    EXPECT_EQ(r->op_params[2], 1);
    EXPECT_FALSE(fatal_message([&] { ggml_conv_transpose_1d(ctx_, t(GGML_TYPE_F32, 3, 4, 5), t(GGML_TYPE_F32, 7, 5), 1, 1, 1); }).empty());

    ggml_tensor * d = ggml_conv_2d_dw_direct(ctx_, t(GGML_TYPE_F32, 3, 3, 1, 4), t(GGML_TYPE_F32, 9, 8, 4, 2), 2, 1, 0, 1, 1, 2);
    expect_layout(d, GGML_TYPE_F32, {4, 6, 4, 2}, {4, 16, 96, 384}); // (9 - 3)/2 + 1, (8 + 2 - 4 - 1)/1 + 1
    EXPECT_EQ(d->op, GGML_OP_CONV_2D_DW);
    EXPECT_EQ(d->op_params[4], 1);
    EXPECT_EQ(d->op_params[5], 2);
    // channels-contiguous data: the result keeps the CWHN memory order
    ggml_tensor * cwhn = ggml_permute(ctx_, t(GGML_TYPE_F32, 4, 9, 8, 2), 2, 0, 1, 3);
    expect_layout(ggml_conv_2d_dw_direct(ctx_, t(GGML_TYPE_F32, 3, 3, 1, 4), cwhn, 1, 1, 1, 1, 1, 1), GGML_TYPE_F32,
                  {9, 8, 4, 2}, {16, 144, 4, 1152});
    EXPECT_FALSE(fatal_message([&] { ggml_conv_2d_dw_direct(ctx_, t(GGML_TYPE_F32, 3, 3, 2, 4), t(GGML_TYPE_F32, 9, 8, 4), 1, 1, 0, 0, 1, 1); }).empty());
}

} // namespace
