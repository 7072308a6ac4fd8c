// ggml_build_forward_select and ggml_build_forward_order: every branch is placed in the graph in the same order
// whatever is selected, only the selected branch (and what it depends on) is flagged GGML_TENSOR_FLAG_COMPUTE, and
// the CPU backend skips the rest; ordering alone flags nothing until an expand or a select reaches the tensor.
#include "ggml.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct FatalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class GraphSelect : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{8 << 20, nullptr, false});
        ASSERT_NE(ctx_, nullptr);
    }
    void TearDown() override { ggml_free(ctx_); }

    ggml_tensor * input(const char * name, float value, int64_t n = 4) {
        ggml_tensor * t = ggml_set_name(ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n), name);
        for (int64_t i = 0; i < n; ++i) {
            static_cast<float *>(t->data)[i] = value;
        }
        return t;
    }

    // Two branches from the input x: a = scale(shared = sqr(x), 0.5) and b = scale(x, 3).
    struct Branches {
        ggml_tensor * x, * shared, * a, * b;
    };
    Branches branches() {
        Branches br{};
        br.x      = input("x", 2.0f);
        br.shared = ggml_set_name(ggml_sqr(ctx_, br.x), "shared");
        br.a      = ggml_set_name(ggml_scale(ctx_, br.shared, 0.5f), "a");
        br.b      = ggml_set_name(ggml_scale(ctx_, br.x, 3.0f), "b");
        return br;
    }

    ggml_context * ctx_ = nullptr;
};

bool computes(const ggml_tensor * t) {
    return (t->flags & GGML_TENSOR_FLAG_COMPUTE) != 0;
}

std::vector<std::string> node_names(ggml_cgraph * g) {
    std::vector<std::string> out;
    for (int i = 0; i < ggml_graph_n_nodes(g); ++i) {
        out.emplace_back(ggml_graph_node(g, i)->name);
    }
    return out;
}

TEST_F(GraphSelect, AllBranchesArePlacedOnlyTheSelectedOneComputes) {
    std::vector<std::vector<std::string>> orders;
    for (int idx = 0; idx < 2; ++idx) {
        const Branches br     = branches();
        ggml_tensor *  list[] = {br.a, br.b};
        ggml_cgraph *  g      = ggml_new_graph(ctx_);
        EXPECT_EQ(ggml_build_forward_select(g, list, 2, idx), list[idx]);
        orders.push_back(node_names(g));
        EXPECT_EQ(computes(br.a), idx == 0);
        EXPECT_EQ(computes(br.shared), idx == 0);
        EXPECT_EQ(computes(br.b), idx == 1);
        EXPECT_FALSE(computes(br.x)); // leafs never get the flag
    }
    EXPECT_EQ(orders[0], (std::vector<std::string>{"shared", "a", "b"}));
    EXPECT_EQ(orders[0], orders[1]);
}

TEST_F(GraphSelect, SelectedBranchFlagsAncestorsPlacedEarlier) {
    const Branches br = branches();
    ggml_cgraph *  g  = ggml_new_graph(ctx_);
    ggml_tensor *  c  = ggml_add(ctx_, br.shared, br.x);
    ggml_tensor *  list[] = {br.a, c};
    ggml_build_forward_select(g, list, 2, 1); // shared is placed (unflagged) by branch 0, then reached from c
    EXPECT_FALSE(computes(br.a));
    EXPECT_TRUE(computes(br.shared));
    EXPECT_TRUE(computes(c));
}

TEST_F(GraphSelect, OrderPlacesWithoutFlagsUntilExpanded) {
    const Branches br = branches();
    ggml_cgraph *  g  = ggml_new_graph(ctx_);
    ggml_build_forward_order(g, br.b);
    ggml_build_forward_order(g, br.a);
    EXPECT_EQ(node_names(g), (std::vector<std::string>{"b", "shared", "a"}));
    EXPECT_FALSE(computes(br.a) || computes(br.b) || computes(br.shared));
    ggml_tensor * sum = ggml_add(ctx_, br.a, br.x);
    ggml_build_forward_expand(g, sum);
    EXPECT_EQ(node_names(g), (std::vector<std::string>{"b", "shared", "a", ggml_get_name(sum)}));
    EXPECT_TRUE(computes(sum) && computes(br.a) && computes(br.shared));
    EXPECT_FALSE(computes(br.b));
}

TEST_F(GraphSelect, CpuSkipsTheUnselectedBranch) {
    // branch 1 reads row 7 of a 2-row table: computing it would fail; selecting branch 0 must not run it
    ggml_tensor * table = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 2);
    ggml_tensor * ids   = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, 1);
    static_cast<int32_t *>(ids->data)[0] = 7;
    for (int i = 0; i < 8; ++i) {
        static_cast<float *>(table->data)[i] = 1.0f;
    }
    ggml_tensor * good   = ggml_scale(ctx_, input("x", 2.0f), 3.0f);
    ggml_tensor * bad    = ggml_get_rows(ctx_, table, ids);
    ggml_tensor * list[] = {good, bad};
    ggml_cgraph * g      = ggml_new_graph(ctx_);
    ggml_build_forward_select(g, list, 2, 0);
    ASSERT_EQ(ggml_graph_compute_with_ctx(ctx_, g, 2), GGML_STATUS_SUCCESS);
    EXPECT_FLOAT_EQ(static_cast<float *>(good->data)[0], 6.0f);
    // the same graph with the other branch selected does run the bad one
    ggml_cgraph * g1 = ggml_new_graph(ctx_);
    ggml_build_forward_select(g1, list, 2, 1);
    EXPECT_EQ(ggml_graph_compute_with_ctx(ctx_, g1, 2), GGML_STATUS_FAILED);
}

TEST_F(GraphSelect, IndexOutOfRangeIsFatal) {
    const ggml_abort_callback_t previous = ggml_set_abort_callback([](const char * m) { throw FatalError(m); });
    const Branches              br       = branches();
    ggml_tensor *               list[]   = {br.a, br.b};
    ggml_cgraph *               g        = ggml_new_graph(ctx_);
    std::string                 message;
    try {
        ggml_build_forward_select(g, list, 2, 2);
    } catch (const FatalError & e) {
        message = e.what();
    }
    ggml_set_abort_callback(previous);
    EXPECT_NE(message.find("ggml_build_forward_select"), std::string::npos) << message;
    EXPECT_EQ(ggml_graph_n_nodes(g), 0);
}

} // namespace
