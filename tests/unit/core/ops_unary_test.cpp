// UNARY and GLU constructors: every named activation sets op UNARY with its sub-op in op_params[0]; `_inplace`
// forms are views of a; GLU fused (half rows, swapped flag) and split forms, SWIGLU_OAI's alpha/limit slots,
// and the layouts each rejects.
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

class UnaryOps : public switchyard::testing::OpFixture {};

using Unary = ggml_tensor * (*) (ggml_context *, ggml_tensor *);

struct UnaryCase {
    Unary         plain;
    Unary         inplace; // nullptr where ggml.h declares none
    ggml_unary_op op;
};

const UnaryCase kUnary[] = {
    {ggml_abs, ggml_abs_inplace, GGML_UNARY_OP_ABS},
    {ggml_sgn, ggml_sgn_inplace, GGML_UNARY_OP_SGN},
    {ggml_neg, ggml_neg_inplace, GGML_UNARY_OP_NEG},
    {ggml_step, ggml_step_inplace, GGML_UNARY_OP_STEP},
    {ggml_tanh, ggml_tanh_inplace, GGML_UNARY_OP_TANH},
    {ggml_elu, ggml_elu_inplace, GGML_UNARY_OP_ELU},
    {ggml_relu, ggml_relu_inplace, GGML_UNARY_OP_RELU},
    {ggml_sigmoid, ggml_sigmoid_inplace, GGML_UNARY_OP_SIGMOID},
    {ggml_gelu, ggml_gelu_inplace, GGML_UNARY_OP_GELU},
    {ggml_gelu_erf, ggml_gelu_erf_inplace, GGML_UNARY_OP_GELU_ERF},
    {ggml_gelu_quick, ggml_gelu_quick_inplace, GGML_UNARY_OP_GELU_QUICK},
    {ggml_silu, ggml_silu_inplace, GGML_UNARY_OP_SILU},
    {ggml_hardswish, nullptr, GGML_UNARY_OP_HARDSWISH},
    {ggml_hardsigmoid, nullptr, GGML_UNARY_OP_HARDSIGMOID},
    {ggml_exp, ggml_exp_inplace, GGML_UNARY_OP_EXP},
    {ggml_softplus, ggml_softplus_inplace, GGML_UNARY_OP_SOFTPLUS},
    {ggml_expm1, ggml_expm1_inplace, GGML_UNARY_OP_EXPM1},
    {ggml_floor, ggml_floor_inplace, GGML_UNARY_OP_FLOOR},
    {ggml_ceil, ggml_ceil_inplace, GGML_UNARY_OP_CEIL},
    {ggml_round, ggml_round_inplace, GGML_UNARY_OP_ROUND},
    {ggml_trunc, ggml_trunc_inplace, GGML_UNARY_OP_TRUNC},
};

TEST_F(UnaryOps, NamedActivationsRecordTheirSubOp) {
    ggml_tensor * a = t(GGML_TYPE_F16, 6, 2, 1, 3);
    for (const auto & c : kUnary) {
        SCOPED_TRACE(ggml_unary_op_name(c.op));
        ggml_tensor * r = c.plain(ctx_, a);
        expect_layout(r, GGML_TYPE_F16, {6, 2, 1, 3}, {2, 12, 24, 24});
        EXPECT_EQ(r->op, GGML_OP_UNARY);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(r->src[1], nullptr);
        EXPECT_EQ(r->op_params[0], static_cast<int32_t>(c.op));
        EXPECT_EQ(r->op_params[1], 0);
        EXPECT_EQ(r->view_src, nullptr);
        EXPECT_EQ(ggml_get_unary_op(r), c.op);
        EXPECT_STREQ(ggml_op_desc(r), ggml_unary_op_name(c.op));
        if (c.inplace) {
            ggml_tensor * ri = c.inplace(ctx_, a);
            EXPECT_EQ(ri->op, GGML_OP_UNARY);
            EXPECT_EQ(ri->op_params[0], static_cast<int32_t>(c.op));
            EXPECT_EQ(ri->view_src, a);
            EXPECT_EQ(ri->data, a->data);
        }
    }
}

TEST_F(UnaryOps, GenericFormTakesAnySubOp) {
    ggml_tensor * a = t(GGML_TYPE_F32, 3, 2);
    ggml_tensor * r = ggml_unary(ctx_, a, GGML_UNARY_OP_TRUNC);
    expect_layout(r, GGML_TYPE_F32, {3, 2, 1, 1}, {4, 12, 24, 24});
    EXPECT_EQ(r->op_params[0], 21);
    ggml_tensor * ri = ggml_unary_inplace(ctx_, a, GGML_UNARY_OP_EXPM1);
    EXPECT_EQ(ri->op_params[0], 14);
    EXPECT_EQ(ri->view_src, a);
}

// op_params f32 [1..4] hold the constrained coefficients: beta + softplus(alpha_n), softplus(alpha_p), beta, eps
// (values worked out by hand: softplus(0) = ln 2, softplus(1) = ln(1 + e), softplus(30) = 30)
TEST_F(UnaryOps, XieluStoresTheConstrainedCoefficients) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 2);
    ggml_tensor * r = ggml_xielu(ctx_, a, 0.0f, 1.0f, 0.5f, -1e-6f);
    expect_layout(r, GGML_TYPE_F32, {6, 2, 1, 1}, {4, 24, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_UNARY);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(ggml_get_unary_op(r), GGML_UNARY_OP_XIELU);
    EXPECT_FLOAT_EQ(param_f32(r, 1), 0.5f + 0.69314718f);
    EXPECT_FLOAT_EQ(param_f32(r, 2), 1.31326169f);
    EXPECT_FLOAT_EQ(param_f32(r, 3), 0.5f);
    EXPECT_FLOAT_EQ(param_f32(r, 4), -1e-6f);
    ggml_tensor * big = ggml_xielu(ctx_, a, 30.0f, 30.0f, 0.0f, 0.0f);
    EXPECT_FLOAT_EQ(param_f32(big, 1), 30.0f);
    EXPECT_FLOAT_EQ(param_f32(big, 2), 30.0f);
    EXPECT_EQ(ggml_xielu(ctx_, nullptr, 0.0f, 0.0f, 0.0f, 0.0f), nullptr);
    const std::string msg = fatal_message([&] { ggml_xielu(ctx_, ggml_transpose(ctx_, a), 0.0f, 0.0f, 0.0f, 0.0f); });
    EXPECT_EQ(msg.rfind("[ggml_xielu]", 0), 0u) << msg;
}

TEST_F(UnaryOps, AcceptsStridedRowsButNotStridedElements) {
    ggml_tensor * a   = t(GGML_TYPE_F32, 4, 3, 2);
    ggml_tensor * per = ggml_permute(ctx_, a, 0, 2, 1, 3); // rows still packed
    ggml_tensor * r   = ggml_silu(ctx_, per);
    expect_layout(r, GGML_TYPE_F32, {4, 2, 3, 1}, {4, 16, 32, 96});
    const std::string msg = fatal_message([&] { ggml_silu(ctx_, ggml_transpose(ctx_, a)); });
    EXPECT_EQ(msg.rfind("[ggml_silu]", 0), 0u) << msg;
    fatal_message([&] { ggml_unary(ctx_, a, GGML_UNARY_OP_COUNT); });
}

TEST_F(UnaryOps, NullInputGivesNull) {
    EXPECT_EQ(ggml_relu(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_unary_inplace(ctx_, nullptr, GGML_UNARY_OP_ABS), nullptr);
    EXPECT_EQ(ggml_swiglu(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_swiglu_split(ctx_, t(GGML_TYPE_F32, 4), nullptr), nullptr);
}

using Fused = ggml_tensor * (*) (ggml_context *, ggml_tensor *);

TEST_F(UnaryOps, FusedGluHalvesTheRows) {
    struct Case {
        Fused       fn;
        ggml_glu_op op;
        bool        swapped;
    };
    const Case cases[] = {
        {ggml_reglu, GGML_GLU_OP_REGLU, false},           {ggml_reglu_swapped, GGML_GLU_OP_REGLU, true},
        {ggml_geglu, GGML_GLU_OP_GEGLU, false},           {ggml_geglu_swapped, GGML_GLU_OP_GEGLU, true},
        {ggml_swiglu, GGML_GLU_OP_SWIGLU, false},         {ggml_swiglu_swapped, GGML_GLU_OP_SWIGLU, true},
        {ggml_geglu_erf, GGML_GLU_OP_GEGLU_ERF, false},   {ggml_geglu_erf_swapped, GGML_GLU_OP_GEGLU_ERF, true},
        {ggml_geglu_quick, GGML_GLU_OP_GEGLU_QUICK, false}, {ggml_geglu_quick_swapped, GGML_GLU_OP_GEGLU_QUICK, true},
    };
    ggml_tensor * a = t(GGML_TYPE_F32, 8, 3, 2);
    for (const auto & c : cases) {
        SCOPED_TRACE(ggml_glu_op_name(c.op));
        ggml_tensor * r = c.fn(ctx_, a);
        expect_layout(r, GGML_TYPE_F32, {4, 3, 2, 1}, {4, 16, 48, 96});
        EXPECT_EQ(r->op, GGML_OP_GLU);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(r->src[1], nullptr);
        EXPECT_EQ(r->op_params[0], static_cast<int32_t>(c.op));
        EXPECT_EQ(r->op_params[1], c.swapped ? 1 : 0);
        EXPECT_EQ(ggml_get_glu_op(r), c.op);
        EXPECT_STREQ(ggml_op_desc(r), ggml_glu_op_name(c.op));
    }
    ggml_tensor * g = ggml_glu(ctx_, t(GGML_TYPE_F16, 10, 2), GGML_GLU_OP_SWIGLU_OAI, true);
    expect_layout(g, GGML_TYPE_F16, {5, 2, 1, 1}, {2, 10, 20, 20});
    EXPECT_EQ(g->op_params[0], 3);
    EXPECT_EQ(g->op_params[1], 1);
}

TEST_F(UnaryOps, SplitGluKeepsTheShape) {
    using Split = ggml_tensor * (*) (ggml_context *, ggml_tensor *, ggml_tensor *);
    struct Case {
        Split       fn;
        ggml_glu_op op;
    };
    const Case cases[] = {
        {ggml_reglu_split, GGML_GLU_OP_REGLU},         {ggml_geglu_split, GGML_GLU_OP_GEGLU},
        {ggml_swiglu_split, GGML_GLU_OP_SWIGLU},       {ggml_geglu_erf_split, GGML_GLU_OP_GEGLU_ERF},
        {ggml_geglu_quick_split, GGML_GLU_OP_GEGLU_QUICK},
    };
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 6, 3);
    for (const auto & c : cases) {
        SCOPED_TRACE(ggml_glu_op_name(c.op));
        ggml_tensor * r = c.fn(ctx_, a, b);
        expect_layout(r, GGML_TYPE_F32, {6, 3, 1, 1}, {4, 24, 72, 72});
        EXPECT_EQ(r->op, GGML_OP_GLU);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(r->src[1], b);
        EXPECT_EQ(r->op_params[0], static_cast<int32_t>(c.op));
        EXPECT_EQ(r->op_params[1], 0);
    }
    ggml_tensor * r = ggml_glu_split(ctx_, a, b, GGML_GLU_OP_GEGLU);
    EXPECT_EQ(r->op_params[0], 1);
    EXPECT_EQ(r->src[1], b);
}

TEST_F(UnaryOps, SwigluOaiStoresAlphaAndLimit) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 6, 3);
    ggml_tensor * r = ggml_swiglu_oai(ctx_, a, b, 1.702f, 7.0f);
    expect_layout(r, GGML_TYPE_F32, {6, 3, 1, 1}, {4, 24, 72, 72});
    EXPECT_EQ(r->op_params[0], 3);
    EXPECT_EQ(r->op_params[1], 0);
    EXPECT_EQ(param_f32(r, 2), 1.702f);
    EXPECT_EQ(param_f32(r, 3), 7.0f);
    EXPECT_EQ(r->src[1], b);
    // without b: the fused form
    ggml_tensor * f = ggml_swiglu_oai(ctx_, a, nullptr, 1.0f, 2.0f);
    expect_layout(f, GGML_TYPE_F32, {3, 3, 1, 1}, {4, 12, 36, 36});
    EXPECT_EQ(f->src[1], nullptr);
    EXPECT_EQ(param_f32(f, 3), 2.0f);
}

TEST_F(UnaryOps, SwigluClampStoresTheLimit) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 6, 3);
    ggml_tensor * r = ggml_swiglu_clamp(ctx_, a, b, 7.5f);
    expect_layout(r, GGML_TYPE_F32, {6, 3, 1, 1}, {4, 24, 72, 72});
    EXPECT_EQ(r->op, GGML_OP_GLU);
    EXPECT_EQ(r->op_params[0], GGML_GLU_OP_SWIGLU_CLAMP);
    EXPECT_EQ(r->op_params[0], 6);
    EXPECT_EQ(param_f32(r, 3), 7.5f);
    EXPECT_EQ(r->src[1], b);
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_SWIGLU_CLAMP), "SWIGLU_CLAMP");
    ggml_tensor * f = ggml_swiglu_clamp(ctx_, a, nullptr, 2.0f);
    expect_layout(f, GGML_TYPE_F32, {3, 3, 1, 1}, {4, 12, 36, 36});
}

TEST_F(UnaryOps, GluRejectsStridedRowsAndMismatchedGates) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 6, 4);
    const std::string msg = fatal_message([&] { ggml_swiglu(ctx_, ggml_transpose(ctx_, a)); });
    EXPECT_EQ(msg.rfind("[ggml_swiglu]", 0), 0u) << msg;
    fatal_message([&] { ggml_swiglu_split(ctx_, a, t(GGML_TYPE_F32, 6, 3)); });
    fatal_message([&] { ggml_swiglu_split(ctx_, a, t(GGML_TYPE_F16, 6, 4)); });
    fatal_message([&] { ggml_swiglu_split(ctx_, a, ggml_transpose(ctx_, t(GGML_TYPE_F32, 4, 6))); });
    fatal_message([&] { ggml_glu(ctx_, a, GGML_GLU_OP_COUNT, false); });
}

} // namespace
