// Element-wise op constructors: DUP, ADD/SUB/MUL/DIV with broadcasting (accepted and rejected shapes),
// ADD_CAST, ADD_ID, ADD1, SQR/SQRT/LOG/SIN/COS; `_inplace` variants as views of a; NULL inputs and a full
// context give NULL instead of a crash.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using switchyard::testing::expect_layout;
using switchyard::testing::FatalError;
using switchyard::testing::param_f32;

class ElementwiseOps : public switchyard::testing::OpFixture {};

void expect_node(const ggml_tensor * r, ggml_op op, std::vector<const ggml_tensor *> srcs) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->op, op);
    for (size_t i = 0; i < GGML_MAX_SRC; ++i) {
        EXPECT_EQ(r->src[i], i < srcs.size() ? srcs[i] : nullptr) << "src[" << i << "]";
    }
}

bool params_zero(const ggml_tensor * r) {
    for (int32_t p : r->op_params) {
        if (p != 0) {
            return false;
        }
    }
    return true;
}

using Binary = ggml_tensor * (*) (ggml_context *, ggml_tensor *, ggml_tensor *);

struct BinaryCase {
    Binary      fn;
    const char *name;
    ggml_op     op;
    bool        inplace;
};

const BinaryCase kBinary[] = {
    {ggml_add, "ggml_add", GGML_OP_ADD, false}, {ggml_add_inplace, "ggml_add_inplace", GGML_OP_ADD, true},
    {ggml_sub, "ggml_sub", GGML_OP_SUB, false}, {ggml_sub_inplace, "ggml_sub_inplace", GGML_OP_SUB, true},
    {ggml_mul, "ggml_mul", GGML_OP_MUL, false}, {ggml_mul_inplace, "ggml_mul_inplace", GGML_OP_MUL, true},
    {ggml_div, "ggml_div", GGML_OP_DIV, false}, {ggml_div_inplace, "ggml_div_inplace", GGML_OP_DIV, true},
};

TEST_F(ElementwiseOps, BinarySameShapeGivesFreshTensorOfAsShape) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3, 2, 1);
    ggml_tensor * b = t(GGML_TYPE_F32, 4, 3, 2, 1);
    for (const auto & c : kBinary) {
        if (c.inplace) {
            continue;
        }
        SCOPED_TRACE(c.name);
        ggml_tensor * r = c.fn(ctx_, a, b);
        expect_layout(r, GGML_TYPE_F32, {4, 3, 2, 1}, {4, 16, 48, 96});
        expect_node(r, c.op, {a, b});
        EXPECT_EQ(r->view_src, nullptr);
        EXPECT_NE(r->data, a->data);
        EXPECT_TRUE(params_zero(r));
    }
}

TEST_F(ElementwiseOps, BinaryBroadcastsBIntoA) {
    ggml_tensor * a = t(GGML_TYPE_F16, 4, 3, 2, 2);
    for (const auto & c : kBinary) {
        SCOPED_TRACE(c.name);
        for (ggml_tensor * b : {t(GGML_TYPE_F32, 4, 1, 2, 1), t(GGML_TYPE_F32, 1, 1, 1, 1), t(GGML_TYPE_F32, 2, 3, 1, 2),
                                t(GGML_TYPE_F32, 4, 3, 2, 2)}) {
            ggml_tensor * r = c.fn(ctx_, a, b);
            expect_layout(r, GGML_TYPE_F16, {4, 3, 2, 2}, {2, 8, 24, 48});
            expect_node(r, c.op, {a, b});
        }
    }
}

TEST_F(ElementwiseOps, BinaryRejectsBThatDoesNotDivideA) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3, 2, 1);
    for (const auto & c : kBinary) {
        SCOPED_TRACE(c.name);
        const std::string msg = fatal_message([&] { c.fn(ctx_, a, t(GGML_TYPE_F32, 3, 1, 1, 1)); });
        EXPECT_EQ(msg.rfind(std::string("[") + c.name + "]", 0), 0u) << msg;
        EXPECT_NE(msg.find("f32 [3, 1, 1, 1]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("f32 [4, 3, 2, 1]"), std::string::npos) << msg;
        // b larger than a along a dimension: the broadcast goes one way only
        fatal_message([&] { c.fn(ctx_, a, t(GGML_TYPE_F32, 4, 3, 2, 2)); });
        fatal_message([&] { c.fn(ctx_, a, t(GGML_TYPE_F32, 4, 6, 2, 1)); });
    }
}

TEST_F(ElementwiseOps, InplaceBinaryIsAViewOfA) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_set_name(a, "a");
    ggml_tensor * b = t(GGML_TYPE_F32, 4, 1);
    for (const auto & c : kBinary) {
        if (!c.inplace) {
            continue;
        }
        SCOPED_TRACE(c.name);
        ggml_tensor * r = c.fn(ctx_, a, b);
        expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
        expect_node(r, c.op, {a, b});
        EXPECT_EQ(r->view_src, a);
        EXPECT_EQ(r->view_offs, 0u);
        EXPECT_EQ(r->data, a->data);
        EXPECT_STREQ(r->name, "a (view)");
    }
}

TEST_F(ElementwiseOps, InplaceOfAViewAliasesTheRootAtTheViewsOffset) {
    ggml_tensor * base = t(GGML_TYPE_F32, 8);
    ggml_tensor * v    = ggml_view_1d(ctx_, base, 4, 8);
    ggml_tensor * r    = ggml_sqr_inplace(ctx_, v);
    expect_layout(r, GGML_TYPE_F32, {4, 1, 1, 1}, {4, 16, 16, 16});
    expect_node(r, GGML_OP_SQR, {v});
    EXPECT_EQ(r->view_src, base);
    EXPECT_EQ(r->view_offs, 8u);
    EXPECT_EQ(r->data, static_cast<char *>(base->data) + 8);
}

TEST_F(ElementwiseOps, InplaceKeepsTheStridesOfAStridedA) {
    ggml_tensor * a  = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * tr = ggml_transpose(ctx_, a);
    ggml_tensor * r  = ggml_mul_inplace(ctx_, tr, t(GGML_TYPE_F32, 3, 1));
    expect_layout(r, GGML_TYPE_F32, {3, 4, 1, 1}, {16, 4, 48, 48});
    // the non-inplace form is contiguous
    expect_layout(ggml_mul(ctx_, tr, t(GGML_TYPE_F32, 3, 1)), GGML_TYPE_F32, {3, 4, 1, 1}, {4, 12, 48, 48});
}

TEST_F(ElementwiseOps, DupKeepsTypeAndShape) {
    ggml_tensor * a = t(GGML_TYPE_F16, 8, 2);
    ggml_tensor * r = ggml_dup(ctx_, a);
    expect_layout(r, GGML_TYPE_F16, {8, 2, 1, 1}, {2, 16, 32, 32});
    expect_node(r, GGML_OP_DUP, {a});
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * ri = ggml_dup_inplace(ctx_, a);
    expect_node(ri, GGML_OP_DUP, {a});
    EXPECT_EQ(ri->view_src, a);
}

TEST_F(ElementwiseOps, AddCastStoresTheRequestedType) {
    ggml_tensor * a = t(GGML_TYPE_F16, 8, 2);
    ggml_tensor * b = t(GGML_TYPE_F32, 8, 1);
    ggml_tensor * r = ggml_add_cast(ctx_, a, b, GGML_TYPE_F32);
    expect_layout(r, GGML_TYPE_F32, {8, 2, 1, 1}, {4, 32, 64, 64});
    expect_node(r, GGML_OP_ADD, {a, b});
    ggml_tensor * q  = t(GGML_TYPE_Q8_0, 64, 2);
    ggml_tensor * rq = ggml_add_cast(ctx_, q, t(GGML_TYPE_F32, 64, 2), GGML_TYPE_F16);
    expect_layout(rq, GGML_TYPE_F16, {64, 2, 1, 1}, {2, 128, 256, 256});
}

TEST_F(ElementwiseOps, AddCastRejectsF32AAndShortRows) {
    const std::string msg = fatal_message([&] { ggml_add_cast(ctx_, t(GGML_TYPE_F32, 8), t(GGML_TYPE_F32, 8), GGML_TYPE_F16); });
    EXPECT_EQ(msg.rfind("[ggml_add_cast]", 0), 0u) << msg;
    // b must span whole rows (ne0 equal), even where plain broadcasting would allow it
    fatal_message([&] { ggml_add_cast(ctx_, t(GGML_TYPE_F16, 8, 2), t(GGML_TYPE_F32, 4, 1), GGML_TYPE_F32); });
}

TEST_F(ElementwiseOps, AddIdPicksBRowsByIds) {
    ggml_tensor * a   = t(GGML_TYPE_F32, 8, 3, 5);
    ggml_tensor * b   = t(GGML_TYPE_F32, 8, 4);
    ggml_tensor * ids = t(GGML_TYPE_I32, 3, 5);
    ggml_tensor * r   = ggml_add_id(ctx_, a, b, ids);
    expect_layout(r, GGML_TYPE_F32, {8, 3, 5, 1}, {4, 32, 96, 480});
    expect_node(r, GGML_OP_ADD_ID, {a, b, ids});
    EXPECT_EQ(r->view_src, nullptr);
}

TEST_F(ElementwiseOps, AddIdRejectsMismatchedShapesAndTypes) {
    ggml_tensor * a = t(GGML_TYPE_F32, 8, 3, 5);
    ggml_tensor * b = t(GGML_TYPE_F32, 8, 4);
    const std::string msg = fatal_message([&] { ggml_add_id(ctx_, a, b, t(GGML_TYPE_F32, 3, 5)); });
    EXPECT_EQ(msg.rfind("[ggml_add_id]", 0), 0u) << msg;
    fatal_message([&] { ggml_add_id(ctx_, a, b, t(GGML_TYPE_I32, 3, 4)); });
    fatal_message([&] { ggml_add_id(ctx_, a, b, t(GGML_TYPE_I32, 2, 5)); });
    fatal_message([&] { ggml_add_id(ctx_, a, t(GGML_TYPE_F32, 7, 4), t(GGML_TYPE_I32, 3, 5)); });
}

TEST_F(ElementwiseOps, Add1TakesAScalar) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4, 3);
    ggml_tensor * s = t(GGML_TYPE_F32, 1);
    ggml_tensor * r = ggml_add1(ctx_, a, s);
    expect_layout(r, GGML_TYPE_F32, {4, 3, 1, 1}, {4, 16, 48, 48});
    expect_node(r, GGML_OP_ADD1, {a, s});
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * ri = ggml_add1_inplace(ctx_, a, s);
    expect_node(ri, GGML_OP_ADD1, {a, s});
    EXPECT_EQ(ri->view_src, a);
}

TEST_F(ElementwiseOps, Add1RejectsVectorsAndTransposedA) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 4, 3);
    const std::string msg = fatal_message([&] { ggml_add1(ctx_, a, t(GGML_TYPE_F32, 2)); });
    EXPECT_EQ(msg.rfind("[ggml_add1]", 0), 0u) << msg;
    fatal_message([&] { ggml_add1(ctx_, ggml_transpose(ctx_, a), t(GGML_TYPE_F32, 1)); });
}

TEST_F(ElementwiseOps, UnaryMathOps) {
    using Unary = ggml_tensor * (*) (ggml_context *, ggml_tensor *);
    struct Case {
        Unary   plain;
        Unary   inplace;
        ggml_op op;
    };
    const Case cases[] = {
        {ggml_sqr, ggml_sqr_inplace, GGML_OP_SQR}, {ggml_sqrt, ggml_sqrt_inplace, GGML_OP_SQRT},
        {ggml_log, ggml_log_inplace, GGML_OP_LOG}, {ggml_sin, ggml_sin_inplace, GGML_OP_SIN},
        {ggml_cos, ggml_cos_inplace, GGML_OP_COS},
    };
    ggml_tensor * a = t(GGML_TYPE_F32, 5, 2, 3);
    for (const auto & c : cases) {
        SCOPED_TRACE(ggml_op_name(c.op));
        ggml_tensor * r = c.plain(ctx_, a);
        expect_layout(r, GGML_TYPE_F32, {5, 2, 3, 1}, {4, 20, 40, 120});
        expect_node(r, c.op, {a});
        EXPECT_EQ(r->view_src, nullptr);
        ggml_tensor * ri = c.inplace(ctx_, a);
        expect_node(ri, c.op, {a});
        EXPECT_EQ(ri->view_src, a);
        EXPECT_EQ(ri->data, a->data);
    }
}

TEST_F(ElementwiseOps, NullInputsGiveNull) {
    ggml_tensor * a = t(GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_add(ctx_, nullptr, a), nullptr);
    EXPECT_EQ(ggml_mul(ctx_, a, nullptr), nullptr);
    EXPECT_EQ(ggml_add_id(ctx_, a, a, nullptr), nullptr);
    EXPECT_EQ(ggml_add1(ctx_, nullptr, a), nullptr);
    EXPECT_EQ(ggml_sqr(ctx_, nullptr), nullptr);
    EXPECT_EQ(ggml_dup_inplace(ctx_, nullptr), nullptr);
}

TEST(ElementwiseOpsContext, FullContextGivesNullAndFailuresPropagate) {
    std::string log;
    ggml_log_set([](ggml_log_level, const char * text, void * ud) { *static_cast<std::string *>(ud) += text; }, &log);
    ggml_context * ctx = ggml_init(ggml_init_params{2 * ggml_tensor_overhead(), nullptr, true});
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const size_t used = ggml_used_mem(ctx);

    EXPECT_EQ(ggml_add(ctx, a, b), nullptr);
    EXPECT_NE(log.find("[ggml_add]"), std::string::npos) << log;
    EXPECT_EQ(ggml_add_inplace(ctx, a, b), nullptr);
    // a failed result fed into the next constructor: NULL again, no crash
    EXPECT_EQ(ggml_sqr(ctx, ggml_add(ctx, a, b)), nullptr);
    EXPECT_NE(log.find("[ggml_sqr]"), std::string::npos) << log;
    EXPECT_EQ(ggml_used_mem(ctx), used);

    ggml_free(ctx);
    ggml_log_set(nullptr, nullptr);
}

} // namespace
