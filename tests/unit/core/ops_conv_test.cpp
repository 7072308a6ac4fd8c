// Convolution front-ends: IM2COL (1-D and 2-D output sizes and parameter layout), ggml_conv_1d / _1d_ph /
// _2d as the upstream IM2COL + MUL_MAT graphs, POOL_1D / POOL_2D (float output-size rule), PAD and PAD_EXT.
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

class ConvOps : public switchyard::testing::OpFixture {};

TEST_F(ConvOps, Im2col2d) {
    ggml_tensor * a = t(GGML_TYPE_F16, 3, 3, 4, 8);   // KW, KH, IC, OC
    ggml_tensor * b = t(GGML_TYPE_F32, 10, 12, 4, 2); // W, H, IC, N
    ggml_tensor * r = ggml_im2col(ctx_, a, b, 1, 1, 1, 1, 1, 1, true, GGML_TYPE_F16);
    expect_layout(r, GGML_TYPE_F16, {36, 10, 12, 2}, {2, 72, 720, 8640});
    EXPECT_EQ(r->op, GGML_OP_IM2COL);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    const int32_t expected[7] = {1, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(r->op_params[i], expected[i]) << i;
    }
    // stride 2, dilation 2, no padding: (10 - 4 - 1) / 2 + 1 = 3, (12 - 4 - 1) / 2 + 1 = 4
    ggml_tensor * r2 = ggml_im2col(ctx_, a, b, 2, 2, 0, 0, 2, 2, true, GGML_TYPE_F32);
    expect_layout(r2, GGML_TYPE_F32, {36, 3, 4, 2}, {4, 144, 432, 1728});
}

TEST_F(ConvOps, Im2col1d) {
    ggml_tensor * a = t(GGML_TYPE_F16, 5, 4, 8);  // K, IC, OC
    ggml_tensor * b = t(GGML_TYPE_F32, 20, 4, 3); // L, IC, N
    ggml_tensor * r = ggml_im2col(ctx_, a, b, 2, 0, 2, 0, 1, 0, false, GGML_TYPE_F32);
    // (20 + 4 - 4 - 1) / 2 + 1 = 10
    expect_layout(r, GGML_TYPE_F32, {20, 10, 3, 1}, {4, 80, 800, 2400});
    const int32_t expected[7] = {2, 0, 2, 0, 1, 0, 0};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(r->op_params[i], expected[i]) << i;
    }
}

TEST_F(ConvOps, Im2colRejects) {
    ggml_tensor *     a   = t(GGML_TYPE_F16, 3, 3, 4, 8);
    const std::string msg = fatal_message([&] {
        ggml_im2col(ctx_, a, t(GGML_TYPE_F32, 10, 12, 3, 2), 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F16);
    });
    EXPECT_EQ(msg.rfind("[ggml_im2col]", 0), 0u) << msg;
    fatal_message([&] { ggml_im2col(ctx_, a, t(GGML_TYPE_F32, 2, 12, 4), 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F16); });
    fatal_message([&] { ggml_im2col(ctx_, a, t(GGML_TYPE_F32, 10, 2, 4), 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F16); });
    fatal_message([&] { ggml_im2col(ctx_, a, t(GGML_TYPE_F32, 10, 12, 4), 0, 1, 0, 0, 1, 1, true, GGML_TYPE_F16); });
    ggml_tensor * k1 = t(GGML_TYPE_F16, 5, 4, 8);
    fatal_message([&] { ggml_im2col(ctx_, k1, t(GGML_TYPE_F32, 20, 3, 3), 1, 0, 0, 0, 1, 0, false, GGML_TYPE_F16); });
    fatal_message([&] { ggml_im2col(ctx_, k1, t(GGML_TYPE_F32, 20, 4, 3, 2), 1, 0, 0, 0, 1, 0, false, GGML_TYPE_F16); });
    EXPECT_EQ(ggml_im2col(ctx_, nullptr, k1, 1, 0, 0, 0, 1, 0, false, GGML_TYPE_F16), nullptr);
}

TEST_F(ConvOps, Conv1dIsIm2colTimesKernel) {
    ggml_tensor * a = t(GGML_TYPE_F16, 5, 4, 8);
    ggml_tensor * b = t(GGML_TYPE_F32, 20, 4, 3);
    ggml_tensor * r = ggml_conv_1d(ctx_, a, b, 1, 2, 1); // OL = 20
    expect_layout(r, GGML_TYPE_F32, {20, 8, 3, 1}, {4, 80, 640, 1920});
    ASSERT_EQ(r->op, GGML_OP_RESHAPE);
    const ggml_tensor * mm = r->src[0];
    ASSERT_EQ(mm->op, GGML_OP_MUL_MAT);
    expect_layout(mm, GGML_TYPE_F32, {60, 8, 1, 1}, {4, 240, 1920, 1920});
    ASSERT_EQ(mm->src[0]->op, GGML_OP_RESHAPE);
    const ggml_tensor * cols = mm->src[0]->src[0];
    EXPECT_EQ(cols->op, GGML_OP_IM2COL);
    expect_layout(cols, GGML_TYPE_F16, {20, 20, 3, 1}, {2, 40, 800, 2400});
    EXPECT_EQ(cols->op_params[2], 2);
    ASSERT_EQ(mm->src[1]->op, GGML_OP_RESHAPE);
    EXPECT_EQ(mm->src[1]->src[0], a);
    expect_layout(mm->src[1], GGML_TYPE_F16, {20, 8, 1, 1}, {2, 40, 320, 320});

    // half-kernel padding: p = 5 / 2 = 2, the same graph
    ggml_tensor * ph = ggml_conv_1d_ph(ctx_, a, b, 1, 1);
    expect_layout(ph, GGML_TYPE_F32, {20, 8, 3, 1}, {4, 80, 640, 1920});
    EXPECT_EQ(ph->src[0]->src[0]->src[0]->op_params[2], 2);
}

TEST_F(ConvOps, Conv2dIsIm2colTimesKernelPermutedToWHCN) {
    ggml_tensor * a = t(GGML_TYPE_F16, 3, 3, 4, 8);
    ggml_tensor * b = t(GGML_TYPE_F32, 10, 12, 4, 2);
    ggml_tensor * r = ggml_conv_2d(ctx_, a, b, 1, 1, 1, 1, 1, 1);
    expect_layout(r, GGML_TYPE_F32, {10, 12, 8, 2}, {4, 40, 480, 3840});
    ASSERT_EQ(r->op, GGML_OP_CONT);
    const ggml_tensor * perm = r->src[0];
    ASSERT_EQ(perm->op, GGML_OP_PERMUTE);
    EXPECT_EQ(perm->op_params[2], 3);
    EXPECT_EQ(perm->op_params[3], 2);
    const ggml_tensor * mm = perm->src[0]->src[0];
    ASSERT_EQ(mm->op, GGML_OP_MUL_MAT);
    expect_layout(mm, GGML_TYPE_F32, {240, 8, 1, 1}, {4, 960, 7680, 7680});
    const ggml_tensor * cols = mm->src[0]->src[0];
    EXPECT_EQ(cols->op, GGML_OP_IM2COL);
    EXPECT_EQ(cols->type, GGML_TYPE_F16); // upstream's column type: F16, F32 for a BF16 kernel
    for (const auto & [kernel, columns] : {std::pair{GGML_TYPE_F32, GGML_TYPE_F16}, std::pair{GGML_TYPE_BF16, GGML_TYPE_F32}}) {
        ggml_tensor * rk = ggml_conv_2d(ctx_, t(kernel, 3, 3, 4, 8), b, 1, 1, 1, 1, 1, 1);
        EXPECT_EQ(rk->src[0]->src[0]->src[0]->src[0]->src[0]->type, columns) << ggml_type_name(kernel);
    }
    EXPECT_EQ(cols->op_params[6], 1);
    EXPECT_EQ(ggml_conv_2d(ctx_, a, nullptr, 1, 1, 0, 0, 1, 1), nullptr);
}

TEST_F(ConvOps, Pool1d) {
    ggml_tensor * a = t(GGML_TYPE_F16, 10, 3);
    ggml_tensor * r = ggml_pool_1d(ctx_, a, GGML_OP_POOL_AVG, 3, 2, 1); // (10 + 2 - 3) / 2 + 1 = 5.5 -> 5
    expect_layout(r, GGML_TYPE_F32, {5, 3, 1, 1}, {4, 20, 60, 60});
    EXPECT_EQ(r->op, GGML_OP_POOL_1D);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], GGML_OP_POOL_AVG);
    EXPECT_EQ(r->op_params[1], 3);
    EXPECT_EQ(r->op_params[2], 2);
    EXPECT_EQ(r->op_params[3], 1);
    EXPECT_EQ(r->op_params[4], 0);
    // the size rule divides in float: (3 - 4) / 2 + 1 = 0.5 -> 0 is rejected
    const std::string msg = fatal_message([&] { ggml_pool_1d(ctx_, t(GGML_TYPE_F32, 3), GGML_OP_POOL_MAX, 4, 2, 0); });
    EXPECT_EQ(msg.rfind("[ggml_pool_1d]", 0), 0u) << msg;
    fatal_message([&] { ggml_pool_1d(ctx_, a, GGML_OP_POOL_MAX, 2, 0, 0); });
}

TEST_F(ConvOps, Pool2d) {
    ggml_tensor * a = t(GGML_TYPE_F16, 8, 6, 3);
    ggml_tensor * r = ggml_pool_2d(ctx_, a, GGML_OP_POOL_MAX, 2, 3, 2, 1, 0.5f, 1.0f);
    // (8 + 1 - 2) / 2 + 1 = 4.5 -> 4, (6 + 2 - 3) / 1 + 1 = 6
    expect_layout(r, GGML_TYPE_F32, {4, 6, 3, 1}, {4, 16, 96, 288});
    EXPECT_EQ(r->op, GGML_OP_POOL_2D);
    const int32_t expected[7] = {GGML_OP_POOL_MAX, 2, 3, 2, 1, 0, 1};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(r->op_params[i], expected[i]) << i;
    }
    fatal_message([&] { ggml_pool_2d(ctx_, a, GGML_OP_POOL_MAX, 2, 9, 1, 1, 0, 0); });
}

TEST_F(ConvOps, PadAddsAtTheEndAndPadExtAtBothEnds) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3, 2, 1);
    ggml_tensor * r = ggml_pad(ctx_, a, 1, 2, 0, 3);
    expect_layout(r, GGML_TYPE_F32, {5, 5, 2, 4}, {4, 20, 100, 200});
    EXPECT_EQ(r->op, GGML_OP_PAD);
    EXPECT_EQ(r->src[0], a);
    const int32_t expected[9] = {0, 1, 0, 2, 0, 0, 0, 3, 0};
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(r->op_params[i], expected[i]) << i;
    }
    ggml_tensor * e = ggml_pad_ext(ctx_, t(GGML_TYPE_F16, 4, 3, 2, 1), 1, 2, 3, 4, 0, 0, 1, 0);
    expect_layout(e, GGML_TYPE_F16, {7, 10, 2, 2}, {2, 14, 140, 280});
    const int32_t expected_ext[9] = {1, 2, 3, 4, 0, 0, 1, 0, 0};
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(e->op_params[i], expected_ext[i]) << i;
    }
    const std::string msg = fatal_message([&] { ggml_pad_ext(ctx_, a, -5, 0, 0, 0, 0, 0, 0, 0); });
    EXPECT_EQ(msg.rfind("[ggml_pad_ext]", 0), 0u) << msg;
    EXPECT_EQ(ggml_pad(ctx_, nullptr, 1, 1, 1, 1), nullptr);
}

} // namespace
