// Constructors of the training ops: result shapes, types, sources and op_params layouts (upstream's), and the
// shape errors that go through the abort callback. Expected values worked out by hand from the definitions.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using switchyard::testing::expect_layout;

class TrainOps : public switchyard::testing::OpFixture {};

float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

TEST_F(TrainOps, BackOpsTakeTheGradientFirst) {
    ggml_tensor * dy = t(GGML_TYPE_F32, 6, 4);
    ggml_tensor * x  = t(GGML_TYPE_F32, 6, 4);
    ggml_tensor * r  = ggml_silu_back(ctx_, dy, x);
    EXPECT_EQ(r->op, GGML_OP_SILU_BACK);
    EXPECT_EQ(r->src[0], dy);
    EXPECT_EQ(r->src[1], x);
    r = ggml_rms_norm_back(ctx_, dy, x, 0.25f);
    EXPECT_EQ(r->op, GGML_OP_RMS_NORM_BACK);
    EXPECT_EQ(param_f32(r, 0), 0.25f);
    r = ggml_soft_max_ext_back(ctx_, dy, x, 0.5f, 0.0f);
    EXPECT_EQ(r->op, GGML_OP_SOFT_MAX_BACK);
    EXPECT_EQ(param_f32(r, 0), 0.5f);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(ggml_soft_max_ext_back_inplace(ctx_, dy, x, 1.0f, 0.0f)->view_src, dy);
    EXPECT_FALSE(fatal_message([&] { ggml_silu_back(ctx_, dy, t(GGML_TYPE_F32, 6, 5)); }).empty());
}

TEST_F(TrainOps, RepeatBackHasTheShapeOfB) {
    ggml_tensor * r = ggml_repeat_back(ctx_, t(GGML_TYPE_F32, 6, 4, 2), t(GGML_TYPE_F32, 3, 1, 2));
    expect_layout(r, GGML_TYPE_F32, {3, 1, 2, 1}, {4, 12, 12, 24});
    EXPECT_EQ(r->op, GGML_OP_REPEAT_BACK);
    EXPECT_EQ(r->src[1], nullptr);
    EXPECT_FALSE(fatal_message([&] { ggml_repeat_back(ctx_, t(GGML_TYPE_F32, 6, 4), t(GGML_TYPE_F32, 4, 4)); }).empty());
}

TEST_F(TrainOps, GetRowsBackIsShapedLikeTheSource) {
    ggml_tensor * r = ggml_get_rows_back(ctx_, t(GGML_TYPE_F32, 5, 3), t(GGML_TYPE_I32, 3), t(GGML_TYPE_F32, 5, 7));
    expect_layout(r, GGML_TYPE_F32, {5, 7, 1, 1}, {4, 20, 140, 140});
    EXPECT_EQ(r->op, GGML_OP_GET_ROWS_BACK);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_FALSE(fatal_message([&] {
                     ggml_get_rows_back(ctx_, t(GGML_TYPE_F32, 5, 3), t(GGML_TYPE_I32, 3), t(GGML_TYPE_F32, 4, 7));
                 }).empty());
    // fewer indices than gradient rows (upstream's test-backend-ops passes a view of half the indices)
    EXPECT_NE(ggml_get_rows_back(ctx_, t(GGML_TYPE_F32, 5, 4), t(GGML_TYPE_I32, 2), t(GGML_TYPE_F32, 5, 7)), nullptr);
    EXPECT_FALSE(fatal_message([&] {
                     ggml_get_rows_back(ctx_, t(GGML_TYPE_F32, 5, 3), t(GGML_TYPE_F32, 3), t(GGML_TYPE_F32, 5, 7));
                 }).empty());
}

TEST_F(TrainOps, RopeMultiStoresSections) {
    int           sections[4] = {2, 3, 1, 0};
    ggml_tensor * a = t(GGML_TYPE_F32, 16, 2, 5);
    ggml_tensor * r = ggml_rope_multi(ctx_, a, t(GGML_TYPE_I32, 20), nullptr, 12, sections, GGML_ROPE_TYPE_MROPE, 128,
                                      10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    EXPECT_EQ(r->op, GGML_OP_ROPE);
    EXPECT_EQ(r->op_params[1], 12);
    EXPECT_EQ(r->op_params[2], GGML_ROPE_TYPE_MROPE);
    EXPECT_EQ(r->op_params[11], 2);
    EXPECT_EQ(r->op_params[12], 3);
    EXPECT_EQ(r->op_params[13], 1);
    EXPECT_EQ(r->op_params[14], 0);
    EXPECT_EQ(ggml_rope_multi_back(ctx_, a, t(GGML_TYPE_I32, 20), nullptr, 12, sections, GGML_ROPE_TYPE_IMROPE, 128,
                                   10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f)->op, GGML_OP_ROPE_BACK);
    ggml_tensor * back = ggml_rope_ext_back(ctx_, a, t(GGML_TYPE_I32, 5), nullptr, 8, GGML_ROPE_TYPE_NEOX, 128, 10000.0f,
                                            1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    EXPECT_EQ(back->op, GGML_OP_ROPE_BACK);
    EXPECT_EQ(param_f32(back, 5), 10000.0f);
    // a multi-section mode needs 4 positions per token
    EXPECT_FALSE(fatal_message([&] {
                     ggml_rope_multi(ctx_, a, t(GGML_TYPE_I32, 5), nullptr, 12, sections, GGML_ROPE_TYPE_MROPE, 128, 10000.0f,
                                     1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                 }).empty());
    // as upstream's 0.25.1, a plain mode is ggml_rope_ext (one position per token, sections not stored; llama.cpp's
    // hunyuan-dense builds it), and NULL sections of an MROPE mode are stored as zeros
    ggml_tensor * neox = ggml_rope_multi(ctx_, a, t(GGML_TYPE_I32, 5), nullptr, 12, sections, GGML_ROPE_TYPE_NEOX, 128,
                                         10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    ASSERT_NE(neox, nullptr);
    EXPECT_EQ(neox->op_params[2], GGML_ROPE_TYPE_NEOX);
    for (int i = 11; i < 15; ++i) {
        EXPECT_EQ(neox->op_params[i], 0) << i;
    }
    ggml_tensor * unsectioned = ggml_rope_multi(ctx_, a, t(GGML_TYPE_I32, 20), nullptr, 12, nullptr, GGML_ROPE_TYPE_MROPE,
                                                128, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    ASSERT_NE(unsectioned, nullptr);
    EXPECT_EQ(unsectioned->op_params[11], 0);
}

TEST_F(TrainOps, CrossEntropyLossIsAScalar) {
    ggml_tensor * logits = t(GGML_TYPE_F32, 10, 3);
    ggml_tensor * labels = t(GGML_TYPE_F32, 10, 3);
    ggml_tensor * loss   = ggml_cross_entropy_loss(ctx_, logits, labels);
    expect_layout(loss, GGML_TYPE_F32, {1, 1, 1, 1}, {4, 4, 4, 4});
    ggml_tensor * back = ggml_cross_entropy_loss_back(ctx_, loss, logits, labels);
    expect_layout(back, GGML_TYPE_F32, {10, 3, 1, 1}, {4, 40, 120, 120});
    EXPECT_EQ(back->src[0], loss);
    EXPECT_EQ(back->src[1], logits);
    EXPECT_EQ(back->src[2], labels);
    EXPECT_FALSE(fatal_message([&] { ggml_cross_entropy_loss(ctx_, logits, t(GGML_TYPE_F32, 10, 4)); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_cross_entropy_loss_back(ctx_, logits, logits, labels); }).empty());
}

TEST_F(TrainOps, OptimizerStepsAreViewsOfTheParameter) {
    ggml_tensor * w = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * g = t(GGML_TYPE_F32, 4, 3);
    EXPECT_FALSE(fatal_message([&] { ggml_opt_step_sgd(ctx_, w, g, t(GGML_TYPE_F32, 2)); }).empty()); // not a param
    ggml_set_param(w);
    ggml_tensor * sgd = ggml_opt_step_sgd(ctx_, w, g, t(GGML_TYPE_F32, 2));
    EXPECT_EQ(sgd->op, GGML_OP_OPT_STEP_SGD);
    EXPECT_EQ(sgd->view_src, w);
    ggml_tensor * adamw = ggml_opt_step_adamw(ctx_, w, g, t(GGML_TYPE_F32, 4, 3), t(GGML_TYPE_F32, 4, 3), t(GGML_TYPE_F32, 7));
    EXPECT_EQ(adamw->op, GGML_OP_OPT_STEP_ADAMW);
    EXPECT_EQ(adamw->view_src, w);
    EXPECT_NE(adamw->src[4], nullptr);
    EXPECT_FALSE(fatal_message([&] { ggml_opt_step_adamw(ctx_, w, g, g, g, t(GGML_TYPE_F32, 6)); }).empty());
}

TEST_F(TrainOps, BackwardNeedsAParameterAndALoss) {
    ggml_tensor * x    = t(GGML_TYPE_F32, 4);
    ggml_tensor * loss = ggml_sum(ctx_, ggml_sqr(ctx_, x));
    ggml_cgraph * g    = ggml_new_graph_custom(ctx_, 32, true);
    ggml_build_forward_expand(g, loss);
    EXPECT_NE(fatal_message([&] { ggml_build_backward_expand(ctx_, g, nullptr); }).find("ggml_set_param"), std::string::npos);
    ggml_cgraph * no_grads = ggml_new_graph_custom(ctx_, 32, false);
    ggml_build_forward_expand(no_grads, loss);
    EXPECT_FALSE(fatal_message([&] { ggml_build_backward_expand(ctx_, no_grads, nullptr); }).empty());
}

TEST_F(TrainOps, OpsWithoutAGradientRuleAreReported) {
    ggml_tensor * x = t(GGML_TYPE_F32, 4);
    ggml_set_param(x);
    ggml_tensor * loss = ggml_sum(ctx_, ggml_gelu(ctx_, x)); // upstream has no GELU rule
    ggml_set_loss(loss);
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 32, true);
    ggml_build_forward_expand(g, loss);
    EXPECT_NE(fatal_message([&] { ggml_build_backward_expand(ctx_, g, nullptr); }).find("no gradient"), std::string::npos);
}

} // namespace
