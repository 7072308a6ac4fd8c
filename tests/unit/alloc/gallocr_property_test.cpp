// Property test over many random graphs: whatever the graph, no two tensors alive at the same time share
// memory, every tensor lies aligned inside its buffer, and in-place reuse happens exactly where allowed.
#include "alloc_check.h"
#include "random_graph.h"
#include "test_buft.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace switchyard::alloc_test {
namespace {

struct Setting {
    size_t alignment;
    size_t max_size;
    size_t alloc_pad;
};

void run_random_graphs(const Setting & setting, unsigned seed, int n_graphs) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {setting.alignment, setting.max_size, setting.alloc_pad});
    std::mt19937               rng(seed);
    int                        inplace = 0;
    size_t                     largest = 0; // the largest tensor the allocator had to place
    for (int trial = 0; trial < n_graphs; ++trial) {
        ggml_init_params params = {ggml_tensor_overhead() * 1024 + ggml_graph_overhead_custom(4096, false), nullptr,
                                   true};
        ggml_context *   ctx    = ggml_init(params);
        ManualOps        ops{ctx};
        std::vector<ggml_tensor *> pre;
        RandomGraph g = build_random_graph(ops, rng, 5 + static_cast<int>(rng() % 40), pre);
        // weights already allocated elsewhere: the allocator must leave them alone
        size_t pre_bytes = 64;
        for (ggml_tensor * t : pre) {
            pre_bytes += GGML_PAD(ggml_nbytes(t), 64);
        }
        ggml_backend_buffer_t wbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), pre_bytes);
        ggml_tallocr          talloc = ggml_tallocr_new(wbuf);
        for (ggml_tensor * t : pre) {
            ASSERT_EQ(ggml_tallocr_alloc(&talloc, t), GGML_STATUS_SUCCESS);
        }

        // a tensor larger than the max size gets a chunk of its own: that chunk may exceed the max size
        for (int i = 0; i < g.graph->n_nodes + g.graph->n_leafs; ++i) {
            const ggml_tensor * t = i < g.graph->n_nodes ? g.graph->nodes[i] : g.graph->leafs[i - g.graph->n_nodes];
            if (t->view_src == nullptr && t->data == nullptr) {
                largest = std::max(largest, ggml_backend_buft_get_alloc_size(buft, t));
            }
        }
        AllocCheck     check(g.graph, buft);
        ggml_gallocr_t galloc = ggml_gallocr_new(buft);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g.graph)) << "trial " << trial;
        check.verify();
        for (ggml_tensor * t : pre) {
            EXPECT_NE(t->buffer, nullptr);
            EXPECT_TRUE(ggml_backend_buffer_get_type(t->buffer) == ggml_backend_cpu_buffer_type()) << t->name;
        }
        inplace += check.inplace_pairs();
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "seed " << seed << " trial " << trial;
            ggml_gallocr_free(galloc);
            ggml_backend_buffer_free(wbuf);
            ggml_free(ctx);
            return;
        }
        ggml_gallocr_free(galloc);
        ggml_backend_buffer_free(wbuf);
        ggml_free(ctx);
    }
    for (size_t size : test.allocations) {
        EXPECT_LE(size, std::max(setting.max_size, largest)) << "a chunk exceeds the buffer type's max size";
    }
    EXPECT_GT(inplace, n_graphs / 4) << "random graphs should offer in-place reuse regularly";
    EXPECT_EQ(test.live_buffers, 0);
}

TEST(GallocrProperty, RandomGraphsDefaultBufferType) {
    run_random_graphs({32, SIZE_MAX, 0}, 1, 300);
}

TEST(GallocrProperty, RandomGraphsWideAlignmentAndPadding) {
    run_random_graphs({256, SIZE_MAX, 40}, 2, 200);
}

TEST(GallocrProperty, RandomGraphsSmallMaxSizeMakeChunks) {
    run_random_graphs({64, 4096, 0}, 3, 200);
}

} // namespace
} // namespace switchyard::alloc_test
