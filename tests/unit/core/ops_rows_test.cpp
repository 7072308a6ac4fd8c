// Row ops: GET_ROWS (result type and shape, index layout), SET_ROWS (a view of the destination with upstream's
// source order {rows, indices, destination}, index broadcasting) and DIAG_MASK_INF (n_past, inplace view).
#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace {

struct FatalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class RowOps : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{4 << 20, nullptr, false});
        ASSERT_NE(ctx_, nullptr);
        previous_ = ggml_set_abort_callback(&RowOps::throw_fatal);
    }
    void TearDown() override {
        ggml_set_abort_callback(previous_);
        ggml_free(ctx_);
    }

    ggml_tensor * t(ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1) {
        return ggml_new_tensor_4d(ctx_, type, ne0, ne1, ne2, ne3);
    }

    static std::string fatal_message(const std::function<void()> & f) {
        try {
            f();
        } catch (const FatalError & e) {
            return e.what();
        }
        ADD_FAILURE() << "expected a fatal error";
        return {};
    }

    static void throw_fatal(const char * message) { throw FatalError(message); }

    ggml_context *        ctx_      = nullptr;
    ggml_abort_callback_t previous_ = nullptr;
};

[[maybe_unused]] void expect_layout(const ggml_tensor * r, ggml_type type, std::array<int64_t, 4> ne, std::array<size_t, 4> nb) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->type, type);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(r->ne[i], ne[i]) << "ne[" << i << "]";
        EXPECT_EQ(r->nb[i], nb[i]) << "nb[" << i << "]";
    }
}

[[maybe_unused]] float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

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
    fatal_message([&] { ggml_set_rows(ctx_, a, t(GGML_TYPE_F16, 8, 4, 2, 3), t(GGML_TYPE_I64, 4)); });
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
