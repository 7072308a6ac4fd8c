// Custom op constructors (core/ops/custom.cpp): shapes, sources, and op_params laid out as upstream's
// ggml_map_custom{1,2,3}_op_params / ggml_custom_op_params ({fun, n_tasks, userdata}, read back here with the
// struct written out by hand, not with the library's own header).
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

using switchyard::testing::expect_layout;

// upstream's layout, written out independently of core/ops/custom.h
template <class Fn>
struct UpstreamParams {
    Fn     fun;
    int    n_tasks;
    void * userdata;
};

template <class Fn>
UpstreamParams<Fn> params(const ggml_tensor * t) {
    UpstreamParams<Fn> p;
    std::memcpy(&p, t->op_params, sizeof(p));
    return p;
}

void fn1(ggml_tensor *, const ggml_tensor *, int, int, void *) {}
void fn2(ggml_tensor *, const ggml_tensor *, const ggml_tensor *, int, int, void *) {}
void fn3(ggml_tensor *, const ggml_tensor *, const ggml_tensor *, const ggml_tensor *, int, int, void *) {}
void fn(ggml_tensor *, int, int, void *) {}

int g_user = 7;

class CustomOps : public switchyard::testing::OpFixture {};

TEST_F(CustomOps, MapCustomKeepsAsShapeAndStoresFunTasksUserdata) {
    ggml_tensor * a = t(GGML_TYPE_F16, 5, 3, 2);
    ggml_tensor * b = t(GGML_TYPE_F32, 7);
    ggml_tensor * c = t(GGML_TYPE_I32, 2, 2);

    ggml_tensor * r1 = ggml_map_custom1(ctx_, a, fn1, 3, &g_user);
    expect_layout(r1, GGML_TYPE_F16, {5, 3, 2, 1}, {2, 10, 30, 60});
    EXPECT_EQ(r1->op, GGML_OP_MAP_CUSTOM1);
    EXPECT_EQ(r1->src[0], a);
    EXPECT_EQ(r1->src[1], nullptr);
    EXPECT_EQ(r1->view_src, nullptr);
    EXPECT_EQ(params<ggml_custom1_op_t>(r1).fun, fn1);
    EXPECT_EQ(params<ggml_custom1_op_t>(r1).n_tasks, 3);
    EXPECT_EQ(params<ggml_custom1_op_t>(r1).userdata, &g_user);

    ggml_tensor * r2 = ggml_map_custom2(ctx_, a, b, fn2, GGML_N_TASKS_MAX, nullptr);
    expect_layout(r2, GGML_TYPE_F16, {5, 3, 2, 1}, {2, 10, 30, 60});
    EXPECT_EQ(r2->op, GGML_OP_MAP_CUSTOM2);
    EXPECT_EQ(r2->src[0], a);
    EXPECT_EQ(r2->src[1], b); // b's shape is the function's business
    EXPECT_EQ(params<ggml_custom2_op_t>(r2).fun, fn2);
    EXPECT_EQ(params<ggml_custom2_op_t>(r2).n_tasks, -1);
    EXPECT_EQ(params<ggml_custom2_op_t>(r2).userdata, nullptr);

    ggml_tensor * r3 = ggml_map_custom3(ctx_, a, b, c, fn3, 1, &g_user);
    EXPECT_EQ(r3->op, GGML_OP_MAP_CUSTOM3);
    EXPECT_EQ(r3->src[0], a);
    EXPECT_EQ(r3->src[1], b);
    EXPECT_EQ(r3->src[2], c);
    EXPECT_EQ(r3->src[3], nullptr);
    EXPECT_EQ(params<ggml_custom3_op_t>(r3).fun, fn3);
    EXPECT_EQ(params<ggml_custom3_op_t>(r3).n_tasks, 1);
    EXPECT_EQ(params<ggml_custom3_op_t>(r3).userdata, &g_user);
}

TEST_F(CustomOps, InplaceFormsAreViewsOfA) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * b = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * results[] = {
        ggml_map_custom1_inplace(ctx_, a, fn1, 2, nullptr),
        ggml_map_custom2_inplace(ctx_, a, b, fn2, 2, nullptr),
        ggml_map_custom3_inplace(ctx_, a, b, b, fn3, 2, nullptr),
    };
    const ggml_op ops[] = {GGML_OP_MAP_CUSTOM1, GGML_OP_MAP_CUSTOM2, GGML_OP_MAP_CUSTOM3};
    for (int i = 0; i < 3; ++i) {
        ggml_tensor * r = results[i];
        expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
        EXPECT_EQ(r->op, ops[i]);
        EXPECT_EQ(r->view_src, a);
        EXPECT_EQ(r->data, a->data);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(params<void *>(r).n_tasks, 2);
    }
}

TEST_F(CustomOps, Custom4dTakesTypeShapeAndArgs) {
    ggml_tensor * args[3] = {t(GGML_TYPE_F32, 4), t(GGML_TYPE_F16, 2, 2), t(GGML_TYPE_I32, 1)};
    ggml_tensor * r       = ggml_custom_4d(ctx_, GGML_TYPE_I32, 3, 2, 1, 5, args, 3, fn, GGML_N_TASKS_MAX, &g_user);
    expect_layout(r, GGML_TYPE_I32, {3, 2, 1, 5}, {4, 12, 24, 24});
    EXPECT_EQ(r->op, GGML_OP_CUSTOM);
    EXPECT_EQ(r->view_src, nullptr);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(r->src[i], args[i]);
    }
    EXPECT_EQ(r->src[3], nullptr);
    EXPECT_EQ(params<ggml_custom_op_t>(r).fun, fn);
    EXPECT_EQ(params<ggml_custom_op_t>(r).n_tasks, GGML_N_TASKS_MAX);
    EXPECT_EQ(params<ggml_custom_op_t>(r).userdata, &g_user);

    // no arguments at all; args may then be NULL
    ggml_tensor * none = ggml_custom_4d(ctx_, GGML_TYPE_F32, 8, 1, 1, 1, nullptr, 0, fn, 1, nullptr);
    expect_layout(none, GGML_TYPE_F32, {8, 1, 1, 1}, {4, 32, 32, 32});
    EXPECT_EQ(none->src[0], nullptr);

    // up to GGML_MAX_SRC - 1 arguments
    ggml_tensor * many[GGML_MAX_SRC];
    for (ggml_tensor *& m : many) {
        m = t(GGML_TYPE_F32, 1);
    }
    ggml_tensor * full = ggml_custom_4d(ctx_, GGML_TYPE_F32, 1, 1, 1, 1, many, GGML_MAX_SRC - 1, fn, 1, nullptr);
    EXPECT_EQ(full->src[GGML_MAX_SRC - 2], many[GGML_MAX_SRC - 2]);
    EXPECT_EQ(full->src[GGML_MAX_SRC - 1], nullptr);
    const std::string msg =
        fatal_message([&] { ggml_custom_4d(ctx_, GGML_TYPE_F32, 1, 1, 1, 1, many, GGML_MAX_SRC, fn, 1, nullptr); });
    EXPECT_EQ(msg.rfind("[ggml_custom_4d]", 0), 0u) << msg;
    fatal_message([&] { ggml_custom_4d(ctx_, GGML_TYPE_F32, 1, 1, 1, 1, nullptr, 1, fn, 1, nullptr); });
    // a shape no tensor can have: logged, NULL (as for ggml_new_tensor)
    EXPECT_EQ(ggml_custom_4d(ctx_, GGML_TYPE_F32, -1, 1, 1, 1, nullptr, 0, fn, 1, nullptr), nullptr);
}

TEST_F(CustomOps, CustomInplaceIsAViewOfAWithAFirst) {
    ggml_tensor * a       = t(GGML_TYPE_F32, 6, 2);
    ggml_tensor * args[2] = {t(GGML_TYPE_F32, 6, 2), t(GGML_TYPE_F32, 1)};
    ggml_tensor * r       = ggml_custom_inplace(ctx_, a, args, 2, fn, 4, &g_user);
    expect_layout(r, GGML_TYPE_F32, {6, 2, 1, 1}, {4, 24, 48, 48});
    EXPECT_EQ(r->op, GGML_OP_CUSTOM);
    EXPECT_EQ(r->view_src, a);
    EXPECT_EQ(r->data, a->data);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], args[0]);
    EXPECT_EQ(r->src[2], args[1]);
    EXPECT_EQ(r->src[3], nullptr);
    EXPECT_EQ(params<ggml_custom_op_t>(r).fun, fn);
    EXPECT_EQ(params<ggml_custom_op_t>(r).n_tasks, 4);
    EXPECT_EQ(params<ggml_custom_op_t>(r).userdata, &g_user);

    ggml_tensor * many[GGML_MAX_SRC];
    for (ggml_tensor *& m : many) {
        m = t(GGML_TYPE_F32, 1);
    }
    // up to GGML_MAX_SRC - 2 arguments after a
    ggml_tensor * full = ggml_custom_inplace(ctx_, a, many, GGML_MAX_SRC - 2, fn, 1, nullptr);
    EXPECT_EQ(full->src[GGML_MAX_SRC - 2], many[GGML_MAX_SRC - 3]);
    EXPECT_EQ(full->src[GGML_MAX_SRC - 1], nullptr);
    const std::string msg = fatal_message([&] { ggml_custom_inplace(ctx_, a, many, GGML_MAX_SRC - 1, fn, 1, nullptr); });
    EXPECT_EQ(msg.rfind("[ggml_custom_inplace]", 0), 0u) << msg;
}

TEST_F(CustomOps, RejectsBadTaskCountsAndNullFunctions) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4);
    std::string   msg = fatal_message([&] { ggml_map_custom1(ctx_, a, fn1, 0, nullptr); });
    EXPECT_EQ(msg.rfind("[ggml_map_custom1]", 0), 0u) << msg;
    EXPECT_NE(msg.find("n_tasks 0"), std::string::npos) << msg;
    fatal_message([&] { ggml_map_custom2(ctx_, a, a, fn2, -2, nullptr); });
    fatal_message([&] { ggml_map_custom3_inplace(ctx_, a, a, a, fn3, -5, nullptr); });
    fatal_message([&] { ggml_custom_4d(ctx_, GGML_TYPE_F32, 1, 1, 1, 1, nullptr, 0, fn, 0, nullptr); });
    fatal_message([&] { ggml_custom_inplace(ctx_, a, nullptr, 0, fn, -3, nullptr); });
    msg = fatal_message([&] { ggml_map_custom1(ctx_, a, nullptr, 1, nullptr); });
    EXPECT_NE(msg.find("fun"), std::string::npos) << msg;
    fatal_message([&] { ggml_custom_4d(ctx_, GGML_TYPE_F32, 1, 1, 1, 1, nullptr, 0, nullptr, 1, nullptr); });
}

TEST_F(CustomOps, NullInputsGiveNull) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_map_custom1(ctx_, nullptr, fn1, 1, nullptr), nullptr);
    EXPECT_EQ(ggml_map_custom2(ctx_, a, nullptr, fn2, 1, nullptr), nullptr);
    EXPECT_EQ(ggml_map_custom3_inplace(ctx_, a, a, nullptr, fn3, 1, nullptr), nullptr);
    ggml_tensor * args[2] = {a, nullptr};
    EXPECT_EQ(ggml_custom_4d(ctx_, GGML_TYPE_F32, 4, 1, 1, 1, args, 2, fn, 1, nullptr), nullptr);
    EXPECT_EQ(ggml_custom_inplace(ctx_, nullptr, args, 1, fn, 1, nullptr), nullptr);
    EXPECT_EQ(ggml_custom_inplace(ctx_, a, args, 2, fn, 1, nullptr), nullptr);
}

} // namespace
