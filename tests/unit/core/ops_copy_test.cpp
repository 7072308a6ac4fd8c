// Copy constructors: CONT (1d-4d), CPY into an existing tensor, ggml_cast, SET (plain, 1d, 2d, inplace) and ACC:
// shapes, names, sources, the {nb1, nb2, nb3, offset, inplace} parameter layout and the rejected cases.
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

class CopyOps : public switchyard::testing::OpFixture {};

void expect_params(const ggml_tensor * r, std::array<int32_t, 5> p) {
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(r->op_params[i], p[static_cast<size_t>(i)]) << "op_params[" << i << "]";
    }
    EXPECT_EQ(r->op_params[5], 0);
}

TEST_F(CopyOps, ContMakesAContiguousCopy) {
    ggml_tensor * m = t(GGML_TYPE_F32, 3, 5);
    ggml_set_name(m, "m");
    ggml_tensor * a = ggml_transpose(ctx_, m);
    ggml_tensor * r = ggml_cont(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {5, 3, 1, 1}, {4, 20, 60, 60});
    EXPECT_EQ(r->op, GGML_OP_CONT);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_STREQ(r->name, "m (transposed) (cont)");
}

TEST_F(CopyOps, ContNdReshapesTheCopy) {
    ggml_tensor * a = ggml_transpose(ctx_, t(GGML_TYPE_F16, 4, 6));
    expect_layout(ggml_cont_1d(ctx_, a, 24), GGML_TYPE_F16, {24, 1, 1, 1}, {2, 48, 48, 48});
    expect_layout(ggml_cont_2d(ctx_, a, 8, 3), GGML_TYPE_F16, {8, 3, 1, 1}, {2, 16, 48, 48});
    expect_layout(ggml_cont_3d(ctx_, a, 2, 3, 4), GGML_TYPE_F16, {2, 3, 4, 1}, {2, 4, 12, 48});
    ggml_tensor * r = ggml_cont_4d(ctx_, a, 2, 2, 3, 2);
    expect_layout(r, GGML_TYPE_F16, {2, 2, 3, 2}, {2, 4, 8, 24});
    EXPECT_EQ(r->op, GGML_OP_CONT);
    EXPECT_EQ(r->src[0], a);
    const std::string msg = fatal_message([&] { ggml_cont_2d(ctx_, a, 5, 5); });
    EXPECT_EQ(msg.rfind("[ggml_cont_2d]", 0), 0u) << msg;
}

TEST_F(CopyOps, CpyIsAViewOfTheDestination) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_set_name(a, "src");
    ggml_tensor * b = t(GGML_TYPE_F16, 12);
    ggml_set_name(b, "dst");
    ggml_tensor * r = ggml_cpy(ctx_, a, b);
    expect_layout(r, GGML_TYPE_F16, {12, 1, 1, 1}, {2, 24, 24, 24});
    EXPECT_EQ(r->op, GGML_OP_CPY);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->view_src, b);
    EXPECT_EQ(r->data, b->data);
    EXPECT_STREQ(r->name, "dst (copy of src)");

    ggml_tensor * unnamed = t(GGML_TYPE_F32, 3, 4);
    EXPECT_STREQ(ggml_cpy(ctx_, a, unnamed)->name, "src (copy)");
    const std::string msg = fatal_message([&] { ggml_cpy(ctx_, a, t(GGML_TYPE_F32, 11)); });
    EXPECT_EQ(msg.rfind("[ggml_cpy]", 0), 0u) << msg;
}

TEST_F(CopyOps, CastIsACopyIntoAFreshTensorThatIsItsOwnSecondSource) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_set_name(a, "x");
    ggml_tensor * r = ggml_cast(ctx_, a, GGML_TYPE_F16);
    expect_layout(r, GGML_TYPE_F16, {4, 3, 1, 1}, {2, 8, 24, 24});
    EXPECT_EQ(r->op, GGML_OP_CPY);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], r);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_STREQ(r->name, "x (copy)");
}

TEST_F(CopyOps, SetStoresTheDestinationView) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 2, 2);
    ggml_tensor * r = ggml_set(ctx_, a, b, 16, 32, 32, 4);
    expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_SET);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->view_src, nullptr);
    expect_params(r, {16, 32, 32, 4, 0});

    ggml_tensor * ri = ggml_set_inplace(ctx_, a, b, 16, 32, 32, 4);
    expect_params(ri, {16, 32, 32, 4, 1});
    EXPECT_EQ(ri->view_src, a);
    // the 1d and 2d forms take the missing strides from a
    expect_params(ggml_set_1d(ctx_, a, b, 8), {16, 48, 48, 8, 0});
    expect_params(ggml_set_1d_inplace(ctx_, a, b, 8), {16, 48, 48, 8, 1});
    expect_params(ggml_set_2d(ctx_, a, b, 8, 4), {8, 48, 48, 4, 0});
    ggml_tensor * r2i = ggml_set_2d_inplace(ctx_, a, b, 8, 4);
    expect_params(r2i, {8, 48, 48, 4, 1});
    EXPECT_EQ(r2i->view_src, a);
}

TEST_F(CopyOps, SetRejectsLargerBAndHugeOffsets) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 4, 3);
    const std::string msg = fatal_message([&] { ggml_set_1d(ctx_, a, t(GGML_TYPE_F32, 13), 0); });
    EXPECT_EQ(msg.rfind("[ggml_set_1d]", 0), 0u) << msg;
    fatal_message([&] { ggml_set(ctx_, a, t(GGML_TYPE_F32, 2), 16, 48, 48, size_t{1} << 30); });
}

TEST_F(CopyOps, AccStoresTheDestinationView) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 2, 3);
    ggml_tensor * r = ggml_acc(ctx_, a, b, 16, 48, 48, 8);
    expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_ACC);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], b);
    EXPECT_EQ(r->view_src, nullptr);
    expect_params(r, {16, 48, 48, 8, 0});
    ggml_tensor * ri = ggml_acc_inplace(ctx_, a, b, 16, 48, 48, 8);
    expect_params(ri, {16, 48, 48, 8, 1});
    EXPECT_EQ(ri->view_src, a);
}

TEST_F(CopyOps, AccRejects) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 4, 3);
    const std::string msg = fatal_message([&] { ggml_acc(ctx_, a, t(GGML_TYPE_F32, 13), 16, 48, 48, 0); });
    EXPECT_EQ(msg.rfind("[ggml_acc]", 0), 0u) << msg;
    fatal_message([&] { ggml_acc(ctx_, ggml_transpose(ctx_, a), t(GGML_TYPE_F32, 2), 16, 48, 48, 0); });
    fatal_message([&] { ggml_acc(ctx_, t(GGML_TYPE_F16, 4, 3), t(GGML_TYPE_F32, 2), 8, 24, 24, 0); });
    fatal_message([&] { ggml_acc(ctx_, a, t(GGML_TYPE_F16, 2), 16, 48, 48, 0); });
}

TEST_F(CopyOps, NullInputsGiveNull) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_cont(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_cont_4d(ctx_, nullptr, 1, 1, 1, 1), nullptr);
    EXPECT_EQ(ggml_cpy(ctx_, a, nullptr), nullptr);
    EXPECT_EQ(ggml_cast(ctx_, nullptr, GGML_TYPE_F16), nullptr);
    EXPECT_EQ(ggml_set_1d(ctx_, a, nullptr, 0), nullptr);
    EXPECT_EQ(ggml_acc(ctx_, nullptr, a, 4, 4, 4, 0), nullptr);
}

} // namespace
