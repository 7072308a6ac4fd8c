// Matrix products: MUL_MAT (broadcast over dims 2 and 3, quantized a, precision slot), MUL_MAT_ID and OUT_PROD,
// with the shapes each rejects.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

// ggml_mul_mat_set_prec and ggml_flash_attn_ext_set_prec are deprecated in ggml 0.25.1 (ggml_prec_set_acc
// replaces them); they still exist and are tested here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using switchyard::testing::expect_layout;
using switchyard::testing::FatalError;
using switchyard::testing::param_f32;

class MatmulOps : public switchyard::testing::OpFixture {};

TEST_F(MatmulOps, MulMatIsF32NByMBroadcastOverOuterDims) {
    ggml_tensor * a = t(GGML_TYPE_F16, 64, 10, 2, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 64, 7, 4, 3);
    ggml_tensor * r = ggml_mul_mat(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F32, {10, 7, 4, 3}, {4, 40, 280, 1120});
    EXPECT_EQ(r->op, GGML_OP_MUL_MAT);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(r->view_src, nullptr);
}

TEST_F(MatmulOps, MulMatTakesQuantizedWeights) {
    ggml_tensor * a = t(GGML_TYPE_Q4_0, 64, 10);
    ggml_tensor * b = t(GGML_TYPE_F32, 64, 5);
    expect_layout(ggml_mul_mat(ctx_, a, b), GGML_TYPE_F32, {10, 5, 1, 1}, {4, 40, 200, 200});
}

TEST_F(MatmulOps, MulMatRejectsMismatchedOrTransposedA) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 64, 10, 2);
    const std::string msg = fatal_message([&] { ggml_mul_mat(ctx_, a, t(GGML_TYPE_F32, 32, 7, 2)); });
    EXPECT_EQ(msg.rfind("[ggml_mul_mat]", 0), 0u) << msg;
    EXPECT_NE(msg.find("f32 [64, 10, 2, 1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f32 [32, 7, 2, 1]"), std::string::npos) << msg;
    fatal_message([&] { ggml_mul_mat(ctx_, a, t(GGML_TYPE_F32, 64, 7, 3)); });    // 3 % 2 != 0
    fatal_message([&] { ggml_mul_mat(ctx_, t(GGML_TYPE_F32, 64, 10, 1, 2), t(GGML_TYPE_F32, 64, 7, 1, 3)); });
    ggml_tensor * at = ggml_transpose(ctx_, t(GGML_TYPE_F32, 10, 64));
    fatal_message([&] { ggml_mul_mat(ctx_, at, t(GGML_TYPE_F32, 64, 7)); });
    // a transposed b is fine
    ggml_tensor * bt = ggml_transpose(ctx_, t(GGML_TYPE_F32, 7, 64));
    expect_layout(ggml_mul_mat(ctx_, t(GGML_TYPE_F32, 64, 10), bt), GGML_TYPE_F32, {10, 7, 1, 1}, {4, 40, 280, 280});
}

TEST_F(MatmulOps, SetPrecWritesSlotZeroOfMulMatNodesOnly) {
    ggml_tensor * r = ggml_mul_mat(ctx_, t(GGML_TYPE_F16, 8, 2), t(GGML_TYPE_F32, 8, 3));
    ggml_mul_mat_set_prec(r, GGML_PREC_F32);
    EXPECT_EQ(r->op_params[0], 10);
    ggml_mul_mat_set_prec(r, GGML_PREC_DEFAULT);
    EXPECT_EQ(r->op_params[0], 0);
    ggml_mul_mat_set_prec(nullptr, GGML_PREC_F32); // logged, no crash
    const std::string msg = fatal_message([&] { ggml_mul_mat_set_prec(t(GGML_TYPE_F32, 4), GGML_PREC_F32); });
    EXPECT_EQ(msg.rfind("[ggml_mul_mat_set_prec]", 0), 0u) << msg;
}

// ggml 0.25.1: the accumulator (op_params[0] of MUL_MAT / MUL_MAT_ID, [3] of FLASH_ATTN_EXT) and src[1]'s lowest
// conversion (op_params[3] of MUL_MAT / MUL_MAT_ID); other ops and sources are refused with false, nothing set
TEST_F(MatmulOps, PrecSettersWriteTheirSlotsAndRefuseOtherOps) {
    ggml_tensor * r = ggml_mul_mat(ctx_, t(GGML_TYPE_F16, 8, 2), t(GGML_TYPE_F32, 8, 3));
    EXPECT_TRUE(ggml_prec_set_acc(r, GGML_PREC_F32));
    EXPECT_EQ(r->op_params[0], 10);
    EXPECT_TRUE(ggml_prec_set_src(r, GGML_PREC_Q8, 1));
    EXPECT_EQ(r->op_params[3], 30);
    EXPECT_EQ(r->op_params[0], 10);
    EXPECT_FALSE(ggml_prec_set_src(r, GGML_PREC_F16, 0));
    EXPECT_EQ(r->op_params[2], 0);
    ggml_tensor * id = ggml_mul_mat_id(ctx_, t(GGML_TYPE_F16, 8, 4, 3), t(GGML_TYPE_F32, 8, 1, 2), t(GGML_TYPE_I32, 1, 2));
    EXPECT_TRUE(ggml_prec_set_acc(id, GGML_PREC_BF16));
    EXPECT_EQ(id->op_params[0], 15);
    EXPECT_TRUE(ggml_prec_set_src(id, GGML_PREC_Q4, 1));
    EXPECT_EQ(id->op_params[3], 40);
    ggml_tensor * add = ggml_add(ctx_, t(GGML_TYPE_F32, 4), t(GGML_TYPE_F32, 4));
    EXPECT_FALSE(ggml_prec_set_acc(add, GGML_PREC_F32));
    EXPECT_FALSE(ggml_prec_set_src(add, GGML_PREC_F32, 1));
    EXPECT_EQ(add->op_params[0], 0);
    EXPECT_EQ(add->op_params[3], 0);
    EXPECT_FALSE(ggml_prec_set_acc(nullptr, GGML_PREC_F32)); // logged, no crash
    const std::string msg = fatal_message([&] { ggml_prec_set_src(r, GGML_PREC_F32, GGML_MAX_SRC); });
    EXPECT_EQ(msg.rfind("[ggml_prec_set_src]", 0), 0u) << msg;
    EXPECT_EQ(GGML_PREC_UNDEFINED, GGML_PREC_DEFAULT);
}

TEST_F(MatmulOps, MulMatIdGivesOneRowPerUsedExpert) {
    ggml_tensor * as  = t(GGML_TYPE_F16, 64, 10, 8);
    ggml_tensor * b   = t(GGML_TYPE_F32, 64, 2, 5);
    ggml_tensor * ids = t(GGML_TYPE_I32, 4, 5);
    ggml_tensor * r   = ggml_mul_mat_id(ctx_, as, b, ids);
    expect_layout(r, GGML_TYPE_F32, {10, 4, 5, 1}, {4, 40, 160, 800});
    EXPECT_EQ(r->op, GGML_OP_MUL_MAT_ID);
    EXPECT_EQ(r->src[0], as);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->src[2], ids);
    // b with one row per token is broadcast to every used expert
    expect_layout(ggml_mul_mat_id(ctx_, as, t(GGML_TYPE_F32, 64, 1, 5), ids), GGML_TYPE_F32, {10, 4, 5, 1},
                  {4, 40, 160, 800});
}

TEST_F(MatmulOps, MulMatIdRejects) {
    ggml_tensor *     as  = t(GGML_TYPE_F16, 64, 10, 8);
    ggml_tensor *     b   = t(GGML_TYPE_F32, 64, 2, 5);
    const std::string msg = fatal_message([&] { ggml_mul_mat_id(ctx_, as, b, t(GGML_TYPE_F32, 4, 5)); });
    EXPECT_EQ(msg.rfind("[ggml_mul_mat_id]", 0), 0u) << msg;
    fatal_message([&] { ggml_mul_mat_id(ctx_, as, b, t(GGML_TYPE_I32, 3, 5)); });    // 3 % 2 != 0
    fatal_message([&] { ggml_mul_mat_id(ctx_, as, b, t(GGML_TYPE_I32, 4, 6)); });    // tokens differ
    fatal_message([&] { ggml_mul_mat_id(ctx_, as, b, t(GGML_TYPE_I32, 4, 5, 2)); }); // ids not 2-d
    fatal_message([&] { ggml_mul_mat_id(ctx_, t(GGML_TYPE_F16, 64, 10, 8, 2), b, t(GGML_TYPE_I32, 4, 5)); });
    fatal_message([&] { ggml_mul_mat_id(ctx_, as, t(GGML_TYPE_F32, 32, 2, 5), t(GGML_TYPE_I32, 4, 5)); });
    EXPECT_EQ(ggml_mul_mat_id(ctx_, as, b, nullptr), nullptr);
}

TEST_F(MatmulOps, OutProdIsF32MByP) {
    ggml_tensor * a = t(GGML_TYPE_F32, 5, 7, 2);
    ggml_tensor * b = t(GGML_TYPE_F32, 3, 7, 4);
    ggml_tensor * r = ggml_out_prod(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F32, {5, 3, 4, 1}, {4, 20, 60, 240});
    EXPECT_EQ(r->op, GGML_OP_OUT_PROD);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    const std::string msg = fatal_message([&] { ggml_out_prod(ctx_, a, t(GGML_TYPE_F32, 3, 6, 4)); });
    EXPECT_EQ(msg.rfind("[ggml_out_prod]", 0), 0u) << msg;
    fatal_message([&] { ggml_out_prod(ctx_, a, t(GGML_TYPE_F32, 3, 7, 3)); });
    EXPECT_EQ(ggml_out_prod(ctx_, nullptr, b), nullptr);
}

} // namespace
