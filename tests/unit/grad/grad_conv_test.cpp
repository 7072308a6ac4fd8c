// Gradients of the convolution ops against central finite differences (grad_check.h): IM2COL (upstream's rule:
// IM2COL_BACK to the data; the kernel is shape only), the im2col + mul_mat convolution with both operands
// trainable, and POOL_2D (POOL_2D_BACK) in both modes, with padding.
#include "grad_check.h"

#include <gtest/gtest.h>

namespace {

using switchyard::testing::check_gradients;
using switchyard::testing::GradBuilder;

using B = GradBuilder;

TEST(GradConv, Im2col2d) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_im2col(b.ctx(), b.constant(3, 3, 2, 4), b.param(7, 6, 2, 2), 2, 1, 1, 1, 1, 2, true,
                                     GGML_TYPE_F32);
              }), "");
}

TEST(GradConv, Im2col1d) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_im2col(b.ctx(), b.constant(3, 2, 3), b.param(9, 2, 2), 2, 0, 2, 0, 1, 0, false,
                                     GGML_TYPE_F32);
              }), "");
}

TEST(GradConv, Conv2dViaIm2col) {
    // kernel and data both trainable: the kernel's gradient goes through MUL_MAT, the data's through IM2COL_BACK.
    // ggml_conv_2d's own composition with F32 columns: ggml_conv_2d unfolds an F32 kernel's data into F16 columns,
    // as upstream's, too coarse for finite differences
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_context * ctx  = b.ctx();
                  ggml_tensor *  a    = b.param(3, 3, 2, 3);
                  ggml_tensor *  cols = ggml_im2col(ctx, a, b.param(6, 5, 2, 2), 1, 2, 1, 0, 1, 1, true, GGML_TYPE_F32);
                  ggml_tensor *  r    = ggml_mul_mat(
                      ctx, ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3] * cols->ne[2] * cols->ne[1]),
                      ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1] * a->ne[2], a->ne[3]));
                  r = ggml_reshape_4d(ctx, r, cols->ne[1], cols->ne[2], cols->ne[3], a->ne[3]);
                  return ggml_cont(ctx, ggml_permute(ctx, r, 0, 1, 3, 2));
              }), "");
}

TEST(GradConv, Pool2dMax) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_pool_2d(b.ctx(), b.param(8, 7, 2, 1), GGML_OP_POOL_MAX, 3, 2, 2, 2, 1.0f, 1.0f);
              }), "");
}

TEST(GradConv, Pool2dAvg) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_pool_2d(b.ctx(), b.param(8, 7, 2, 2), GGML_OP_POOL_AVG, 3, 3, 2, 1, 1.0f, 0.0f);
              }), "");
}

} // namespace
