// Graphs: build order (both evaluation orders), leafs vs nodes, dedupe of shared subexpressions, views, the
// COMPUTE flag, use counts, uids, add_node, views and copies of graphs, clear/reset, lookups, overflow (a
// programming error: through the abort callback), sizes in a context. Print and DOT export: graph_io_test.cpp.
//
// Node tensors are made by hand (op and src fields) so these tests do not depend on the op constructors.
#include "core/graph.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using switchyard::hash_find;
using switchyard::kHashFull;

class LogCapture {
  public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    const std::string & text() const { return text_; }

  private:
    static void callback(ggml_log_level, const char * text, void * user_data) {
        static_cast<LogCapture *>(user_data)->text_ += text;
    }
    std::string text_;
};

struct FatalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Turns fatal errors into exceptions while alive.
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

class GraphBuild : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{4 << 20, nullptr, true});
        ASSERT_NE(ctx_, nullptr);
    }
    void TearDown() override { ggml_free(ctx_); }

    ggml_tensor * input(const char * name, int64_t n = 4) {
        return ggml_set_name(ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n), name);
    }

    // A tensor computed by `op` from the given sources (the shape of the first one).
    ggml_tensor * op(ggml_op o, const char * name, ggml_tensor * a, ggml_tensor * b = nullptr,
                     ggml_tensor * c = nullptr) {
        ggml_tensor * t = ggml_new_tensor(ctx_, a->type, GGML_MAX_DIMS, a->ne);
        t->op           = o;
        t->src[0]       = a;
        t->src[1]       = b;
        t->src[2]       = c;
        return ggml_set_name(t, name);
    }

    ggml_context * ctx_ = nullptr;
};

std::vector<std::string> names(ggml_tensor ** ts, int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
        out.emplace_back(ts[i]->name);
    }
    return out;
}

using Names = std::vector<std::string>;

int32_t use_count(const ggml_cgraph * g, const ggml_tensor * t) {
    const size_t slot = hash_find(&g->visited_hash_set, t);
    EXPECT_NE(slot, kHashFull);
    EXPECT_TRUE(switchyard::hash_contains(&g->visited_hash_set, t)) << t->name;
    return g->use_counts[slot];
}

TEST_F(GraphBuild, NewGraphIsEmpty) {
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(ggml_graph_size(g), GGML_DEFAULT_GRAPH_SIZE);
    EXPECT_EQ(ggml_graph_n_nodes(g), 0);
    EXPECT_EQ(g->n_leafs, 0);
    EXPECT_EQ(g->grads, nullptr);
    EXPECT_EQ(g->grad_accs, nullptr);
    EXPECT_EQ(g->uid, 0u);
    EXPECT_EQ(g->order, GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT);
    EXPECT_GE(g->visited_hash_set.size, 2u * GGML_DEFAULT_GRAPH_SIZE);
    EXPECT_EQ(ggml_graph_nodes(g), g->nodes);
}

TEST_F(GraphBuild, SourcesComeBeforeConsumersLeftToRight) {
    ggml_tensor * a = input("a");
    ggml_tensor * b = input("b");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", b);
    ggml_tensor * x = op(GGML_OP_ADD, "x", p, q);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, x);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"p", "q", "x"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"a", "b"}));
    EXPECT_EQ(ggml_graph_node(g, -1), x);
}

TEST_F(GraphBuild, RightToLeftVisitsTheLastSourceFirst) {
    ggml_tensor * a = input("a");
    ggml_tensor * b = input("b");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", b);
    ggml_tensor * x = op(GGML_OP_ADD, "x", p, q);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    g->order        = GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT;
    ggml_build_forward_expand(g, x);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"q", "p", "x"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"b", "a"}));
}

TEST_F(GraphBuild, SharedSubexpressionsAppearOnce) {
    ggml_tensor * a = input("a");
    ggml_tensor * b = input("b");
    ggml_tensor * s = op(GGML_OP_ADD, "s", a, b);   // shared
    ggml_tensor * u = op(GGML_OP_MUL, "u", s, a);
    ggml_tensor * v = op(GGML_OP_SUB, "v", s, b);
    ggml_tensor * w = op(GGML_OP_DIV, "w", u, v);
    ggml_tensor * y = op(GGML_OP_ADD, "y", w, s);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"s", "u", "v", "w", "y"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"a", "b"}));

    // expanding again with tensors already present adds nothing
    ggml_build_forward_expand(g, y);
    ggml_build_forward_expand(g, u);
    EXPECT_EQ(g->n_nodes, 5);
    EXPECT_EQ(g->n_leafs, 2);

    // a second output appends only what is new
    ggml_tensor * z = op(GGML_OP_SQR, "z", u);
    ggml_build_forward_expand(g, z);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"s", "u", "v", "w", "y", "z"}));
}

TEST_F(GraphBuild, UseCountsCountConsumerEdges) {
    ggml_tensor * a = input("a");
    ggml_tensor * b = input("b");
    ggml_tensor * s = op(GGML_OP_ADD, "s", a, b);
    ggml_tensor * u = op(GGML_OP_MUL, "u", s, a);
    ggml_tensor * sq = op(GGML_OP_MUL, "sq", u, u); // the same source twice counts twice
    ggml_tensor * y = op(GGML_OP_ADD, "y", sq, s);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(use_count(g, a), 2);  // s, u
    EXPECT_EQ(use_count(g, b), 1);  // s
    EXPECT_EQ(use_count(g, s), 2);  // u, y
    EXPECT_EQ(use_count(g, u), 2);  // sq (twice)
    EXPECT_EQ(use_count(g, sq), 1); // y
    EXPECT_EQ(use_count(g, y), 0);  // the output

    // a later consumer of a tensor already in the graph adds to its count
    ggml_tensor * z = op(GGML_OP_SQR, "z", s);
    ggml_build_forward_expand(g, z);
    EXPECT_EQ(use_count(g, s), 3);
    EXPECT_EQ(use_count(g, z), 0);
}

TEST_F(GraphBuild, LeafsAreConstantsNodesAreOpsAndParams) {
    ggml_tensor * w = input("w");
    ggml_set_param(w); // trainable: a node even without an op
    ggml_tensor * x = input("x");
    ggml_set_input(x);
    ggml_tensor * y = op(GGML_OP_MUL, "y", w, x);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"w", "y"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"x"}));
}

TEST_F(GraphBuild, ComputeFlagOnNodesOnly) {
    ggml_tensor * a = input("a");
    ggml_tensor * w = input("w");
    ggml_set_param(w);
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * y = op(GGML_OP_ADD, "y", p, w);
    ggml_tensor * unused = op(GGML_OP_SQR, "unused", a);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_TRUE(p->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_TRUE(y->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_TRUE(w->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_FALSE(a->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_FALSE(unused->flags & GGML_TENSOR_FLAG_COMPUTE);

    // a cleared flag comes back when the graph is expanded from a consumer again
    p->flags &= ~GGML_TENSOR_FLAG_COMPUTE;
    y->flags &= ~GGML_TENSOR_FLAG_COMPUTE;
    ggml_build_forward_expand(g, y);
    EXPECT_TRUE(p->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_TRUE(y->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_EQ(g->n_nodes, 3);
}

TEST_F(GraphBuild, ViewsAreNodesAndTheirSourcesAreInTheGraph) {
    ggml_tensor * a = ggml_set_name(ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 3), "a");
    ggml_tensor * v = ggml_view_tensor(ctx_, a); // what ggml_view_* make: op VIEW, src[0] = a
    v->op           = GGML_OP_VIEW;
    v->src[0]       = a;
    ggml_set_name(v, "v");
    ggml_tensor * y = op(GGML_OP_SQR, "y", v);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"v", "y"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"a"}));
    EXPECT_TRUE(v->flags & GGML_TENSOR_FLAG_COMPUTE);

    // a plain ggml_view_tensor (op NONE, no sources) is a leaf of its own
    ggml_tensor * pv = ggml_view_tensor(ctx_, a);
    ggml_tensor * z  = op(GGML_OP_SQR, "z", pv);
    ggml_build_forward_expand(g, z);
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"a", "a (view)"}));
}

TEST_F(GraphBuild, UnnamedTensorsGetPositionalNames) {
    ggml_tensor * a = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4);
    ggml_tensor * s = op(GGML_OP_ADD, "", a, b);
    ggml_tensor * y = op(GGML_OP_SQR, "y", s);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_STREQ(a->name, "leaf_0");
    EXPECT_STREQ(b->name, "leaf_1");
    EXPECT_STREQ(s->name, "node_0");
    EXPECT_STREQ(y->name, "y");
}

TEST_F(GraphBuild, UidIsFreshForEachChangeAndZeroForViewsAndCopies) {
    ggml_tensor * a  = input("a");
    ggml_tensor * y  = op(GGML_OP_SQR, "y", a);
    ggml_tensor * z  = op(GGML_OP_SQR, "z", y);
    ggml_cgraph * g1 = ggml_new_graph(ctx_);
    ggml_cgraph * g2 = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g1, y);
    ggml_build_forward_expand(g2, y);
    EXPECT_NE(g1->uid, 0u);
    EXPECT_NE(g2->uid, 0u);
    EXPECT_NE(g1->uid, g2->uid);

    const uint64_t before = g1->uid;
    ggml_build_forward_expand(g1, y); // nothing new
    EXPECT_EQ(g1->uid, before);
    ggml_build_forward_expand(g1, z);
    EXPECT_NE(g1->uid, before);
    EXPECT_NE(g1->uid, 0u);

    EXPECT_EQ(switchyard::graph_view(g1, 0, 1).uid, 0u);
    ggml_cgraph * copy = ggml_graph_dup(ctx_, g1, false);
    EXPECT_EQ(copy->uid, 0u);
    ggml_graph_clear(g1);
    EXPECT_EQ(g1->uid, 0u);
}

TEST_F(GraphBuild, AddNodeAppendsAsIs) {
    ggml_tensor * a = input("a");
    ggml_tensor * y = op(GGML_OP_SQR, "y", a);
    ggml_tensor * extra = op(GGML_OP_SQR, "extra", y);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    ggml_graph_add_node(g, extra);
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"y", "extra"}));
    EXPECT_FALSE(extra->flags & GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_EQ(g->n_leafs, 1);
    // no dependency walk: a tensor whose sources are missing is appended all the same
    ggml_tensor * orphan = op(GGML_OP_ADD, "orphan", input("b"), input("c"));
    ggml_graph_add_node(g, orphan);
    EXPECT_EQ(g->n_nodes, 3);
    EXPECT_EQ(g->n_leafs, 1);
}

TEST_F(GraphBuild, NodeAccessorsAndNegativeIndices) {
    ggml_tensor * a = input("a");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQRT, "q", p);
    ggml_tensor * r = op(GGML_OP_LOG, "r", q);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, r);
    EXPECT_EQ(ggml_graph_n_nodes(g), 3);
    EXPECT_EQ(ggml_graph_node(g, 0), p);
    EXPECT_EQ(ggml_graph_node(g, 2), r);
    EXPECT_EQ(ggml_graph_node(g, -1), r);
    EXPECT_EQ(ggml_graph_node(g, -3), p);
    EXPECT_EQ(ggml_graph_nodes(g)[1], q);
    LogCapture log;
    EXPECT_EQ(ggml_graph_node(g, 3), nullptr);
    EXPECT_EQ(ggml_graph_node(g, -4), nullptr);
    EXPECT_NE(log.text().find("ggml_graph_node"), std::string::npos);
}

TEST_F(GraphBuild, GetTensorSearchesNodesAndLeafs) {
    ggml_tensor * a = input("a");
    ggml_tensor * y = op(GGML_OP_SQR, "y", a);
    ggml_tensor * outside = input("outside");
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    EXPECT_EQ(ggml_graph_get_tensor(g, "a"), a);
    EXPECT_EQ(ggml_graph_get_tensor(g, "y"), y);
    EXPECT_EQ(ggml_graph_get_tensor(g, "outside"), nullptr);
    EXPECT_EQ(ggml_graph_get_tensor(g, ""), nullptr);
    (void) outside;
}

TEST_F(GraphBuild, GraphViewSharesStorage) {
    ggml_tensor * a = input("a");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", p);
    ggml_tensor * r = op(GGML_OP_SQR, "r", q);
    ggml_tensor * s = op(GGML_OP_SQR, "s", r);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, s);
    ggml_cgraph v = switchyard::graph_view(g, 1, 3);
    EXPECT_EQ(v.n_nodes, 2);
    EXPECT_EQ(v.n_leafs, 0);
    EXPECT_EQ(v.nodes, g->nodes + 1);
    EXPECT_EQ(ggml_graph_node(&v, 0), q);
    EXPECT_EQ(ggml_graph_node(&v, -1), r);
    EXPECT_EQ(v.use_counts, g->use_counts);
    EXPECT_EQ(v.visited_hash_set.keys, g->visited_hash_set.keys);
    EXPECT_EQ(v.grads, nullptr);
    EXPECT_EQ(use_count(&v, q), 1);
    // a view is full: appending to it would overwrite its parent
    ThrowOnAbort guard;
    EXPECT_THROW(ggml_graph_add_node(&v, a), FatalError);
}

TEST_F(GraphBuild, CopyAndDupKeepNodesLeafsAndUseCounts) {
    ggml_tensor * a = input("a");
    ggml_tensor * b = input("b");
    ggml_tensor * s = op(GGML_OP_ADD, "s", a, b);
    ggml_tensor * y = op(GGML_OP_MUL, "y", s, s);
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 16, false);
    ggml_build_forward_expand(g, y);

    ggml_cgraph * dst = ggml_new_graph_custom(ctx_, 32, false);
    ggml_tensor * stale = op(GGML_OP_SQR, "stale", a);
    ggml_build_forward_expand(dst, stale); // previous content is replaced
    ggml_graph_cpy(g, dst);
    EXPECT_EQ(names(dst->nodes, dst->n_nodes), (Names{"s", "y"}));
    EXPECT_EQ(names(dst->leafs, dst->n_leafs), (Names{"a", "b"}));
    EXPECT_EQ(use_count(dst, s), 2);
    EXPECT_EQ(use_count(dst, a), 1);
    EXPECT_FALSE(switchyard::hash_contains(&dst->visited_hash_set, stale));
    EXPECT_EQ(dst->order, g->order);

    ggml_cgraph * dup = ggml_graph_dup(ctx_, g, false);
    ASSERT_NE(dup, nullptr);
    EXPECT_EQ(ggml_graph_size(dup), 16);
    EXPECT_EQ(names(dup->nodes, dup->n_nodes), (Names{"s", "y"}));
    EXPECT_EQ(use_count(dup, b), 1);
    EXPECT_EQ(dup->grads, nullptr);
    ggml_cgraph * dup_grads = ggml_graph_dup(ctx_, g, true);
    EXPECT_NE(dup_grads->grads, nullptr);
    EXPECT_EQ(ggml_graph_get_grad(dup_grads, y), nullptr);

    // the copy is independent of the original
    ggml_build_forward_expand(dup, op(GGML_OP_SQR, "more", y));
    EXPECT_EQ(g->n_nodes, 2);
    EXPECT_EQ(dup->n_nodes, 3);
}

TEST_F(GraphBuild, DupOfAViewCopiesItsNodes) {
    ggml_tensor * a = input("a");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", p);
    ggml_tensor * r = op(GGML_OP_SQR, "r", q);
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 64, false);
    ggml_build_forward_expand(g, r);
    ggml_cgraph   v   = switchyard::graph_view(g, 1, 3);
    ggml_cgraph * dup = ggml_graph_dup(ctx_, &v, false);
    ASSERT_NE(dup, nullptr);
    EXPECT_EQ(names(dup->nodes, dup->n_nodes), (Names{"q", "r"}));
    EXPECT_EQ(use_count(dup, q), 1);
}

TEST_F(GraphBuild, CopyIntoASmallerGraphIsFatal) {
    ggml_tensor * a = input("a");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", p);
    ggml_tensor * r = op(GGML_OP_SQR, "r", q);
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 8, false);
    ggml_build_forward_expand(g, r);
    ggml_cgraph * small = ggml_new_graph_custom(ctx_, 2, false);
    ThrowOnAbort  guard;
    LogCapture    log;
    EXPECT_THROW(ggml_graph_cpy(g, small), FatalError);
    EXPECT_NE(log.text().find("ggml_graph_cpy"), std::string::npos);
}

TEST_F(GraphBuild, ClearForgetsNodesLeafsAndTheHashSet) {
    ggml_tensor * a = input("a");
    ggml_tensor * y = op(GGML_OP_SQR, "y", a);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    ggml_graph_clear(g);
    EXPECT_EQ(g->n_nodes, 0);
    EXPECT_EQ(g->n_leafs, 0);
    EXPECT_FALSE(switchyard::hash_contains(&g->visited_hash_set, y));
    ggml_build_forward_expand(g, y); // rebuilt from scratch
    EXPECT_EQ(names(g->nodes, g->n_nodes), (Names{"y"}));
    EXPECT_EQ(names(g->leafs, g->n_leafs), (Names{"a"}));
    EXPECT_EQ(use_count(g, a), 1);
}

TEST_F(GraphBuild, OverflowOfASmallGraphIsFatal) {
    ggml_tensor * a = input("a");
    ggml_tensor * p = op(GGML_OP_SQR, "p", a);
    ggml_tensor * q = op(GGML_OP_SQR, "q", p);
    ggml_tensor * r = op(GGML_OP_SQR, "r", q);
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 2, false);
    ggml_build_forward_expand(g, q); // exactly full
    EXPECT_EQ(g->n_nodes, 2);
    ThrowOnAbort guard;
    LogCapture   log;
    EXPECT_THROW(ggml_build_forward_expand(g, r), FatalError);
    EXPECT_NE(log.text().find("graph is full"), std::string::npos) << log.text();
    EXPECT_THROW(ggml_graph_add_node(g, r), FatalError);
}

TEST_F(GraphBuild, TooManyLeafsIsFatal) {
    ggml_tensor * y = op(GGML_OP_ADD, "y", input("a"), input("b"), input("c"));
    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 2, false);
    ThrowOnAbort  guard;
    EXPECT_THROW(ggml_build_forward_expand(g, y), FatalError);
}

TEST_F(GraphBuild, DeepChainsNeedNoRecursion) {
    constexpr int kDepth = 50000;
    ggml_context * big   = ggml_init(ggml_init_params{
        (kDepth + 2) * ggml_tensor_overhead() + ggml_graph_overhead_custom(kDepth, false), nullptr, true});
    ASSERT_NE(big, nullptr);
    ggml_tensor * t = ggml_new_tensor_1d(big, GGML_TYPE_F32, 1);
    for (int i = 0; i < kDepth; ++i) {
        ggml_tensor * n = ggml_new_tensor_1d(big, GGML_TYPE_F32, 1);
        n->op           = GGML_OP_SQR;
        n->src[0]       = t;
        t               = n;
    }
    ggml_cgraph * g = ggml_new_graph_custom(big, kDepth, false);
    ASSERT_NE(g, nullptr);
    ggml_build_forward_expand(g, t);
    EXPECT_EQ(g->n_nodes, kDepth);
    EXPECT_EQ(g->n_leafs, 1);
    EXPECT_EQ(ggml_graph_node(g, -1), t);
    EXPECT_EQ(ggml_graph_node(g, 0)->src[0], g->leafs[0]);
    ggml_free(big);
}

TEST(GraphMemory, OverheadIsExactlyWhatAGraphTakes) {
    for (size_t size : {size_t(0), size_t(1), size_t(7), size_t(100), size_t(GGML_DEFAULT_GRAPH_SIZE)}) {
        for (bool grads : {false, true}) {
            SCOPED_TRACE(testing::Message() << "size " << size << " grads " << grads);
            const size_t   overhead = ggml_graph_overhead_custom(size, grads);
            ggml_context * ctx      = ggml_init(ggml_init_params{overhead, nullptr, true});
            ASSERT_NE(ctx, nullptr);
            ggml_cgraph * g = ggml_new_graph_custom(ctx, size, grads);
            ASSERT_NE(g, nullptr);
            EXPECT_EQ(ggml_used_mem(ctx), overhead);
            EXPECT_EQ(ggml_graph_size(g), static_cast<int>(size));
            EXPECT_EQ(g->grads != nullptr, grads);
            // the arrays lie inside the object
            const char * begin = static_cast<const char *>(ggml_get_mem_buffer(ctx));
            const char * end   = begin + overhead;
            auto inside = [&](const void * p, size_t n) {
                const char * c = static_cast<const char *>(p);
                return c >= begin && c + n <= end;
            };
            EXPECT_TRUE(inside(g->nodes, size * sizeof(void *)));
            EXPECT_TRUE(inside(g->leafs, size * sizeof(void *)));
            EXPECT_TRUE(inside(g->use_counts, g->visited_hash_set.size * sizeof(int32_t)));
            EXPECT_TRUE(inside(g->visited_hash_set.keys, g->visited_hash_set.size * sizeof(void *)));
            EXPECT_TRUE(inside(g->visited_hash_set.used, (g->visited_hash_set.size + 31) / 32 * 4));
            {
                LogCapture log;
                EXPECT_EQ(ggml_new_graph_custom(ctx, 0, false), nullptr); // the context is full
                EXPECT_NE(log.text().find("ggml_new_graph_custom"), std::string::npos);
            }
            ggml_free(ctx);
        }
    }
    EXPECT_EQ(ggml_graph_overhead(), ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false));
    EXPECT_GT(ggml_graph_overhead_custom(64, true), ggml_graph_overhead_custom(64, false));
}

TEST(GraphMemory, GraphDoesNotFitInASmallerContext) {
    const size_t   overhead = ggml_graph_overhead_custom(100, false);
    ggml_context * ctx      = ggml_init(ggml_init_params{overhead - GGML_MEM_ALIGN, nullptr, true});
    ASSERT_NE(ctx, nullptr);
    LogCapture log;
    EXPECT_EQ(ggml_new_graph_custom(ctx, 100, false), nullptr);
    EXPECT_NE(log.text().find(std::to_string(overhead)), std::string::npos) << log.text();
    EXPECT_EQ(ggml_used_mem(ctx), 0u);
    ggml_free(ctx);
}

TEST(GraphHashSet, SizesArePrimesAboveTwiceTheCount) {
    for (size_t n : {size_t(1), size_t(10), size_t(1000), size_t(2048), size_t(65536)}) {
        const size_t s = switchyard::hash_size(n);
        EXPECT_GE(s, 2 * n);
        EXPECT_LT(s, 2 * n + 100);
        for (size_t d = 2; d * d <= s; ++d) {
            ASSERT_NE(s % d, 0u) << s << " is not prime";
        }
    }
    EXPECT_EQ(switchyard::hash_size(2048), 4099u);
}

TEST(GraphHashSet, InsertFindReset) {
    constexpr size_t kSlots = 7;
    ggml_tensor *    keys[kSlots];
    uint32_t         used[1] = {0};
    ggml_hash_set    set{kSlots, used, keys};
    std::vector<ggml_tensor> tensors(kSlots + 1);

    for (size_t i = 0; i < kSlots; ++i) {
        EXPECT_FALSE(switchyard::hash_contains(&set, &tensors[i]));
        const size_t slot = switchyard::hash_insert(&set, &tensors[i]);
        ASSERT_LT(slot, kSlots);
        EXPECT_EQ(keys[slot], &tensors[i]);
        EXPECT_EQ(switchyard::hash_find(&set, &tensors[i]), slot);
        EXPECT_EQ(switchyard::hash_insert(&set, &tensors[i]), kHashFull); // already present
        EXPECT_EQ(switchyard::hash_find_or_insert(&set, &tensors[i]), slot);
    }
    for (size_t i = 0; i < kSlots; ++i) {
        EXPECT_TRUE(switchyard::hash_contains(&set, &tensors[i]));
    }
    // the set is full: an unknown tensor is not found, and inserting it is fatal
    EXPECT_EQ(switchyard::hash_find(&set, &tensors[kSlots]), kHashFull);
    EXPECT_FALSE(switchyard::hash_contains(&set, &tensors[kSlots]));
    {
        ThrowOnAbort guard;
        EXPECT_THROW(switchyard::hash_insert(&set, &tensors[kSlots]), FatalError);
    }
    switchyard::hash_reset(&set);
    for (size_t i = 0; i <= kSlots; ++i) {
        EXPECT_FALSE(switchyard::hash_contains(&set, &tensors[i]));
    }
}

TEST_F(GraphBuild, GradientsAndReset) {
    ggml_context * data_ctx = ggml_init(ggml_init_params{1 << 16, nullptr, false});
    ASSERT_NE(data_ctx, nullptr);
    ggml_tensor * w = ggml_set_name(ggml_new_tensor_1d(data_ctx, GGML_TYPE_F32, 4), "w");
    ggml_set_param(w);
    ggml_tensor * loss = ggml_new_tensor_1d(data_ctx, GGML_TYPE_F32, 1);
    loss->op           = GGML_OP_SUM;
    loss->src[0]       = w;
    ggml_set_loss(loss);

    ggml_cgraph * plain = ggml_new_graph(ctx_);
    ggml_build_forward_expand(plain, loss);
    EXPECT_EQ(ggml_graph_get_grad(plain, loss), nullptr);
    EXPECT_EQ(ggml_graph_get_grad_acc(plain, loss), nullptr);
    ggml_graph_reset(plain); // nothing to reset
    ggml_graph_reset(nullptr);

    ggml_cgraph * g = ggml_new_graph_custom(ctx_, 16, true);
    ggml_build_forward_expand(g, loss);
    ggml_tensor * gw    = ggml_new_tensor_1d(data_ctx, GGML_TYPE_F32, 4);
    ggml_tensor * gloss = ggml_new_tensor_1d(data_ctx, GGML_TYPE_F32, 1);
    const size_t  sw    = hash_find(&g->visited_hash_set, w);
    const size_t  sl    = hash_find(&g->visited_hash_set, loss);
    g->grads[sw] = g->grad_accs[sw] = gw;
    g->grads[sl] = g->grad_accs[sl] = gloss;
    EXPECT_EQ(ggml_graph_get_grad(g, w), gw);
    EXPECT_EQ(ggml_graph_get_grad_acc(g, loss), gloss);
    EXPECT_EQ(ggml_graph_get_grad(g, gw), nullptr); // not in the graph

    for (int i = 0; i < 4; ++i) {
        static_cast<float *>(gw->data)[i] = 5.0f;
    }
    *static_cast<float *>(gloss->data) = 7.0f;
    ggml_graph_reset(g);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(static_cast<float *>(gw->data)[i], 0.0f);
    }
    EXPECT_EQ(*static_cast<float *>(gloss->data), 1.0f); // d loss / d loss

    // copies keep the gradients of each node
    ggml_cgraph * copy = ggml_graph_dup(ctx_, g, false);
    EXPECT_EQ(ggml_graph_get_grad(copy, w), gw);
    EXPECT_EQ(ggml_graph_get_grad_acc(copy, loss), gloss);
    ggml_free(data_ctx);
}

} // namespace
