// FILL, TRI and DIAG constructors (core/ops/fill.cpp): shapes, types, op_params and the rejected cases.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using switchyard::testing::expect_layout;
using switchyard::testing::param_f32;

class FillOps : public switchyard::testing::OpFixture {};

TEST_F(FillOps, FillStoresTheConstant) {
    ggml_tensor * a = t(GGML_TYPE_F32, 5, 3, 2);
    ggml_tensor * r = ggml_fill(ctx_, a, 0.25f);
    expect_layout(r, GGML_TYPE_F32, {5, 3, 2, 1}, {4, 20, 60, 120});
    EXPECT_EQ(r->op, GGML_OP_FILL);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(param_f32(r, 0), 0.25f);

    ggml_tensor * ri = ggml_fill_inplace(ctx_, a, -3.0f);
    EXPECT_EQ(ri->op, GGML_OP_FILL);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(ri->data, a->data);
    EXPECT_EQ(ri->src[0], a);
    EXPECT_EQ(param_f32(ri, 0), -3.0f);

    // f16 as upstream's 0.25.1 takes it (llama.cpp fills an f16 mask with it); other types are refused
    ggml_tensor * h = ggml_fill(ctx_, t(GGML_TYPE_F16, 5, 3), 1.0f);
    expect_layout(h, GGML_TYPE_F16, {5, 3, 1, 1}, {2, 10, 30, 30});
    EXPECT_EQ(h->op, GGML_OP_FILL);
    std::string msg = fatal_message([&] { ggml_fill(ctx_, t(GGML_TYPE_BF16, 5, 3), 1.0f); });
    EXPECT_EQ(msg.rfind("[ggml_fill]", 0), 0u) << msg;
    msg = fatal_message([&] { ggml_fill_inplace(ctx_, ggml_transpose(ctx_, a), 1.0f); });
    EXPECT_EQ(msg.rfind("[ggml_fill_inplace]", 0), 0u) << msg;
    EXPECT_EQ(ggml_fill(ctx_, nullptr, 1.0f), nullptr);
}

TEST_F(FillOps, TriStoresItsTypeAndNeedsSquareF32Matrices) {
    ggml_tensor *        a       = t(GGML_TYPE_F32, 4, 4, 3);
    const ggml_tri_type types[] = {GGML_TRI_TYPE_UPPER_DIAG, GGML_TRI_TYPE_UPPER, GGML_TRI_TYPE_LOWER_DIAG,
                                    GGML_TRI_TYPE_LOWER};
    for (ggml_tri_type type : types) {
        ggml_tensor * r = ggml_tri(ctx_, a, type);
        expect_layout(r, GGML_TYPE_F32, {4, 4, 3, 1}, {4, 16, 64, 192});
        EXPECT_EQ(r->op, GGML_OP_TRI);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(r->view_src, nullptr);
        EXPECT_EQ(r->op_params[0], static_cast<int32_t>(type));
    }
    // upstream's values, persisted in graphs built elsewhere
    EXPECT_EQ(GGML_TRI_TYPE_UPPER_DIAG, 0);
    EXPECT_EQ(GGML_TRI_TYPE_UPPER, 1);
    EXPECT_EQ(GGML_TRI_TYPE_LOWER_DIAG, 2);
    EXPECT_EQ(GGML_TRI_TYPE_LOWER, 3);

    std::string msg = fatal_message([&] { ggml_tri(ctx_, t(GGML_TYPE_F32, 4, 5), GGML_TRI_TYPE_LOWER); });
    EXPECT_EQ(msg.rfind("[ggml_tri]", 0), 0u) << msg;
    fatal_message([&] { ggml_tri(ctx_, t(GGML_TYPE_F16, 4, 4), GGML_TRI_TYPE_LOWER); });
    fatal_message([&] { ggml_tri(ctx_, ggml_transpose(ctx_, a), GGML_TRI_TYPE_LOWER); });
    fatal_message([&] { ggml_tri(ctx_, a, static_cast<ggml_tri_type>(4)); });
    EXPECT_EQ(ggml_tri(ctx_, nullptr, GGML_TRI_TYPE_LOWER), nullptr);
}

TEST_F(FillOps, DiagTurnsEachRowIntoASquareMatrix) {
    ggml_tensor * a = t(GGML_TYPE_F16, 5, 1, 3, 2);
    ggml_tensor * r = ggml_diag(ctx_, a);
    expect_layout(r, GGML_TYPE_F16, {5, 5, 3, 2}, {2, 10, 50, 150});
    EXPECT_EQ(r->op, GGML_OP_DIAG);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
    const std::string msg = fatal_message([&] { ggml_diag(ctx_, t(GGML_TYPE_F32, 5, 2)); });
    EXPECT_EQ(msg.rfind("[ggml_diag]", 0), 0u) << msg;
    EXPECT_NE(msg.find("f32 [5, 2, 1, 1]"), std::string::npos) << msg;
    EXPECT_EQ(ggml_diag(ctx_, nullptr), nullptr);
}

} // namespace
