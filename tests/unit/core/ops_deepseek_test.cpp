// Constructors of the DeepSeek V3.2 / V4 ops: result shapes, sources and op_params (upstream's layouts), and the
// shape errors that go through the abort callback. Expected values worked out by hand from the definitions in
// core/ops/deepseek.cpp.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using switchyard::testing::expect_layout;

class DeepseekOps : public switchyard::testing::OpFixture {};

TEST_F(DeepseekOps, LightningIndexerScoresEveryKeyForEveryToken) {
    // n_embd 16, 4 heads, 3 tokens, 10 keys, 2 streams sharing one mask
    ggml_tensor * q    = t(GGML_TYPE_F32, 16, 4, 3, 2);
    ggml_tensor * k    = t(GGML_TYPE_F16, 16, 1, 10, 2);
    ggml_tensor * w    = t(GGML_TYPE_F32, 4, 3, 1, 2);
    ggml_tensor * mask = t(GGML_TYPE_F16, 10, 3, 1, 1);
    ggml_tensor * r    = ggml_lightning_indexer(ctx_, q, k, w, mask);
    expect_layout(r, GGML_TYPE_F32, {10, 3, 1, 2}, {4, 40, 120, 120});
    EXPECT_EQ(r->op, GGML_OP_LIGHTNING_INDEXER);
    const ggml_tensor * want[] = {q, k, w, mask};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r->src[i], want[i]) << i;
    // a mask per stream is accepted too; 3 mask streams do not divide 2
    EXPECT_NE(ggml_lightning_indexer(ctx_, q, k, w, t(GGML_TYPE_F16, 10, 3, 1, 2)), nullptr);
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, k, w, t(GGML_TYPE_F16, 10, 3, 1, 3)); }).empty());
    // the mask must be f16, q and weights f32
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, k, w, t(GGML_TYPE_F32, 10, 3, 1, 1)); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, t(GGML_TYPE_F16, 16, 4, 3, 2), k, w, mask); }).empty());
    // k with more than one head, a different embedding, other streams; weights and mask of other sizes
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, t(GGML_TYPE_F16, 16, 2, 10, 2), w, mask); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, t(GGML_TYPE_F16, 8, 1, 10, 2), w, mask); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, t(GGML_TYPE_F16, 16, 1, 10, 1), w, mask); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, k, t(GGML_TYPE_F32, 3, 3, 1, 2), mask); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, k, w, t(GGML_TYPE_F16, 9, 3, 1, 1)); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_lightning_indexer(ctx_, q, k, w, t(GGML_TYPE_F16, 10, 2, 1, 1)); }).empty());
}

TEST_F(DeepseekOps, HcCombStoresEpsThenIterations) {
    ggml_tensor * mixes = t(GGML_TYPE_F32, 24, 5);
    ggml_tensor * scale = t(GGML_TYPE_F32, 3);
    ggml_tensor * base  = t(GGML_TYPE_F32, 24);
    ggml_tensor * r     = ggml_dsv4_hc_comb(ctx_, mixes, scale, base, 1e-6f, 20);
    expect_layout(r, GGML_TYPE_F32, {4, 4, 5, 1}, {4, 16, 64, 320});
    EXPECT_EQ(r->op, GGML_OP_DSV4_HC_COMB);
    EXPECT_EQ(r->src[0], mixes);
    EXPECT_EQ(r->src[1], scale);
    EXPECT_EQ(r->src[2], base);
    float eps = 0;
    std::memcpy(&eps, &r->op_params[0], sizeof(eps));
    EXPECT_EQ(eps, 1e-6f);
    EXPECT_EQ(r->op_params[1], 20);
    // 15 mixes are 3 streams ((2 + 3)*3): only 4 are supported; 25 mixes are no stream count at all
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, t(GGML_TYPE_F32, 15, 5), scale, t(GGML_TYPE_F32, 15), 0, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, t(GGML_TYPE_F32, 25, 5), scale, t(GGML_TYPE_F32, 25), 0, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, mixes, t(GGML_TYPE_F32, 2), base, 0, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, mixes, scale, t(GGML_TYPE_F32, 23), 0, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, mixes, scale, base, 0, 0); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_comb(ctx_, t(GGML_TYPE_F32, 24, 5, 2), scale, base, 0, 1); }).empty());
}

TEST_F(DeepseekOps, HcPreAndPostMoveBetweenOneAndHcStreams) {
    ggml_tensor * x   = t(GGML_TYPE_F32, 8, 4, 3); // [n_embd, hc, n_tokens]
    ggml_tensor * w   = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * pre = ggml_dsv4_hc_pre(ctx_, x, w);
    expect_layout(pre, GGML_TYPE_F32, {8, 3, 1, 1}, {4, 32, 96, 96});
    EXPECT_EQ(pre->op, GGML_OP_DSV4_HC_PRE);
    EXPECT_EQ(pre->src[0], x);
    EXPECT_EQ(pre->src[1], w);
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_pre(ctx_, x, t(GGML_TYPE_F32, 3, 3)); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_pre(ctx_, x, t(GGML_TYPE_F32, 4, 2)); }).empty());
    // op_params as upstream's: [0] scale (1 ungated), [1] gated
    EXPECT_EQ(switchyard::testing::param_f32(pre, 0), 1.0f);
    EXPECT_EQ(pre->op_params[1], 0);
    // gated: a gate per element of x, and a scale
    ggml_tensor * gate  = t(GGML_TYPE_F32, 8, 4, 3);
    ggml_tensor * gated = ggml_dsv4_hc_pre_gated(ctx_, x, gate, 0.5f);
    expect_layout(gated, GGML_TYPE_F32, {8, 3, 1, 1}, {4, 32, 96, 96});
    EXPECT_EQ(gated->op, GGML_OP_DSV4_HC_PRE);
    EXPECT_EQ(gated->src[1], gate);
    EXPECT_EQ(switchyard::testing::param_f32(gated, 0), 0.5f);
    EXPECT_EQ(gated->op_params[1], 1);
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_pre_gated(ctx_, x, w, 1.0f); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_pre_gated(ctx_, x, t(GGML_TYPE_F32, 8, 4, 2), 1.0f); }).empty());

    ggml_tensor * post = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * comb = t(GGML_TYPE_F32, 4, 4, 3);
    ggml_tensor * r    = ggml_dsv4_hc_post(ctx_, pre, x, post, comb);
    expect_layout(r, GGML_TYPE_F32, {8, 4, 3, 1}, {4, 32, 128, 384});
    EXPECT_EQ(r->op, GGML_OP_DSV4_HC_POST);
    const ggml_tensor * want[] = {pre, x, post, comb};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r->src[i], want[i]) << i;
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_post(ctx_, t(GGML_TYPE_F32, 8, 2), x, post, comb); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_post(ctx_, pre, x, t(GGML_TYPE_F32, 3, 3), comb); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_post(ctx_, pre, x, post, t(GGML_TYPE_F32, 4, 3, 3)); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_dsv4_hc_post(ctx_, pre, t(GGML_TYPE_F16, 8, 4, 3), post, comb); }).empty());
    // comb NULL: the identity (as upstream), src[3] NULL
    ggml_tensor * id = ggml_dsv4_hc_post(ctx_, pre, x, post, nullptr);
    ASSERT_NE(id, nullptr);
    expect_layout(id, GGML_TYPE_F32, {8, 4, 3, 1}, {4, 32, 128, 384});
    EXPECT_EQ(id->src[3], nullptr);
}

} // namespace
