// ROLL constructor (core/ops/roll.cpp): a's shape and type, the four shifts in op_params, and the rejected cases.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using switchyard::testing::expect_layout;

class RollOps : public switchyard::testing::OpFixture {};

TEST_F(RollOps, StoresTheFourShifts) {
    ggml_tensor * a = t(GGML_TYPE_F16, 6, 4, 3, 2);
    ggml_tensor * r = ggml_roll(ctx_, a, 5, -3, 0, 1);
    expect_layout(r, GGML_TYPE_F16, {6, 4, 3, 2}, {2, 12, 48, 144});
    EXPECT_EQ(r->op, GGML_OP_ROLL);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(r->op_params[0], 5);
    EXPECT_EQ(r->op_params[1], -3);
    EXPECT_EQ(r->op_params[2], 0);
    EXPECT_EQ(r->op_params[3], 1);
    // rows may be strided, elements not
    expect_layout(ggml_roll(ctx_, ggml_permute(ctx_, a, 0, 2, 1, 3), 1, 1, 1, 1), GGML_TYPE_F16, {6, 3, 4, 2},
                  {2, 12, 36, 144});
}

TEST_F(RollOps, RejectsShiftsAsLongAsTheDimensionAndStridedElements) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 6, 4, 3, 2);
    const std::string msg = fatal_message([&] { ggml_roll(ctx_, a, 6, 0, 0, 0); });
    EXPECT_EQ(msg.rfind("[ggml_roll]", 0), 0u) << msg;
    EXPECT_NE(msg.find("shift0 = 6"), std::string::npos) << msg;
    fatal_message([&] { ggml_roll(ctx_, a, 0, -4, 0, 0); });
    fatal_message([&] { ggml_roll(ctx_, a, 0, 0, 3, 0); });
    fatal_message([&] { ggml_roll(ctx_, a, 0, 0, 0, 2); });
    fatal_message([&] { ggml_roll(ctx_, ggml_transpose(ctx_, a), 1, 0, 0, 0); });
    EXPECT_EQ(ggml_roll(ctx_, nullptr, 0, 0, 0, 0), nullptr);
}

} // namespace
