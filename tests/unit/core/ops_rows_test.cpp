// Row ops: GET_ROWS (result type and shape, index layout), SET_ROWS (a view of the destination with upstream's
// source order {rows, indices, destination}, index broadcasting) and DIAG_MASK_INF (n_past, inplace view).
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

class RowOps : public switchyard::testing::OpFixture {};

TEST_F(RowOps, GetRowsGathersF32Rows) {
    ggml_tensor * a = t(GGML_TYPE_F16, 8, 10, 2, 3);
    ggml_tensor * b = t(GGML_TYPE_I32, 5, 2, 3);
    ggml_tensor * r = ggml_get_rows(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F32, {8, 5, 2, 3}, {4, 32, 160, 320});
    EXPECT_EQ(r->op, GGML_OP_GET_ROWS);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_EQ(r->view_src, nullptr);
    // quantized rows come out as f32, i32 rows stay i32
    expect_layout(ggml_get_rows(ctx_, t(GGML_TYPE_Q4_0, 32, 10), t(GGML_TYPE_I32, 4)), GGML_TYPE_F32, {32, 4, 1, 1},
                  {4, 128, 512, 512});
    expect_layout(ggml_get_rows(ctx_, t(GGML_TYPE_I32, 3, 10), t(GGML_TYPE_I32, 4)), GGML_TYPE_I32, {3, 4, 1, 1},
                  {4, 12, 48, 48});
}

TEST_F(RowOps, GetRowsRejectsBadIndices) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 8, 10, 2, 3);
    const std::string msg = fatal_message([&] { ggml_get_rows(ctx_, a, t(GGML_TYPE_F32, 5, 2, 3)); });
    EXPECT_EQ(msg.rfind("[ggml_get_rows]", 0), 0u) << msg;
    fatal_message([&] { ggml_get_rows(ctx_, a, t(GGML_TYPE_I32, 5, 3, 3)); });
    fatal_message([&] { ggml_get_rows(ctx_, a, t(GGML_TYPE_I32, 5, 2, 2)); });
    fatal_message([&] { ggml_get_rows(ctx_, t(GGML_TYPE_F32, 8, 10), t(GGML_TYPE_I32, 5, 1, 1, 2)); });
    EXPECT_EQ(ggml_get_rows(ctx_, a, nullptr), nullptr);
}

TEST_F(RowOps, SetRowsIsAViewOfTheDestination) {
    ggml_tensor * a = t(GGML_TYPE_F16, 8, 10, 2, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 8, 4, 2, 3);
    ggml_tensor * c = t(GGML_TYPE_I64, 4, 1, 3);
    ggml_tensor * r = ggml_set_rows(ctx_, a, b, c);
    expect_layout(r, GGML_TYPE_F16, {8, 10, 2, 3}, {2, 16, 160, 320});
    EXPECT_EQ(r->op, GGML_OP_SET_ROWS);
    EXPECT_EQ(r->src[0], b);
    EXPECT_EQ(r->src[1], c);
    EXPECT_EQ(r->src[2], a);
    EXPECT_EQ(r->src[3], nullptr);
    EXPECT_EQ(r->view_src, a);
    EXPECT_EQ(r->data, a->data);
    // i32 indices, one index list for all planes
    ggml_tensor * r32 = ggml_set_rows(ctx_, a, b, t(GGML_TYPE_I32, 4));
    EXPECT_EQ(r32->src[1]->type, GGML_TYPE_I32);
}

TEST_F(RowOps, SetRowsRejects) {
    ggml_tensor *     a   = t(GGML_TYPE_F16, 8, 10, 2, 3);
    ggml_tensor *     b   = t(GGML_TYPE_F32, 8, 4, 2, 3);
    const std::string msg = fatal_message([&] { ggml_set_rows(ctx_, a, b, t(GGML_TYPE_F32, 4)); });
    EXPECT_EQ(msg.rfind("[ggml_set_rows]", 0), 0u) << msg;
    fatal_message([&] { ggml_set_rows(ctx_, a, b, t(GGML_TYPE_I64, 5)); });       // one index per row of b
    fatal_message([&] { ggml_set_rows(ctx_, a, b, t(GGML_TYPE_I64, 4, 3)); });    // 2 % 3 != 0
    fatal_message([&] { ggml_set_rows(ctx_, a, b, t(GGML_TYPE_I64, 4, 1, 2)); }); // 3 % 2 != 0
    fatal_message([&] { ggml_set_rows(ctx_, a, t(GGML_TYPE_I32, 8, 4, 2, 3), t(GGML_TYPE_I64, 4)); });
    // ggml 0.25.1 takes f16 rows as well as f32
    EXPECT_NE(ggml_set_rows(ctx_, a, t(GGML_TYPE_F16, 8, 4, 2, 3), t(GGML_TYPE_I64, 4)), nullptr);
    fatal_message([&] { ggml_set_rows(ctx_, a, t(GGML_TYPE_F32, 7, 4, 2, 3), t(GGML_TYPE_I64, 4)); });
    fatal_message([&] { ggml_set_rows(ctx_, a, t(GGML_TYPE_F32, 8, 4, 1, 3), t(GGML_TYPE_I64, 4)); });
    ggml_tensor * at = ggml_transpose(ctx_, t(GGML_TYPE_F32, 10, 8));
    fatal_message([&] { ggml_set_rows(ctx_, at, t(GGML_TYPE_F32, 8, 4), t(GGML_TYPE_I64, 4)); });
    EXPECT_EQ(ggml_set_rows(ctx_, nullptr, b, t(GGML_TYPE_I64, 4)), nullptr);
}

TEST_F(RowOps, DiagMaskInfStoresNPast) {
    ggml_tensor * a = t(GGML_TYPE_F32, 6, 6, 2);
    ggml_tensor * r = ggml_diag_mask_inf(ctx_, a, 3);
    expect_layout(r, GGML_TYPE_F32, {6, 6, 2, 1}, {4, 24, 144, 288});
    EXPECT_EQ(r->op, GGML_OP_DIAG_MASK_INF);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->op_params[0], 3);
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * ri = ggml_diag_mask_inf_inplace(ctx_, a, 0);
    EXPECT_EQ(ri->op_params[0], 0);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(ggml_diag_mask_inf(ctx_, nullptr, 1), nullptr);
}

} // namespace
