// Reductions (SUM, SUM_ROWS, MEAN, ARGMAX) and normalisation (NORM, RMS_NORM, L2_NORM, GROUP_NORM): result
// shapes and types, eps / n_groups in op_params, `_inplace` views, rejected shapes.
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

class ReduceNormOps : public switchyard::testing::OpFixture {};

TEST_F(ReduceNormOps, SumGivesOneElementOfAsType) {
    ggml_tensor * a = t(GGML_TYPE_F16, 4, 3, 2);
    ggml_tensor * r = ggml_sum(ctx_, a);
    expect_layout(r, GGML_TYPE_F16, {1, 1, 1, 1}, {2, 2, 2, 2});
    EXPECT_EQ(r->op, GGML_OP_SUM);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
}

TEST_F(ReduceNormOps, SumRowsKeepsTheOuterDims) {
    ggml_tensor * a = t(GGML_TYPE_F32, 5, 3, 2, 2);
    ggml_tensor * r = ggml_sum_rows(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {1, 3, 2, 2}, {4, 4, 12, 24});
    EXPECT_EQ(r->op, GGML_OP_SUM_ROWS);
    EXPECT_EQ(r->src[0], a);
}

TEST_F(ReduceNormOps, MeanIsF32PerRow) {
    ggml_tensor * a = t(GGML_TYPE_F16, 5, 3);
    ggml_tensor * r = ggml_mean(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {1, 3, 1, 1}, {4, 4, 12, 12});
    EXPECT_EQ(r->op, GGML_OP_MEAN);
    EXPECT_EQ(r->src[0], a);
}

TEST_F(ReduceNormOps, ArgmaxGivesOneI32PerRowOfAMatrix) {
    ggml_tensor * a = t(GGML_TYPE_F32, 7, 3);
    ggml_tensor * r = ggml_argmax(ctx_, a);
    expect_layout(r, GGML_TYPE_I32, {3, 1, 1, 1}, {4, 12, 12, 12});
    EXPECT_EQ(r->op, GGML_OP_ARGMAX);
    EXPECT_EQ(r->src[0], a);
    const std::string msg = fatal_message([&] { ggml_argmax(ctx_, t(GGML_TYPE_F32, 7, 3, 2)); });
    EXPECT_EQ(msg.rfind("[ggml_argmax]", 0), 0u) << msg;
    EXPECT_NE(msg.find("f32 [7, 3, 2, 1]"), std::string::npos) << msg;
    fatal_message([&] { ggml_argmax(ctx_, t(GGML_TYPE_F32, 7, 1, 1, 2)); });
}

TEST_F(ReduceNormOps, CumsumKeepsAsShapeAndTakesOnlyF32) {
    ggml_tensor * a = t(GGML_TYPE_F32, 7, 3, 2);
    ggml_tensor * r = ggml_cumsum(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {7, 3, 2, 1}, {4, 28, 84, 168});
    EXPECT_EQ(r->op, GGML_OP_CUMSUM);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
    EXPECT_EQ(r->view_src, nullptr);
    // a permuted a gives a contiguous result of the permuted shape
    expect_layout(ggml_cumsum(ctx_, ggml_transpose(ctx_, a)), GGML_TYPE_F32, {3, 7, 2, 1}, {4, 12, 84, 168});
    const std::string msg = fatal_message([&] { ggml_cumsum(ctx_, t(GGML_TYPE_F16, 7, 3)); });
    EXPECT_EQ(msg.rfind("[ggml_cumsum]", 0), 0u) << msg;
}

TEST_F(ReduceNormOps, ReductionsPassNullOn) {
    EXPECT_EQ(ggml_cumsum(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_sum(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_sum_rows(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_mean(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_argmax(ctx_, nullptr), nullptr);
}

TEST_F(ReduceNormOps, EpsNormsStoreEpsInSlotZero) {
    using Norm = ggml_tensor * (*) (ggml_context *, ggml_tensor *, float);
    struct Case {
        Norm    plain;
        Norm    inplace;
        ggml_op op;
    };
    const Case cases[] = {
        {ggml_norm, ggml_norm_inplace, GGML_OP_NORM},
        {ggml_rms_norm, ggml_rms_norm_inplace, GGML_OP_RMS_NORM},
        {ggml_l2_norm, ggml_l2_norm_inplace, GGML_OP_L2_NORM},
    };
    ggml_tensor * a = t(GGML_TYPE_F32, 8, 3, 2);
    for (const auto & c : cases) {
        SCOPED_TRACE(ggml_op_name(c.op));
        ggml_tensor * r = c.plain(ctx_, a, 1e-5f);
        expect_layout(r, GGML_TYPE_F32, {8, 3, 2, 1}, {4, 32, 96, 192});
        EXPECT_EQ(r->op, c.op);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(param_f32(r, 0), 1e-5f);
        EXPECT_EQ(r->op_params[1], 0);
        EXPECT_EQ(r->view_src, nullptr);
        ggml_tensor * ri = c.inplace(ctx_, a, 0.25f);
        EXPECT_EQ(ri->op, c.op);
        EXPECT_EQ(param_f32(ri, 0), 0.25f);
        EXPECT_EQ(ri->view_src, a);
        EXPECT_EQ(ri->data, a->data);
        EXPECT_EQ(c.plain(ctx_, nullptr, 1.0f), nullptr);
    }
}

TEST_F(ReduceNormOps, GroupNormStoresGroupsThenEps) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 4, 8);
    ggml_tensor * r = ggml_group_norm(ctx_, a, 4, 1e-6f);
    expect_layout(r, GGML_TYPE_F32, {4, 4, 8, 1}, {4, 16, 64, 512});
    EXPECT_EQ(r->op, GGML_OP_GROUP_NORM);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 4);
    EXPECT_EQ(param_f32(r, 1), 1e-6f);
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * ri = ggml_group_norm_inplace(ctx_, a, 2, 0.5f);
    EXPECT_EQ(ri->op_params[0], 2);
    EXPECT_EQ(param_f32(ri, 1), 0.5f);
    EXPECT_EQ(ri->view_src, a);
}

} // namespace
