// REPEAT (and repeat_4d), CONCAT, SCALE / scale_bias, CLAMP, LEAKY_RELU, ARANGE, TIMESTEP_EMBEDDING, ARGSORT (and
// argsort_top_k) and TOP_K: shapes, types, op_params and the rejected cases.
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

class MiscOps : public switchyard::testing::OpFixture {};

TEST_F(MiscOps, RepeatTilesAToBsShape) {
    ggml_tensor * a = t(GGML_TYPE_F16, 2, 1, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 4, 5, 3, 2);
    ggml_tensor * r = ggml_repeat(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F16, {4, 5, 3, 2}, {2, 8, 40, 120});
    EXPECT_EQ(r->op, GGML_OP_REPEAT);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr); // only b's shape is used
    // same shape: still a REPEAT node
    ggml_tensor * same = ggml_repeat(ctx_, a, t(GGML_TYPE_F16, 2, 1, 3));
    EXPECT_NE(same, a);
    EXPECT_EQ(same->op, GGML_OP_REPEAT);
    expect_layout(ggml_repeat_4d(ctx_, a, 6, 2, 3, 1), GGML_TYPE_F16, {6, 2, 3, 1}, {2, 12, 24, 72});

    const std::string msg = fatal_message([&] { ggml_repeat(ctx_, a, t(GGML_TYPE_F32, 3, 5, 3, 2)); });
    EXPECT_EQ(msg.rfind("[ggml_repeat]", 0), 0u) << msg;
    fatal_message([&] { ggml_repeat_4d(ctx_, a, 4, 1, 2, 1); });
    EXPECT_EQ(ggml_repeat(ctx_, a, nullptr), nullptr);
}

TEST_F(MiscOps, ConcatJoinsAlongDim) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3, 2);
    ggml_tensor * b = t(GGML_TYPE_F32, 4, 5, 2);
    ggml_tensor * r = ggml_concat(ctx_, a, b, 1);
    expect_layout(r, GGML_TYPE_F32, {4, 8, 2, 1}, {4, 16, 128, 256});
    EXPECT_EQ(r->op, GGML_OP_CONCAT);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->op_params[0], 1);
    ggml_tensor * r3 = ggml_concat(ctx_, a, a, 3);
    expect_layout(r3, GGML_TYPE_F32, {4, 3, 2, 2}, {4, 16, 48, 96});
    EXPECT_EQ(r3->op_params[0], 3);

    const std::string msg = fatal_message([&] { ggml_concat(ctx_, a, b, 0); });
    EXPECT_EQ(msg.rfind("[ggml_concat]", 0), 0u) << msg;
    fatal_message([&] { ggml_concat(ctx_, a, t(GGML_TYPE_F16, 4, 5, 2), 1); });
    fatal_message([&] { ggml_concat(ctx_, a, a, 4); });
    fatal_message([&] { ggml_concat(ctx_, a, a, -1); });
}

TEST_F(MiscOps, ScaleStoresScaleAndBias) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * r = ggml_scale(ctx_, a, 0.5f);
    expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_SCALE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(param_f32(r, 0), 0.5f);
    EXPECT_EQ(param_f32(r, 1), 0.0f);
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * rb = ggml_scale_bias(ctx_, a, 2.0f, -1.0f);
    EXPECT_EQ(param_f32(rb, 0), 2.0f);
    EXPECT_EQ(param_f32(rb, 1), -1.0f);
    ggml_tensor * ri = ggml_scale_inplace(ctx_, a, 3.0f);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(param_f32(ri, 0), 3.0f);
    ggml_tensor * rbi = ggml_scale_bias_inplace(ctx_, a, 3.0f, 4.0f);
    EXPECT_EQ(rbi->view_src, a);
    EXPECT_EQ(param_f32(rbi, 1), 4.0f);
    // rows may be padded (a view of every other row), elements may not be strided
    ggml_tensor * rows = ggml_view_2d(ctx_, t(GGML_TYPE_F32, 4, 6), 4, 3, 32, 0);
    EXPECT_NE(ggml_scale(ctx_, rows, 2.0f), nullptr);
    const std::string msg = fatal_message([&] { ggml_scale(ctx_, ggml_transpose(ctx_, a), 2.0f); });
    EXPECT_EQ(msg.rfind("[ggml_scale]", 0), 0u) << msg;
}

// ggml 0.25.1: ggml_clamp is out of place, ggml_clamp_inplace a view of a
TEST_F(MiscOps, ClampIsANewTensorAndClampInplaceAViewOfA) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * r = ggml_clamp(ctx_, a, -1.5f, 2.5f);
    expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_CLAMP);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_NE(r->data, a->data);
    EXPECT_EQ(param_f32(r, 0), -1.5f);
    EXPECT_EQ(param_f32(r, 1), 2.5f);
    ggml_tensor * v = ggml_clamp_inplace(ctx_, a, -0.5f, 0.5f);
    expect_layout(v, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(v->op, GGML_OP_CLAMP);
    EXPECT_EQ(v->src[0], a);
    EXPECT_EQ(v->view_src, a);
    EXPECT_EQ(param_f32(v, 0), -0.5f);
    EXPECT_EQ(param_f32(v, 1), 0.5f);
}

TEST_F(MiscOps, LeakyReluStoresTheSlope) {
    ggml_tensor * a = t(GGML_TYPE_F16, 4, 3);
    ggml_tensor * r = ggml_leaky_relu(ctx_, a, 0.01f, false);
    expect_layout(r, GGML_TYPE_F16, {4, 3, 1, 1}, {2, 8, 24, 24});
    EXPECT_EQ(r->op, GGML_OP_LEAKY_RELU);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(param_f32(r, 0), 0.01f);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(ggml_leaky_relu(ctx_, a, 0.2f, true)->view_src, a);
}

TEST_F(MiscOps, ArangeHasNoSources) {
    ggml_tensor * r = ggml_arange(ctx_, 0.0f, 10.0f, 3.0f); // 0, 3, 6, 9
    expect_layout(r, GGML_TYPE_F32, {4, 1, 1, 1}, {4, 16, 16, 16});
    EXPECT_EQ(r->op, GGML_OP_ARANGE);
    EXPECT_EQ(r->src[0], nullptr);
    EXPECT_EQ(param_f32(r, 0), 0.0f);
    EXPECT_EQ(param_f32(r, 1), 10.0f);
    EXPECT_EQ(param_f32(r, 2), 3.0f);
    expect_layout(ggml_arange(ctx_, -2.0f, 2.0f, 1.0f), GGML_TYPE_F32, {4, 1, 1, 1}, {4, 16, 16, 16});
    const std::string msg = fatal_message([&] { ggml_arange(ctx_, 5.0f, 5.0f, 1.0f); });
    EXPECT_EQ(msg.rfind("[ggml_arange]", 0), 0u) << msg;
    fatal_message([&] { ggml_arange(ctx_, 0.0f, 5.0f, 0.0f); });
}

TEST_F(MiscOps, TimestepEmbeddingIsDimByN) {
    ggml_tensor * ts = t(GGML_TYPE_F32, 6);
    ggml_tensor * r  = ggml_timestep_embedding(ctx_, ts, 15, 10000);
    expect_layout(r, GGML_TYPE_F32, {15, 6, 1, 1}, {4, 60, 360, 360});
    EXPECT_EQ(r->op, GGML_OP_TIMESTEP_EMBEDDING);
    EXPECT_EQ(r->src[0], ts);
    EXPECT_EQ(r->op_params[0], 15);
    EXPECT_EQ(r->op_params[1], 10000);
    EXPECT_EQ(ggml_timestep_embedding(ctx_, nullptr, 4, 100), nullptr);
}

TEST_F(MiscOps, ArgsortGivesI32IndicesOfAsShape) {
    ggml_tensor * a = t(GGML_TYPE_F32, 5, 3, 2);
    ggml_tensor * r = ggml_argsort(ctx_, a, GGML_SORT_ORDER_DESC);
    expect_layout(r, GGML_TYPE_I32, {5, 3, 2, 1}, {4, 20, 60, 120});
    EXPECT_EQ(r->op, GGML_OP_ARGSORT);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 1);
    EXPECT_EQ(ggml_argsort(ctx_, a, GGML_SORT_ORDER_ASC)->op_params[0], 0);
}

TEST_F(MiscOps, TopKGivesKIndicesPerRow) {
    ggml_tensor * a = t(GGML_TYPE_F32, 10, 3);
    ggml_tensor * r = ggml_top_k(ctx_, a, 4);
    expect_layout(r, GGML_TYPE_I32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_TOP_K);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 0);
    expect_layout(ggml_top_k(ctx_, a, 10), GGML_TYPE_I32, {10, 3, 1, 1}, {4, 40, 120, 120});
    const std::string msg = fatal_message([&] { ggml_top_k(ctx_, a, 11); });
    EXPECT_EQ(msg.rfind("[ggml_top_k]", 0), 0u) << msg;
    fatal_message([&] { ggml_top_k(ctx_, a, -1); });
}

// a view (op VIEW) of the first k columns of a descending ARGSORT, with the argsort's strides
TEST_F(MiscOps, ArgsortTopKIsAViewOfADescendingArgsort) {
    ggml_tensor * a = t(GGML_TYPE_F32, 10, 3, 2);
    ggml_tensor * r = ggml_argsort_top_k(ctx_, a, 4);
    expect_layout(r, GGML_TYPE_I32, {4, 3, 2, 1}, {4, 40, 120, 240});
    EXPECT_EQ(r->op, GGML_OP_VIEW);
    ASSERT_NE(r->view_src, nullptr);
    EXPECT_EQ(r->view_offs, 0u);
    const ggml_tensor * sorted = r->src[0];
    ASSERT_NE(sorted, nullptr);
    EXPECT_EQ(r->view_src, sorted);
    expect_layout(sorted, GGML_TYPE_I32, {10, 3, 2, 1}, {4, 40, 120, 240});
    EXPECT_EQ(sorted->op, GGML_OP_ARGSORT);
    EXPECT_EQ(sorted->src[0], a);
    EXPECT_EQ(sorted->op_params[0], static_cast<int32_t>(GGML_SORT_ORDER_DESC));
    expect_layout(ggml_argsort_top_k(ctx_, a, 10), GGML_TYPE_I32, {10, 3, 2, 1}, {4, 40, 120, 240});
    const std::string msg = fatal_message([&] { ggml_argsort_top_k(ctx_, a, 11); });
    EXPECT_EQ(msg.rfind("[ggml_argsort_top_k]", 0), 0u) << msg;
    fatal_message([&] { ggml_argsort_top_k(ctx_, a, -1); });
    EXPECT_EQ(ggml_argsort_top_k(ctx_, nullptr, 1), nullptr);
}

TEST_F(MiscOps, NullInputsGiveNull) {
    EXPECT_EQ(ggml_concat(ctx_, nullptr, t(GGML_TYPE_F32, 4), 0), nullptr);
    EXPECT_EQ(ggml_scale(ctx_, nullptr, 1.0f), nullptr);
    EXPECT_EQ(ggml_clamp(ctx_, nullptr, 0.0f, 1.0f), nullptr);
    EXPECT_EQ(ggml_leaky_relu(ctx_, nullptr, 0.1f, true), nullptr);
    EXPECT_EQ(ggml_argsort(ctx_, nullptr, GGML_SORT_ORDER_ASC), nullptr);
    EXPECT_EQ(ggml_top_k(ctx_, nullptr, 1), nullptr);
    EXPECT_EQ(ggml_repeat_4d(ctx_, nullptr, 1, 1, 1, 1), nullptr);
}

} // namespace
