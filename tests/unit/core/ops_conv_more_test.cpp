// Constructors of the second convolution batch: result shapes, types and op_params layouts (upstream's), the
// graphs of the compositions, and the shape errors that go through the abort callback. Expected values were
// worked out by hand from the definitions (output size (in + 2p - d*(k - 1) - 1) / s + 1, transposed (in - 1)*s + k).
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using switchyard::testing::expect_layout;

class ConvMoreOps : public switchyard::testing::OpFixture {};

std::vector<int32_t> params(const ggml_tensor * t, int n) {
    return std::vector<int32_t>(t->op_params, t->op_params + n);
}

TEST_F(ConvMoreOps, Im2colBackIsShapedLikeTheData) {
    int64_t       ne[4] = {9, 8, 2, 3};
    ggml_tensor * k     = t(GGML_TYPE_F16, 3, 3, 2, 4);
    // ow = (9 + 2 - 2 - 1)/2 + 1 = 5, oh = (8 + 0 - 2 - 1)/1 + 1 = 6
    ggml_tensor * grad = t(GGML_TYPE_F32, 18, 5, 6, 3);
    ggml_tensor * r    = ggml_im2col_back(ctx_, grad, k, ne, 2, 1, 1, 0, 1, 1, true);
    expect_layout(r, GGML_TYPE_F32, {9, 8, 2, 3}, {4, 36, 288, 576});
    EXPECT_EQ(r->op, GGML_OP_IM2COL_BACK);
    EXPECT_EQ(r->src[0], grad);
    EXPECT_EQ(r->src[1], k);
    EXPECT_EQ(params(r, 7), (std::vector<int32_t>{2, 1, 1, 0, 1, 1, 1}));
    // 1-d: data [12, 3, 2], kernel [4, 3, 5]: columns [12, 9, 2]
    int64_t ne1[4] = {12, 3, 2, 1};
    EXPECT_EQ(ggml_im2col_back(ctx_, t(GGML_TYPE_F32, 12, 9, 2), t(GGML_TYPE_F32, 4, 3, 5), ne1, 1, 0, 0, 0, 1, 0, false)->ne[0], 12);
    const std::string m = fatal_message([&] { ggml_im2col_back(ctx_, t(GGML_TYPE_F32, 18, 5, 5, 3), k, ne, 2, 1, 1, 0, 1, 1, true); });
    EXPECT_NE(m.find("ggml_im2col_back"), std::string::npos) << m;
}

TEST_F(ConvMoreOps, Im2colBackIsTheGradientRuleOfIm2col) {
    ggml_tensor * k    = t(GGML_TYPE_F32, 3, 3, 2, 4);
    ggml_tensor * data = t(GGML_TYPE_F32, 7, 6, 2, 1);
    ggml_tensor * cols = ggml_im2col(ctx_, k, data, 1, 2, 1, 0, 1, 1, true, GGML_TYPE_F32);
    ggml_tensor * back = ggml_im2col_back(ctx_, cols, k, data->ne, 1, 2, 1, 0, 1, 1, true);
    EXPECT_TRUE(ggml_are_same_shape(back, data));
}

TEST_F(ConvMoreOps, Im2col3dLayout) {
    // kernel [3, 3, 2, OC*IC = 4*3], data [10, 9, 5, N*IC = 2*3]: ow = 10, oh = (9 - 2 - 1)/2 + 1 = 4, od = 5 - 1 = 4
    ggml_tensor * r = ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 2, 12), t(GGML_TYPE_F32, 10, 9, 5, 6), 3, 1, 2, 1,
                                     1, 0, 0, 1, 1, 1, GGML_TYPE_F16);
    expect_layout(r, GGML_TYPE_F16, {54, 10, 4, 8}, {2, 108, 1080, 4320});
    EXPECT_EQ(r->op, GGML_OP_IM2COL_3D);
    EXPECT_EQ(params(r, 10), (std::vector<int32_t>{1, 2, 1, 1, 0, 0, 1, 1, 1, 3}));
    // as upstream, N = ne[3] / IC of the data: 7 channels hold 2 batches of 3 (the last channel unused), and 1
    // channel none (an empty result, od * 0)
    ggml_tensor * n2 = ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 2, 12), t(GGML_TYPE_F32, 10, 9, 5, 7), 3, 1, 1, 1,
                                      0, 0, 0, 1, 1, 1, GGML_TYPE_F32);
    ASSERT_NE(n2, nullptr);
    EXPECT_EQ(n2->ne[3], 4 * 2);
    ggml_tensor * n0 = ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 2, 12), t(GGML_TYPE_F32, 10, 9, 5, 1), 3, 1, 1, 1,
                                      0, 0, 0, 1, 1, 1, GGML_TYPE_F32);
    ASSERT_NE(n0, nullptr);
    EXPECT_EQ(ggml_nelements(n0), 0);
    EXPECT_FALSE(fatal_message([&] {
                     ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 2, 12), t(GGML_TYPE_F32, 10, 9, 5, 6), 0, 1, 1, 1, 0, 0,
                                    0, 1, 1, 1, GGML_TYPE_F32);
                 }).empty());
    EXPECT_FALSE(fatal_message([&] {
                     ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 6, 3), t(GGML_TYPE_F32, 10, 9, 5, 3), 3, 1, 1, 1, 0, 0,
                                    0, 1, 1, 1, GGML_TYPE_F32);
                 }).empty()); // a depth-6 kernel does not fit depth-5 data
    // as upstream, the kernel's ne[3] need not be a multiple of IC (upstream's test-backend-ops builds such calls)
    ggml_tensor * k5 = ggml_im2col_3d(ctx_, t(GGML_TYPE_F16, 3, 3, 2, 5), t(GGML_TYPE_F32, 10, 9, 5, 6), 3, 1, 1, 1,
                                      0, 0, 0, 1, 1, 1, GGML_TYPE_F32);
    ASSERT_NE(k5, nullptr);
    EXPECT_EQ(k5->ne[0], 3 * 3 * 2 * 3);
}

TEST_F(ConvMoreOps, Conv3dIsIm2col3dThenMulMat) {
    ggml_tensor * a = t(GGML_TYPE_F32, 3, 3, 2, 12); // OC = 4, IC = 3
    ggml_tensor * b = t(GGML_TYPE_F32, 10, 9, 5, 6); // N = 2
    ggml_tensor * r = ggml_conv_3d(ctx_, a, b, 3, 1, 1, 1, 1, 1, 0, 1, 1, 1);
    expect_layout(r, GGML_TYPE_F32, {10, 9, 4, 8}, {4, 40, 360, 1440});
    EXPECT_EQ(r->op, GGML_OP_RESHAPE);
    const ggml_tensor * cont = r->src[0];
    ASSERT_EQ(cont->op, GGML_OP_CONT);
    const ggml_tensor * mm = cont->src[0]->src[0]->src[0]; // permute <- reshape <- mul_mat
    ASSERT_EQ(mm->op, GGML_OP_MUL_MAT);
    EXPECT_EQ(mm->src[0]->src[0]->op, GGML_OP_IM2COL_3D);
    EXPECT_EQ(mm->src[0]->src[0]->type, GGML_TYPE_F16); // upstream's column type: F16 but for BF16 kernels
    ggml_tensor * bf = ggml_conv_3d(ctx_, t(GGML_TYPE_BF16, 3, 3, 2, 12), b, 3, 1, 1, 1, 1, 1, 0, 1, 1, 1);
    EXPECT_EQ(bf->src[0]->src[0]->src[0]->src[0]->src[0]->src[0]->type, GGML_TYPE_F32);
}

TEST_F(ConvMoreOps, Col2im1dLayout) {
    // columns [K*OC = 3*4, T_in = 7]: T_out = 6*2 + 3 - 2 = 13
    ggml_tensor * a = t(GGML_TYPE_F16, 12, 7);
    ggml_tensor * r = ggml_col2im_1d(ctx_, a, 2, 4, 1);
    expect_layout(r, GGML_TYPE_F16, {13, 4, 1, 1}, {2, 26, 104, 104});
    EXPECT_EQ(r->op, GGML_OP_COL2IM_1D);
    EXPECT_EQ(params(r, 3), (std::vector<int32_t>{2, 4, 1}));
    EXPECT_FALSE(fatal_message([&] { ggml_col2im_1d(ctx_, t(GGML_TYPE_F32, 10, 7), 2, 4, 1); }).empty()); // 10 % 4
    EXPECT_FALSE(fatal_message([&] { ggml_col2im_1d(ctx_, t(GGML_TYPE_F32, 12, 7, 2), 2, 4, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_col2im_1d(ctx_, t(GGML_TYPE_I32, 12, 7), 2, 4, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_col2im_1d(ctx_, t(GGML_TYPE_F32, 4, 1), 1, 4, 1); }).empty()); // T_out < 1
}

TEST_F(ConvMoreOps, Conv2dShortcutsChooseStrideAndPadding) {
    ggml_tensor * a  = t(GGML_TYPE_F16, 4, 4, 3, 8);
    ggml_tensor * sk = ggml_conv_2d_sk_p0(ctx_, a, t(GGML_TYPE_F32, 16, 12, 3, 1));
    expect_layout(sk, GGML_TYPE_F32, {4, 3, 8, 1}, {4, 16, 48, 384});
    ggml_tensor * k3 = t(GGML_TYPE_F16, 3, 3, 3, 8);
    ggml_tensor * ph = ggml_conv_2d_s1_ph(ctx_, k3, t(GGML_TYPE_F32, 10, 9, 3, 2));
    expect_layout(ph, GGML_TYPE_F32, {10, 9, 8, 2}, {4, 40, 360, 2880});
    // the IM2COL under them carries the chosen parameters
    const ggml_tensor * im = ph->src[0]->src[0]->src[0]->src[0]->src[0]; // cont <- permute <- reshape <- mul_mat <- reshape
    ASSERT_EQ(im->op, GGML_OP_IM2COL);
    EXPECT_EQ(params(im, 7), (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 1}));
}

TEST_F(ConvMoreOps, Conv2dDirectLayout) {
    ggml_tensor * r = ggml_conv_2d_direct(ctx_, t(GGML_TYPE_F16, 3, 3, 4, 6), t(GGML_TYPE_F32, 11, 10, 4, 2), 2, 1,
                                          1, 0, 1, 2);
    // ow = (11 + 2 - 2 - 1)/2 + 1 = 6, oh = (10 - 4 - 1)/1 + 1 = 6
    expect_layout(r, GGML_TYPE_F32, {6, 6, 6, 2}, {4, 24, 144, 864});
    EXPECT_EQ(r->op, GGML_OP_CONV_2D);
    EXPECT_EQ(params(r, 6), (std::vector<int32_t>{2, 1, 1, 0, 1, 2}));
    EXPECT_EQ(ggml_conv_2d_direct(ctx_, t(GGML_TYPE_F16, 3, 3, 4, 6), t(GGML_TYPE_F16, 5, 5, 4, 1), 1, 1, 0, 0, 1, 1)->type,
              GGML_TYPE_F16); // the data's type
    const std::string m = fatal_message([&] {
        ggml_conv_2d_direct(ctx_, t(GGML_TYPE_F16, 3, 3, 4, 6), t(GGML_TYPE_F32, 11, 10, 5, 2), 1, 1, 0, 0, 1, 1);
    });
    EXPECT_NE(m.find("channels"), std::string::npos) << m;
    EXPECT_FALSE(fatal_message([&] {
                     ggml_conv_2d_direct(ctx_, t(GGML_TYPE_F16, 3, 3, 4, 6), t(GGML_TYPE_F32, 11, 10, 4, 2), 0, 1, 0, 0, 1, 1);
                 }).empty());
}

TEST_F(ConvMoreOps, Conv3dDirectLayout) {
    // kernel [3, 3, 3, IC*OC = 2*5], data [8, 7, 6, IC*N = 2*3]
    ggml_tensor * r = ggml_conv_3d_direct(ctx_, t(GGML_TYPE_F32, 3, 3, 3, 10), t(GGML_TYPE_F32, 8, 7, 6, 6), 1, 2, 1,
                                          1, 1, 0, 1, 1, 2, 2, 3, 5);
    // ow = 8, oh = (7 + 2 - 2 - 1)/2 + 1 = 4, od = (6 - 4 - 1)/1 + 1 = 2
    expect_layout(r, GGML_TYPE_F32, {8, 4, 2, 15}, {4, 32, 128, 256});
    EXPECT_EQ(r->op, GGML_OP_CONV_3D);
    EXPECT_EQ(params(r, 12), (std::vector<int32_t>{1, 2, 1, 1, 1, 0, 1, 1, 2, 2, 3, 5}));
    EXPECT_FALSE(fatal_message([&] {
                     ggml_conv_3d_direct(ctx_, t(GGML_TYPE_F32, 3, 3, 3, 10), t(GGML_TYPE_F32, 8, 7, 6, 6), 1, 1, 1, 0,
                                         0, 0, 1, 1, 1, 2, 2, 5); // b holds IC*N = 6, not 4
                 }).empty());
}

TEST_F(ConvMoreOps, ConvTranspose2dLayout) {
    ggml_tensor * r = ggml_conv_transpose_2d_p0(ctx_, t(GGML_TYPE_F16, 3, 4, 5, 2), t(GGML_TYPE_F32, 6, 7, 2, 3), 2);
    // (6 - 1)*2 + 3 = 13, (7 - 1)*2 + 4 = 16
    expect_layout(r, GGML_TYPE_F32, {13, 16, 5, 3}, {4, 52, 832, 4160});
    EXPECT_EQ(r->op, GGML_OP_CONV_TRANSPOSE_2D);
    EXPECT_EQ(r->op_params[0], 2);
    EXPECT_FALSE(fatal_message([&] {
                     ggml_conv_transpose_2d_p0(ctx_, t(GGML_TYPE_F16, 3, 4, 5, 2), t(GGML_TYPE_F32, 6, 7, 3, 3), 2);
                 }).empty());
}

TEST_F(ConvMoreOps, Pool2dBackIsShapedLikeTheInput) {
    ggml_tensor * af   = t(GGML_TYPE_F16, 9, 8, 3, 2);
    ggml_tensor * pool = ggml_pool_2d(ctx_, af, GGML_OP_POOL_MAX, 3, 3, 2, 2, 1.0f, 1.0f); // [5, 4, 3, 2]
    ggml_tensor * r    = ggml_pool_2d_back(ctx_, pool, af, GGML_OP_POOL_MAX, 3, 3, 2, 2, 1.0f, 1.0f);
    expect_layout(r, GGML_TYPE_F32, {9, 8, 3, 2}, {4, 36, 288, 864});
    EXPECT_EQ(r->op, GGML_OP_POOL_2D_BACK);
    EXPECT_EQ(params(r, 7), params(pool, 7));
    EXPECT_FALSE(fatal_message([&] {
                     ggml_pool_2d_back(ctx_, t(GGML_TYPE_F32, 4, 4, 3, 2), af, GGML_OP_POOL_AVG, 3, 3, 2, 2, 1.0f, 1.0f);
                 }).empty());
}

} // namespace
