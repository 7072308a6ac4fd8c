// ggml_rope_set_offset: the window offset of a ROPE / ROPE_BACK node in op_params slot 15 (0 from every rope
// constructor), and its refusals through the abort callback: a node of another op, a VISION rope, a negative
// offset. An odd offset or a window past the row's end is taken, as upstream takes it, and no CPU kernel
// supports the node. A NULL node (an earlier constructor failed) travels on.
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

class RopeOps : public switchyard::testing::OpFixture {
  protected:
    ggml_tensor * rope(int n_dims, int mode) { return ggml_rope(ctx_, a_, pos_, n_dims, mode); }

    ggml_tensor * a_   = nullptr; // [64, 8, 5]
    ggml_tensor * pos_ = nullptr; // 5 positions

    void SetUp() override {
        OpFixture::SetUp();
        a_   = t(GGML_TYPE_F32, 64, 8, 5);
        pos_ = t(GGML_TYPE_I32, 5);
    }
};

TEST_F(RopeOps, ConstructorsLeaveTheOffsetZero) {
    int sections[GGML_MROPE_SECTIONS] = {4, 4, 4, 4};
    EXPECT_EQ(rope(32, GGML_ROPE_TYPE_NEOX)->op_params[15], 0);
    EXPECT_EQ(ggml_rope_ext_inplace(ctx_, a_, pos_, nullptr, 32, 0, 0, 1e4f, 1, 0, 1, 0, 0)->op_params[15], 0);
    EXPECT_EQ(ggml_rope_ext_back(ctx_, a_, pos_, nullptr, 32, 0, 0, 1e4f, 1, 0, 1, 0, 0)->op_params[15], 0);
    ggml_tensor * multi = ggml_rope_multi(ctx_, a_, t(GGML_TYPE_I32, 20), nullptr, 32, sections,
                                          GGML_ROPE_TYPE_MROPE, 0, 1e4f, 1, 0, 1, 0, 0);
    EXPECT_EQ(multi->op_params[14], 4);
    EXPECT_EQ(multi->op_params[15], 0);
}

TEST_F(RopeOps, SetOffsetStoresSlot15AndReturnsTheNode) {
    ggml_tensor * r = rope(32, GGML_ROPE_TYPE_NORMAL);
    EXPECT_EQ(ggml_rope_set_offset(r, 16), r);
    EXPECT_EQ(r->op_params[15], 16);
    EXPECT_EQ(r->op_params[1], 32); // the other parameters stay
    EXPECT_EQ(ggml_rope_set_offset(r, 32), r); // the window ends at the row's end
    EXPECT_EQ(r->op_params[15], 32);
    EXPECT_EQ(ggml_rope_set_offset(r, 0), r);
    EXPECT_EQ(r->op_params[15], 0);

    ggml_tensor * back = ggml_rope_ext_back(ctx_, a_, pos_, nullptr, 16, GGML_ROPE_TYPE_NEOX, 0, 1e4f, 1, 0, 1, 0, 0);
    EXPECT_EQ(ggml_rope_set_offset(back, 48), back);
    EXPECT_EQ(back->op_params[15], 48);

    int           sections[GGML_MROPE_SECTIONS] = {4, 4, 4, 4};
    ggml_tensor * im = ggml_rope_multi(ctx_, a_, t(GGML_TYPE_I32, 20), nullptr, 32, sections,
                                       GGML_ROPE_TYPE_IMROPE, 0, 1e4f, 1, 0, 1, 0, 0);
    EXPECT_EQ(ggml_rope_set_offset(im, 8), im);
    EXPECT_EQ(im->op_params[15], 8);

    // an in-place rope: the offset is the node's, the source keeps its parameters
    ggml_tensor * ri = ggml_rope_inplace(ctx_, a_, pos_, 16, GGML_ROPE_TYPE_NEOX);
    EXPECT_EQ(ggml_rope_set_offset(ri, 48), ri);
    EXPECT_EQ(ri->op_params[15], 48);
    EXPECT_EQ(a_->op_params[15], 0);
}

TEST_F(RopeOps, SetOffsetRejects) {
    ggml_tensor *     r   = rope(32, GGML_ROPE_TYPE_NEOX);
    const std::string msg = fatal_message([&] { ggml_rope_set_offset(r, -2); });
    EXPECT_EQ(msg.rfind("[ggml_rope_set_offset]", 0), 0u) << msg;
    fatal_message([&] { ggml_rope_set_offset(ggml_sqr(ctx_, a_), 0); });
    fatal_message([&] { ggml_rope_set_offset(a_, 2); }); // a leaf
    fatal_message([&] { ggml_rope_set_offset(ggml_soft_max(ctx_, a_), 2); });
    int           sections[GGML_MROPE_SECTIONS] = {8, 8, 0, 0};
    ggml_tensor * vision = ggml_rope_multi(ctx_, a_, t(GGML_TYPE_I32, 20), nullptr, 32, sections,
                                           GGML_ROPE_TYPE_VISION, 0, 1e4f, 1, 0, 1, 0, 0);
    ASSERT_NE(vision, nullptr);
    fatal_message([&] { ggml_rope_set_offset(vision, 0); });
    fatal_message([&] { ggml_rope_set_offset(vision, 2); });
    EXPECT_EQ(r->op_params[15], 0); // refusals change nothing
    EXPECT_EQ(ggml_rope_set_offset(nullptr, 2), nullptr); // logged, no crash
}

TEST_F(RopeOps, SetOffsetTakesWindowsNoKernelRuns) {
    using switchyard::testing::cpu_supports;
    ggml_tensor * r = rope(32, GGML_ROPE_TYPE_NEOX);
    EXPECT_TRUE(cpu_supports(r));
    for (int n_offs : {3, 34}) { // odd; 34 + 32 > 64
        EXPECT_EQ(ggml_rope_set_offset(r, n_offs), r);
        EXPECT_EQ(r->op_params[15], n_offs);
        EXPECT_FALSE(cpu_supports(r)) << n_offs;
    }
    EXPECT_EQ(ggml_rope_set_offset(r, 32), r); // the window ends at the row's end
    EXPECT_TRUE(cpu_supports(r));
}

} // namespace
