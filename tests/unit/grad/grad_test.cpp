// Gradients of every differentiable op (ggml_build_backward_expand) against central finite differences, on
// small shapes with seeded random values (grad_check.h). One test per op; ops with two differentiable sources
// check both, broadcasting ops also the broadcast source.
#include "grad_check.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using switchyard::testing::check_gradients;
using switchyard::testing::GradBuilder;
using switchyard::testing::GradCheck;
using switchyard::testing::Values;

using B = GradBuilder;

TEST(Grad, Add) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_add(b.ctx(), b.param(5, 4, 3), b.param(5, 4, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_add(b.ctx(), b.param(5, 4, 3), b.param(5, 1, 3)); }), "");
}

TEST(Grad, Add1) {
    // upstream's rule gives b the mean of the gradient (not its sum): checked against that rule
    EXPECT_EQ(check_gradients([](B & b) { return ggml_add1(b.ctx(), b.param(5, 4), b.constant(1)); }), "");
}

TEST(Grad, Sub) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sub(b.ctx(), b.param(5, 4, 3), b.param(5, 4, 3)); }), "");
}

TEST(Grad, Mul) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_mul(b.ctx(), b.param(5, 4, 3), b.param(5, 4, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_mul(b.ctx(), b.param(5, 4, 3), b.param(1, 4, 1)); }), "");
}

TEST(Grad, Div) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_div(b.ctx(), b.param(5, 4, 3), b.param(5, 4, 3, 1, Values::Positive));
              }), "");
}

TEST(Grad, Scale) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_scale(b.ctx(), b.param(7, 3), 1.7f); }), "");
}

TEST(Grad, SqrSqrtLog) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sqr(b.ctx(), b.param(7, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sqrt(b.ctx(), b.param(7, 3, 1, 1, Values::Positive)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_log(b.ctx(), b.param(7, 3, 1, 1, Values::Positive)); }), "");
}

TEST(Grad, SinCos) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sin(b.ctx(), b.param(7, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_cos(b.ctx(), b.param(7, 3)); }), "");
}

TEST(Grad, Sum) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sum(b.ctx(), b.param(6, 4, 2)); }), "");
}

TEST(Grad, SumRows) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_sum_rows(b.ctx(), b.param(6, 4, 2)); }), "");
}

TEST(Grad, Mean) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_mean(b.ctx(), b.param(6, 4, 2)); }), "");
}

TEST(Grad, Repeat) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_repeat(b.ctx(), b.param(3, 2, 1), b.constant(6, 4, 3)); }), "");
}

TEST(Grad, RepeatBack) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_repeat_back(b.ctx(), b.param(6, 4, 3), b.constant(3, 2, 1)); }), "");
}

TEST(Grad, MulMat) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_mul_mat(b.ctx(), b.param(6, 4, 2), b.param(6, 3, 2)); }), "");
    // a broadcast over dim 2 of b
    EXPECT_EQ(check_gradients([](B & b) { return ggml_mul_mat(b.ctx(), b.param(6, 4, 1), b.param(6, 3, 3)); }), "");
}

TEST(Grad, Silu) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_silu(b.ctx(), b.param(9, 4)); }), "");
}

TEST(Grad, UnaryWithRules) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_exp(b.ctx(), b.param(9, 4)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_neg(b.ctx(), b.param(9, 4)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_abs(b.ctx(), b.param(9, 4, 1, 1, Values::AwayFromZero)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_relu(b.ctx(), b.param(9, 4, 1, 1, Values::AwayFromZero)); }), "");
    // rules of ggml 0.25.1: d expm1(x) = exp(x) dx, d softplus(x) = sigmoid(x) dx
    EXPECT_EQ(check_gradients([](B & b) { return ggml_expm1(b.ctx(), b.param(9, 4)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_softplus(b.ctx(), b.param(9, 4)); }), "");
}

TEST(Grad, SwigluSplit) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_swiglu_split(b.ctx(), b.param(8, 3), b.param(8, 3)); }), "");
}

TEST(Grad, SoftMax) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_soft_max(b.ctx(), b.param(7, 4, 2)); }), "");
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_soft_max_ext(b.ctx(), b.param(7, 4, 2), nullptr, 0.6f, 0.0f);
              }), "");
}

TEST(Grad, DiagMaskInfThenSoftMax) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_soft_max(b.ctx(), ggml_diag_mask_inf(b.ctx(), b.param(5, 5, 2), 1)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_diag_mask_zero(b.ctx(), b.param(5, 5, 2), 0); }), "");
}

TEST(Grad, RmsNorm) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_rms_norm(b.ctx(), b.param(11, 3, 2), 1e-5f); }), "");
}

TEST(Grad, GetRows) {
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_get_rows(b.ctx(), b.param(5, 6), b.indices({1, 3, 1, 5, 0}));
              }), "");
}

TEST(Grad, ReshapeViewPermuteTransposeCont) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_reshape_2d(b.ctx(), b.param(6, 4), 8, 3); }), "");
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_tensor * p = b.param(6, 4, 2);
                  return ggml_view_2d(b.ctx(), p, 3, 4, p->nb[1], sizeof(float));
              }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_cont(b.ctx(), ggml_permute(b.ctx(), b.param(4, 3, 2), 2, 0, 1, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_cont(b.ctx(), ggml_transpose(b.ctx(), b.param(5, 3))); }), "");
}

TEST(Grad, CpyAndDup) {
    EXPECT_EQ(check_gradients([](B & b) { return ggml_cpy(b.ctx(), b.param(5, 3), b.constant(5, 3)); }), "");
    EXPECT_EQ(check_gradients([](B & b) { return ggml_dup(b.ctx(), b.param(5, 3)); }), "");
    // a copy into a destination of another shape: element i lands at element i (upstream's test-backend-ops
    // grad mode copies [5, 7, 3, 2] into [3, 5, 7, 2]; the gradient used to keep the destination's shape)
    EXPECT_EQ(check_gradients([](B & b) { return ggml_cpy(b.ctx(), b.param(5, 7, 3, 2), b.constant(3, 5, 7, 2)); }), "");
    EXPECT_EQ(check_gradients([](B & b) {
                  return ggml_cpy(b.ctx(), ggml_permute(b.ctx(), b.param(4, 3, 2), 1, 2, 0, 3), b.constant(6, 4));
              }), "");
}

TEST(Grad, AccAndSet) {
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_tensor * a = b.param(6, 4);
                  return ggml_acc(b.ctx(), a, b.param(3, 2), a->nb[1], a->nb[2], a->nb[3], a->nb[1] + sizeof(float));
              }), "");
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_tensor * a = b.param(6, 4);
                  return ggml_set(b.ctx(), a, b.param(3, 2), a->nb[1], a->nb[2], a->nb[3], 2 * sizeof(float));
              }), "");
}

TEST(Grad, Rope) {
    for (int mode : {GGML_ROPE_TYPE_NORMAL, GGML_ROPE_TYPE_NEOX}) {
        EXPECT_EQ(check_gradients([mode](B & b) {
                      return ggml_rope_ext(b.ctx(), b.param(8, 2, 3), b.indices({0, 5, 11}), nullptr, 6, mode, 64, 100.0f,
                                           1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                  }), "")
            << "mode " << mode;
    }
}

TEST(Grad, RopeMulti) {
    for (int mode : {GGML_ROPE_TYPE_MROPE, GGML_ROPE_TYPE_IMROPE}) {
        EXPECT_EQ(check_gradients([mode](B & b) {
                      int sections[4] = {1, 1, 1, 1};
                      return ggml_rope_multi(b.ctx(), b.param(8, 2, 3), b.indices({0, 5, 11, 2, 3, 4, 7, 1, 9, 6, 8, 10}),
                                             nullptr, 8, sections, mode, 64, 100.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                  }), "")
            << "mode " << mode;
    }
    EXPECT_EQ(check_gradients([](B & b) {
                  int sections[4] = {2, 2, 0, 0};
                  return ggml_rope_multi(b.ctx(), b.param(8, 2, 3), b.indices({0, 5, 11, 2, 3, 4, 7, 1, 9, 6, 8, 10}),
                                         nullptr, 4, sections, GGML_ROPE_TYPE_VISION, 64, 100.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
              }), "");
}

TEST(Grad, CrossEntropyLoss) {
    GradCheck loss_itself;
    loss_itself.weight_output = false;
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_tensor * labels = ggml_soft_max(b.ctx(), b.constant(6, 4));
                  return ggml_cross_entropy_loss(b.ctx(), b.param(6, 4), labels);
              }, loss_itself), "");
}

TEST(Grad, SmallMlpEndToEnd) {
    // logits = W2 silu(rms_norm(W1 x + b1)); loss = cross entropy against soft labels
    GradCheck loss_itself;
    loss_itself.weight_output = false;
    EXPECT_EQ(check_gradients([](B & b) {
                  ggml_context * ctx = b.ctx();
                  ggml_tensor *  x   = b.constant(5, 3);
                  ggml_tensor *  h   = ggml_add(ctx, ggml_mul_mat(ctx, b.param(5, 6), x), b.param(6));
                  h                  = ggml_silu(ctx, ggml_rms_norm(ctx, h, 1e-5f));
                  ggml_tensor * logits = ggml_mul_mat(ctx, b.param(6, 4), h);
                  return ggml_cross_entropy_loss(ctx, logits, ggml_soft_max(ctx, b.constant(4, 3)));
              }, loss_itself), "");
}

TEST(Grad, GradientAccumulatorsAndNames) {
    ggml_init_params ip{16 * 1024 * 1024, nullptr, false};
    ggml_context *   ctx = ggml_init(ip);
    ggml_tensor *    w   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_name(w, "w");
    ggml_set_param(w);
    ggml_tensor * loss = ggml_sum(ctx, ggml_sqr(ctx, w));
    ggml_set_loss(loss);
    ggml_cgraph * g = ggml_new_graph_custom(ctx, 64, true);
    ggml_build_forward_expand(g, loss);
    // the caller's accumulator for w (forward node 0: the parameter comes first), none for the others
    std::vector<ggml_tensor *> accs(static_cast<size_t>(ggml_graph_n_nodes(g)), nullptr);
    ASSERT_EQ(ggml_graph_node(g, 0), w);
    accs[0] = ggml_set_name(ggml_dup_tensor(ctx, w), "my acc for w");
    ggml_build_backward_expand(ctx, g, accs.data());
    ggml_tensor * acc = ggml_graph_get_grad_acc(g, w);
    ASSERT_EQ(acc, accs[0]);
    ASSERT_NE(ggml_graph_get_grad_acc(g, loss), nullptr);
    // with accumulation the parameter's gradient is added into its accumulator in place
    ggml_tensor * grad = ggml_graph_get_grad(g, w);
    ASSERT_NE(grad, nullptr);
    EXPECT_EQ(grad->view_src, acc);
    for (int i = 0; i < 4; ++i) static_cast<float *>(w->data)[i] = static_cast<float>(i);
    ggml_graph_reset(g);
    ggml_graph_compute_with_ctx(ctx, g, 1);
    ggml_graph_compute_with_ctx(ctx, g, 1); // two steps accumulate: 2 * 2w
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(static_cast<float *>(acc->data)[i], 4.0f * static_cast<float>(i));
    ggml_free(ctx);
}

} // namespace
