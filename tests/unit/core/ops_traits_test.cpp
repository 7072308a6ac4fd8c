// The op table and the op-name API: names and symbols as upstream prints them, the in-place list the allocator
// relies on, source counts, sub-op names of UNARY and GLU nodes, and the sub-op getters' misuse check.
#include "core/op_traits.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace {

using switchyard::kOpTable;
using switchyard::op_info;

struct FatalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ThrowOnAbort {
  public:
    ThrowOnAbort() : previous_(ggml_set_abort_callback(&ThrowOnAbort::callback)) {}
    ~ThrowOnAbort() { ggml_set_abort_callback(previous_); }
    ThrowOnAbort(const ThrowOnAbort &)             = delete;
    ThrowOnAbort & operator=(const ThrowOnAbort &) = delete;

  private:
    static void callback(const char * message) { throw FatalError(message); }
    ggml_abort_callback_t previous_;
};

TEST(OpTraits, EveryRowSitsAtItsEnumValue) {
    ASSERT_EQ(kOpTable.size(), 101u);
    for (int i = 0; i < GGML_OP_COUNT; ++i) {
        EXPECT_EQ(static_cast<int>(kOpTable[static_cast<size_t>(i)].op), i);
    }
}

TEST(OpTraits, NamesMatchUpstreamSpelling) {
    EXPECT_STREQ(ggml_op_name(GGML_OP_NONE), "NONE");
    EXPECT_STREQ(ggml_op_name(GGML_OP_ADD), "ADD");
    EXPECT_STREQ(ggml_op_name(GGML_OP_ADD_ID), "ADD_ID");
    EXPECT_STREQ(ggml_op_name(GGML_OP_ADD1), "ADD1");
    EXPECT_STREQ(ggml_op_name(GGML_OP_MUL_MAT), "MUL_MAT");
    EXPECT_STREQ(ggml_op_name(GGML_OP_SET_ROWS), "SET_ROWS");
    EXPECT_STREQ(ggml_op_name(GGML_OP_FLASH_ATTN_EXT), "FLASH_ATTN_EXT");
    EXPECT_STREQ(ggml_op_name(GGML_OP_DSV4_HC_POST), "DSV4_HC_POST");
    EXPECT_STREQ(ggml_op_name(GGML_OP_UNARY), "UNARY");
    EXPECT_STREQ(ggml_op_name(GGML_OP_GLU), "GLU");
}

TEST(OpTraits, NamesAreUnique) {
    std::set<std::string> names;
    for (const auto & row : kOpTable) {
        EXPECT_TRUE(names.insert(row.name).second) << row.name;
    }
}

TEST(OpTraits, SymbolsMatchUpstream) {
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_NONE), "none");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_DUP), "x");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_ADD), "x+y");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_ADD_ID), "x[i]+y");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_SQRT), "\xe2\x88\x9ax");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_SUM), "\xce\xa3x");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_MEAN), "\xce\xa3x/n");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_MUL_MAT), "X*Y");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_MUL_MAT_ID), "X[i]*Y");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_SCALE), "x*v");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_CPY), "x-\\>y");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_ARANGE), "arange(start, stop, step)");
    EXPECT_STREQ(ggml_op_symbol(GGML_OP_GLU), "glu(x)");
}

TEST(OpTraits, InplaceListIsUpstreams) {
    const std::set<ggml_op> expected = {
        GGML_OP_FILL,     GGML_OP_SCALE,     GGML_OP_DIAG_MASK_ZERO, GGML_OP_DIAG_MASK_INF, GGML_OP_ADD,
        GGML_OP_ADD_ID,   GGML_OP_ADD1,      GGML_OP_SUB,            GGML_OP_MUL,           GGML_OP_DIV,
        GGML_OP_SQR,      GGML_OP_SQRT,      GGML_OP_LOG,            GGML_OP_UNARY,         GGML_OP_ROPE,
        GGML_OP_ROPE_BACK, GGML_OP_SILU_BACK, GGML_OP_RMS_NORM,      GGML_OP_RMS_NORM_BACK, GGML_OP_SOFT_MAX,
        GGML_OP_SOFT_MAX_BACK, GGML_OP_CLAMP, // (CLAMP since 0.25.1, where ggml_clamp no longer works in place)
    };
    for (const auto & row : kOpTable) {
        EXPECT_EQ(row.can_inplace, expected.count(row.op) == 1) << row.name;
    }
}

TEST(OpTraits, SourceCountsIncludeOptionalSources) {
    EXPECT_EQ(op_info(GGML_OP_ARANGE).n_src, 0);
    EXPECT_EQ(op_info(GGML_OP_SQR).n_src, 1);
    EXPECT_EQ(op_info(GGML_OP_MUL_MAT).n_src, 2);
    EXPECT_EQ(op_info(GGML_OP_GLU).n_src, 2);
    EXPECT_EQ(op_info(GGML_OP_SOFT_MAX).n_src, 3);
    EXPECT_EQ(op_info(GGML_OP_ROPE).n_src, 3);
    EXPECT_EQ(op_info(GGML_OP_SET_ROWS).n_src, 3);
    EXPECT_EQ(op_info(GGML_OP_FLASH_ATTN_EXT).n_src, 5);
    EXPECT_EQ(op_info(GGML_OP_CUSTOM).n_src, GGML_MAX_SRC);
}

TEST(OpTraits, OnlyNoneAndTheViewOpsAreEmpty) {
    const std::set<ggml_op> expected = {GGML_OP_NONE, GGML_OP_RESHAPE, GGML_OP_VIEW, GGML_OP_PERMUTE,
                                        GGML_OP_TRANSPOSE};
    for (const auto & row : kOpTable) {
        EXPECT_EQ(row.is_empty, expected.count(row.op) == 1) << row.name;
    }
}

TEST(OpTraits, OutOfRangeOpsGetAPlaceholderName) {
    EXPECT_STREQ(ggml_op_name(static_cast<ggml_op>(GGML_OP_COUNT)), "UNKNOWN");
    EXPECT_STREQ(ggml_op_name(static_cast<ggml_op>(-1)), "UNKNOWN");
    EXPECT_STREQ(ggml_unary_op_name(static_cast<ggml_unary_op>(GGML_UNARY_OP_COUNT)), "UNKNOWN");
    EXPECT_STREQ(ggml_glu_op_name(static_cast<ggml_glu_op>(GGML_GLU_OP_COUNT)), "UNKNOWN");
}

TEST(OpTraits, SubOpNames) {
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_ABS), "ABS");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_GELU_QUICK), "GELU_QUICK");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_SILU), "SILU");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_GELU_ERF), "GELU_ERF");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_TRUNC), "TRUNC");
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_REGLU), "REGLU");
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_SWIGLU_OAI), "SWIGLU_OAI");
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_GEGLU_QUICK), "GEGLU_QUICK");
}

TEST(OpTraits, DescNamesTheSubOpOfUnaryAndGluNodes) {
    ggml_tensor t{};
    t.op = GGML_OP_UNARY;
    t.op_params[0] = GGML_UNARY_OP_SIGMOID;
    EXPECT_STREQ(ggml_op_desc(&t), "SIGMOID");
    EXPECT_EQ(ggml_get_unary_op(&t), GGML_UNARY_OP_SIGMOID);

    t.op           = GGML_OP_GLU;
    t.op_params[0] = GGML_GLU_OP_GEGLU;
    EXPECT_STREQ(ggml_op_desc(&t), "GEGLU");
    EXPECT_EQ(ggml_get_glu_op(&t), GGML_GLU_OP_GEGLU);

    t.op = GGML_OP_SOFT_MAX;
    EXPECT_STREQ(ggml_op_desc(&t), "SOFT_MAX");
}

TEST(OpTraits, SubOpGettersRejectOtherOps) {
    ThrowOnAbort guard;
    ggml_tensor  t{};
    t.op = GGML_OP_ADD;
    EXPECT_THROW(ggml_get_unary_op(&t), FatalError);
    EXPECT_THROW(ggml_get_glu_op(&t), FatalError);
}

} // namespace
