// Reservation and re-planning: reserve then allocate bigger or smaller graphs, graphs whose edges changed,
// several buffers (shared and distinct buffer types), reserve_n_size, chunks under a small max size, and
// allocation failures.
#include "alloc_check.h"
#include "random_graph.h"
#include "test_buft.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <vector>

namespace switchyard::alloc_test {
namespace {

// A small transformer-like block over n tokens: two projections, an activation, a residual add.
struct Block {
    ggml_tensor * x   = nullptr;
    ggml_tensor * out = nullptr;
};

Block build_block(ManualOps & ops, int64_t n_embd, int64_t n_tokens) {
    Block b;
    b.x = ops.leaf(n_embd, n_tokens);
    ggml_set_input(b.x);
    ggml_tensor * h  = ops.rms_norm(b.x);
    ggml_tensor * up = ops.unary(ops.mul_mat(ops.leaf(n_embd, 4 * n_embd), h));
    ggml_tensor * dn = ops.mul_mat(ops.leaf(4 * n_embd, n_embd), up);
    b.out            = ops.add(dn, b.x);
    ggml_set_output(b.out);
    return b;
}

struct Graph {
    ggml_context * ctx = nullptr;
    ggml_cgraph *  g   = nullptr;
    Block          block;

    Graph(int64_t n_embd, int64_t n_tokens) {
        ctx = ggml_init({ggml_tensor_overhead() * 64 + ggml_graph_overhead(), nullptr, true});
        ManualOps ops{ctx};
        block = build_block(ops, n_embd, n_tokens);
        g     = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, block.out);
    }
    ~Graph() { ggml_free(ctx); }
};

TEST(GallocrReserve, BiggerGraphReReserves) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      small(32, 2);
    ASSERT_TRUE(ggml_gallocr_reserve(galloc, small.g));
    size_t reserved = ggml_gallocr_get_buffer_size(galloc, 0);
    EXPECT_GT(reserved, 0u);
    Graph      big(32, 16);
    AllocCheck check(big.g, buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, big.g)); // same topology, larger tensors: plans again
    check.verify();
    EXPECT_GT(ggml_gallocr_get_buffer_size(galloc, 0), reserved);
    ggml_gallocr_free(galloc);
    EXPECT_EQ(test.live_buffers, 0);
}

TEST(GallocrReserve, SmallerGraphReusesTheReservation) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      big(32, 16);
    ASSERT_TRUE(ggml_gallocr_reserve(galloc, big.g));
    size_t reserved    = ggml_gallocr_get_buffer_size(galloc, 0);
    size_t allocations = test.allocations.size();
    for (int64_t n : {1, 5, 16}) {
        Graph      g(32, n);
        AllocCheck check(g.g, buft);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
        check.verify();
        EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 0), reserved);
    }
    EXPECT_EQ(test.allocations.size(), allocations) << "no buffer may be reallocated";
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, ChangedEdgesWithTheSameCountsArePlannedAgain) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    // graph 1: a chain; graph 2: same ops and sizes, but the first result stays alive until the end
    for (int variant = 0; variant < 2; ++variant) {
        ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 32 + ggml_graph_overhead(), nullptr, true});
        ManualOps      ops{ctx};
        ggml_tensor *  x = ops.leaf(64, 4);
        ggml_set_input(x);
        ggml_tensor * a = ops.cont(x);
        ggml_tensor * b = ops.cont(a);
        ggml_tensor * c = ops.cont(b);
        ggml_tensor * d = variant == 0 ? ops.add(c, ops.leaf(64, 4)) : ops.add(c, a);
        ggml_cgraph * g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, d);
        AllocCheck check(g, buft);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
        check.verify();
        ggml_free(ctx);
    }
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, SameGraphTwiceKeepsItsAddresses) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      g(16, 4);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    void * out = g.block.out->data;
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    EXPECT_EQ(g.block.out->data, out);
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, ReserveNSizeMeasuresWithoutAllocating) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      g(32, 8);
    size_t                     size = 0;
    ggml_gallocr_reserve_n_size(galloc, g.g, nullptr, nullptr, &size);
    EXPECT_TRUE(test.allocations.empty());
    EXPECT_GT(size, 0u);
    // the measured plan is usable directly: alloc_graph allocates buffers of exactly that size
    AllocCheck check(g.g, buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    check.verify();
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 0), size);
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, SeveralBufferTypes) {
    TestBuft                   ta, tb;
    ggml_backend_buffer_type_t bufts[3] = {init_test_buft(ta, {64, SIZE_MAX, 0, false, "A"}),
                                           init_test_buft(tb, {32, SIZE_MAX, 0, false, "B"}), nullptr};
    bufts[2]                            = bufts[0]; // shares A's buffer
    ggml_gallocr_t galloc               = ggml_gallocr_new_n(bufts, 3);
    Graph          g(32, 4);
    std::vector<int> node_ids(g.g->n_nodes), leaf_ids(g.g->n_leafs);
    for (size_t i = 0; i < node_ids.size(); ++i) {
        node_ids[i] = static_cast<int>(i % 3);
    }
    for (size_t i = 0; i < leaf_ids.size(); ++i) {
        leaf_ids[i] = static_cast<int>((i + 1) % 3);
    }
    size_t sizes[3] = {1, 1, 1};
    ggml_gallocr_reserve_n_size(galloc, g.g, node_ids.data(), leaf_ids.data(), sizes);
    EXPECT_GT(sizes[0], 0u);
    EXPECT_GT(sizes[1], 0u);
    EXPECT_EQ(sizes[2], 0u); // counted with buffer 0
    ASSERT_TRUE(ggml_gallocr_reserve_n(galloc, g.g, node_ids.data(), leaf_ids.data()));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    for (int i = 0; i < g.g->n_nodes; ++i) {
        ggml_tensor * n = g.g->nodes[i];
        if (n->view_src == nullptr) {
            EXPECT_EQ(ggml_backend_buffer_get_type(n->buffer), bufts[node_ids[i]]) << n->name;
        }
    }
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 0), sizes[0]);
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 1), sizes[1]);
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 2), 0u);
    // a different graph cannot be re-planned automatically with several buffers
    Graph other(32, 8);
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc, other.g));
    ggml_gallocr_free(galloc);
    EXPECT_EQ(ta.live_buffers + tb.live_buffers, 0);
}

TEST(GallocrReserve, PlanOutlivesGraphsItDoesNotFit) {
    // with several buffers a graph that differs from the reserved one is refused (never planned again); the
    // reserved plan must still place the reserved graph's shape afterwards, here rebuilt in another context
    TestBuft                   ta, tb;
    ggml_backend_buffer_type_t bufts[2] = {init_test_buft(ta, {64, SIZE_MAX, 0, false, "A"}),
                                           init_test_buft(tb, {32, SIZE_MAX, 0, false, "B"})};
    ggml_gallocr_t             galloc   = ggml_gallocr_new_n(bufts, 2);
    auto                       build    = [](ggml_context * ctx, bool chain) { // same counts, other edges
        ManualOps     ops{ctx};
        ggml_tensor * x = ops.leaf(64, 4);
        ggml_set_input(x);
        ggml_tensor * a = ops.cont(x);
        ggml_tensor * c = ops.cont(ops.cont(a));
        ggml_tensor * d = chain ? ops.add(c, ops.leaf(64, 4)) : ops.add(c, a);
        ggml_cgraph * g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, d);
        return g;
    };
    const ggml_init_params params{ggml_tensor_overhead() * 32 + ggml_graph_overhead(), nullptr, true};
    ggml_context *         ctx_a = ggml_init(params);
    ggml_cgraph *          a     = build(ctx_a, true);
    std::vector<int>       node_ids(static_cast<size_t>(a->n_nodes), 0), leaf_ids(static_cast<size_t>(a->n_leafs), 1);
    ASSERT_TRUE(ggml_gallocr_reserve_n(galloc, a, node_ids.data(), leaf_ids.data()));
    for (int round = 0; round < 2; ++round) {
        ggml_context * ctx_b = ggml_init(params);
        EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc, build(ctx_b, false))) << "round " << round;
        ggml_free(ctx_b);
    }
    ggml_context * ctx_c = ggml_init(params);
    ggml_cgraph *  c     = build(ctx_c, true);
    EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc, c));
    ggml_free(ctx_c);
    ggml_free(ctx_a);
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, InvalidBufferIdsAreRejected) {
    TestBuft       test;
    ggml_gallocr_t galloc = ggml_gallocr_new(init_test_buft(test, {}));
    Graph          g(16, 2);
    std::vector<int> node_ids(g.g->n_nodes, 1); // only buffer 0 exists
    EXPECT_FALSE(ggml_gallocr_reserve_n(galloc, g.g, node_ids.data(), nullptr));
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, SmallMaxSizeSplitsIntoChunks) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {32, 4096, 0});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      g(16, 16); // 1 KiB activations, 4 KiB weights, 4 KiB hidden
    AllocCheck                 check(g.g, buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    check.verify();
    EXPECT_GT(test.allocations.size(), 1u) << "the live set exceeds one chunk";
    for (size_t size : test.allocations) {
        EXPECT_LE(size, 4096u);
    }
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, ATensorLargerThanTheMaxSizeGetsItsOwnChunk) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {32, 1024, 0});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    Graph                      g(16, 32); // the 16x64 weights are 4 KiB
    AllocCheck                 check(g.g, buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.g));
    check.verify();
    ggml_gallocr_free(galloc);
}

// A plan that needs one chunk larger reallocates every chunk at the plan's sizes, as upstream does (its
// test-alloc's test_reallocation): chunks 24 + 16 bytes, then a graph needing 20 + 20 ends with 40 bytes, not 44.
TEST(GallocrReserve, AGrowingChunkReallocatesEveryChunkAtThePlansSizes) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = init_test_buft(test, {4, 32, 0});
    ggml_gallocr_t             galloc = ggml_gallocr_new(buft);
    const auto two_inputs = [&](int64_t a, int64_t b, bool through_view) {
        ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true});
        ManualOps      ops{ctx};
        ggml_tensor *  x = ops.leaf(a, 1);
        ggml_tensor *  y = ops.leaf(b, 1);
        ggml_set_input(x);
        ggml_set_input(y);
        ggml_tensor * out = ops.add(through_view ? ggml_view_1d(ctx, x, b, 0) : x, y);
        ggml_set_output(out);
        ggml_cgraph * g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, out);
        AllocCheck check(g, buft);
        EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
        check.verify();
        ggml_free(ctx);
    };
    two_inputs(6, 4, true); // 24 and 16 bytes: two chunks (together over the 32-byte maximum)
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 0), 40u);
    two_inputs(5, 5, false); // 20 and 20: the second chunk must grow
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc, 0), 40u);
    EXPECT_EQ(test.allocations, (std::vector<size_t>{24, 16, 20, 20}));
    EXPECT_EQ(test.live_buffers, 2);
    ggml_gallocr_free(galloc);
}

TEST(GallocrReserve, AllocationFailureIsReported) {
    TestBuft       test;
    ggml_gallocr_t galloc = ggml_gallocr_new(init_test_buft(test, {32, SIZE_MAX, 0, true}));
    Graph          g(16, 2);
    EXPECT_FALSE(ggml_gallocr_reserve(galloc, g.g));
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc, g.g));
    ggml_gallocr_free(galloc);
}

} // namespace
} // namespace switchyard::alloc_test
