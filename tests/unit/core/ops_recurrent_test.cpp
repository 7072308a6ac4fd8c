// Constructors of the state-space and linear-attention ops: result shapes, sources and op_params (upstream's
// layouts), and the shape errors that go through the abort callback (those upstream's constructors reject;
// what they take but no kernel computes, the CPU device refuses). Expected values worked out by hand from the
// definitions in core/ops/recurrent.cpp.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace {

using switchyard::testing::expect_layout;

using switchyard::testing::cpu_supports;

class RecurrentOps : public switchyard::testing::OpFixture {};

TEST_F(RecurrentOps, SsmConvSlidesTheKernelOverTokens) {
    ggml_tensor * sx = t(GGML_TYPE_F32, 7, 5, 2); // d_conv - 1 + n_t = 3 + 4
    ggml_tensor * c  = t(GGML_TYPE_F32, 4, 5);
    ggml_tensor * r  = ggml_ssm_conv(ctx_, sx, c);
    expect_layout(r, GGML_TYPE_F32, {5, 4, 2, 1}, {4, 20, 80, 160});
    EXPECT_EQ(r->op, GGML_OP_SSM_CONV);
    EXPECT_EQ(r->src[0], sx);
    EXPECT_EQ(r->src[1], c);
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_conv(ctx_, t(GGML_TYPE_F32, 7, 6, 2), c); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_conv(ctx_, t(GGML_TYPE_F32, 2, 5, 2), c); }).empty());
}

TEST_F(RecurrentOps, SsmScanPacksOutputsThenStates) {
    ggml_tensor * s   = t(GGML_TYPE_F32, 16, 4, 6, 3);
    ggml_tensor * x   = t(GGML_TYPE_F32, 4, 6, 3, 2);
    ggml_tensor * dt  = t(GGML_TYPE_F32, 6, 3, 2);
    ggml_tensor * A   = t(GGML_TYPE_F32, 1, 6);
    ggml_tensor * B   = t(GGML_TYPE_F32, 16, 2, 3, 2);
    ggml_tensor * C   = t(GGML_TYPE_F32, 16, 2, 3, 2);
    ggml_tensor * ids = t(GGML_TYPE_I32, 2);
    ggml_tensor * r   = ggml_ssm_scan(ctx_, s, x, dt, A, B, C, ids, 1);
    // y: 4*6*3*2 = 144, states: 16*4*6*2 = 768
    expect_layout(r, GGML_TYPE_F32, {912, 1, 1, 1}, {4, 3648, 3648, 3648});
    EXPECT_EQ(r->op, GGML_OP_SSM_SCAN);
    EXPECT_EQ(r->op_params[0], 1);
    const ggml_tensor * want[] = {s, x, dt, A, B, C, ids};
    for (int i = 0; i < 7; ++i) EXPECT_EQ(r->src[i], want[i]) << i;
    // K = 3 kept states: 144 + 3*768 floats, K in op_params[0]
    ggml_tensor * r3 = ggml_ssm_scan(ctx_, s, x, dt, A, B, C, ids, 3);
    ASSERT_NE(r3, nullptr);
    EXPECT_EQ(r3->ne[0], 144 + 3 * 768);
    EXPECT_EQ(r3->op_params[0], 3);
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, A, B, C, ids, 0); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, A, B, C, ids, int64_t{INT32_MAX} + 1); }).empty());
    // Mamba-1: one decay per state element, and only the final state (K = 1)
    EXPECT_NE(ggml_ssm_scan(ctx_, s, x, dt, t(GGML_TYPE_F32, 16, 6), B, C, ids, 1), nullptr);
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, t(GGML_TYPE_F32, 16, 6), B, C, ids, 2); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, t(GGML_TYPE_F32, 8, 6), B, C, ids, 1); }).empty());
    // 4 groups do not divide 6 heads: taken as upstream takes it, and no CPU kernel runs it
    ggml_tensor * B4 = t(GGML_TYPE_F32, 16, 4, 3, 2);
    EXPECT_FALSE(cpu_supports(ggml_ssm_scan(ctx_, s, x, dt, A, B4, B4, ids, 1)));
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, A, B, C, t(GGML_TYPE_I32, 3), 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_ssm_scan(ctx_, s, x, dt, A, B, C, t(GGML_TYPE_F32, 2), 1); }).empty());
}

TEST_F(RecurrentOps, RwkvAndGlaAppendTheStatesAfterTheTokens) {
    // S = 8, H = 3, T = 6 tokens in 2 sequences -> [24, 6 + 8*2]
    auto          tok   = [&] { return t(GGML_TYPE_F32, 8, 3, 6); };
    ggml_tensor * state = t(GGML_TYPE_F32, 8 * 8 * 3, 2);
    ggml_tensor * k = tok(), *v = tok(), *r = tok(), *td = tok();
    ggml_tensor * tf = t(GGML_TYPE_F32, 8, 3);
    ggml_tensor * w6 = ggml_rwkv_wkv6(ctx_, k, v, r, tf, td, state);
    expect_layout(w6, GGML_TYPE_F32, {24, 22, 1, 1}, {4, 96, 2112, 2112});
    EXPECT_EQ(w6->op, GGML_OP_RWKV_WKV6);
    EXPECT_EQ(w6->src[3], tf);
    EXPECT_EQ(w6->src[5], state);

    ggml_tensor * gla = ggml_gated_linear_attn(ctx_, k, v, r, td, state, 0.125f);
    expect_layout(gla, GGML_TYPE_F32, {24, 22, 1, 1}, {4, 96, 2112, 2112});
    float scale;
    std::memcpy(&scale, &gla->op_params[0], sizeof(scale));
    EXPECT_EQ(scale, 0.125f);
    EXPECT_EQ(gla->src[4], state);

    ggml_tensor * a = tok(), *b = tok();
    ggml_tensor * w7 = ggml_rwkv_wkv7(ctx_, r, td, k, v, a, b, state);
    expect_layout(w7, GGML_TYPE_F32, {24, 22, 1, 1}, {4, 96, 2112, 2112});
    EXPECT_EQ(w7->src[0], r);
    EXPECT_EQ(w7->src[2], k);
    EXPECT_EQ(w7->src[6], state);

    EXPECT_TRUE(cpu_supports(w6));
    EXPECT_TRUE(cpu_supports(gla));
    EXPECT_TRUE(cpu_supports(w7));

    // a state of the wrong size; an input of another shape
    EXPECT_FALSE(fatal_message([&] { ggml_gated_linear_attn(ctx_, k, v, r, td, t(GGML_TYPE_F32, 100, 2), 1.0f); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_rwkv_wkv7(ctx_, r, td, k, t(GGML_TYPE_F32, 8, 3, 5), a, b, state); }).empty());
    // taken as upstream takes them, and no CPU kernel runs them: 6 tokens in 4 sequences, r of another shape in
    // wkv7. A time_first of another size is supported and fails when computed (llama.cpp asks with its real
    // time_first beside made-up tokens: cpu/data_error_test.cpp)
    EXPECT_FALSE(cpu_supports(ggml_rwkv_wkv6(ctx_, k, v, r, tf, td, t(GGML_TYPE_F32, 192, 4))));
    EXPECT_TRUE(cpu_supports(ggml_rwkv_wkv6(ctx_, k, v, r, t(GGML_TYPE_F32, 8, 2), td, state)));
    EXPECT_FALSE(cpu_supports(ggml_rwkv_wkv7(ctx_, t(GGML_TYPE_F32, 8, 3, 5), td, k, v, a, b, state)));
}

TEST_F(RecurrentOps, SolveTriAcceptsUpstreamsOneVariant) {
    ggml_tensor * A = t(GGML_TYPE_F32, 7, 7, 2);
    ggml_tensor * B = t(GGML_TYPE_F32, 5, 7, 2);
    ggml_tensor * X = ggml_solve_tri(ctx_, A, B, true, true, false);
    expect_layout(X, GGML_TYPE_F32, {5, 7, 2, 1}, {4, 20, 140, 280});
    EXPECT_EQ(X->op, GGML_OP_SOLVE_TRI);
    EXPECT_EQ(X->src[0], A);
    EXPECT_EQ(X->src[1], B);
    EXPECT_FALSE(fatal_message([&] { ggml_solve_tri(ctx_, A, B, false, true, false); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_solve_tri(ctx_, A, B, true, false, false); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_solve_tri(ctx_, A, B, true, true, true); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_solve_tri(ctx_, t(GGML_TYPE_F32, 7, 6, 2), B, true, true, false); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_solve_tri(ctx_, A, t(GGML_TYPE_F32, 5, 7, 3), true, true, false); }).empty());
}

TEST_F(RecurrentOps, GatedDeltaNetStoresKSnapshots) {
    ggml_tensor * q     = t(GGML_TYPE_F32, 8, 2, 5, 1);
    ggml_tensor * k     = t(GGML_TYPE_F32, 8, 2, 5, 1);
    ggml_tensor * v     = t(GGML_TYPE_F32, 8, 4, 5, 2);
    ggml_tensor * g     = t(GGML_TYPE_F32, 1, 4, 5, 2);
    ggml_tensor * beta  = t(GGML_TYPE_F32, 1, 4, 5, 2);
    ggml_tensor * state = t(GGML_TYPE_F32, 8, 8, 4, 2);
    ggml_tensor * r     = ggml_gated_delta_net(ctx_, q, k, v, g, beta, state, 3);
    // [S_v*H, n_t*n_s + K*S_v*n_s] = [32, 10 + 48]
    expect_layout(r, GGML_TYPE_F32, {32, 58, 1, 1}, {4, 128, 7424, 7424});
    EXPECT_EQ(r->op, GGML_OP_GATED_DELTA_NET);
    EXPECT_EQ(r->op_params[0], 3);
    const ggml_tensor * want[] = {q, k, v, g, beta, state};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(r->src[i], want[i]) << i;
    // a gate per key element (KDA)
    EXPECT_NE(ggml_gated_delta_net(ctx_, q, k, v, t(GGML_TYPE_F32, 8, 4, 5, 2), beta, state, 1), nullptr);
    EXPECT_FALSE(fatal_message([&] { ggml_gated_delta_net(ctx_, q, k, v, g, beta, state, 0); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_gated_delta_net(ctx_, q, k, v, t(GGML_TYPE_F32, 2, 4, 5, 2), beta, state, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_gated_delta_net(ctx_, q, k, v, g, t(GGML_TYPE_F32, 2, 4, 5, 2), state, 1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_gated_delta_net(ctx_, q, k, v, g, beta, t(GGML_TYPE_F32, 8, 8, 4, 1), 1); }).empty());
    EXPECT_TRUE(cpu_supports(r));
    // 3 query sequences do not divide 2 value sequences; a gate or beta of other extents: taken as upstream takes
    // them, and no CPU kernel runs them
    ggml_tensor * q3 = t(GGML_TYPE_F32, 8, 2, 5, 3);
    EXPECT_FALSE(cpu_supports(ggml_gated_delta_net(ctx_, q3, q3, v, g, beta, state, 1)));
    EXPECT_FALSE(cpu_supports(ggml_gated_delta_net(ctx_, q, k, v, t(GGML_TYPE_F32, 1, 4, 5, 1), beta, state, 1)));
    EXPECT_FALSE(cpu_supports(ggml_gated_delta_net(ctx_, q, k, v, g, t(GGML_TYPE_F32, 1, 2, 5, 2), state, 1)));
    EXPECT_FALSE(fatal_message([&] { ggml_gated_delta_net(ctx_, q, k, v, g, beta, t(GGML_TYPE_F16, 8, 8, 4, 2), 1); }).empty());
}

} // namespace
