// graph_optimize's allocation dependencies (ggml 0.25.1, ggml-backend-impl.h): a backend that will compute a node
// late (out of order, on another stream) asks the scheduler to keep a tensor allocated until a later node; the
// scheduler's plan must then not give that tensor's memory to the nodes in between.
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

constexpr int kChain = 8, kN = 4096;

// the tensor the optimizer keeps and the node it keeps it until (set by each test before alloc_graph)
ggml_tensor * g_keep  = nullptr;
ggml_tensor * g_until = nullptr;
int           g_calls = 0;

void keep_first_until_last(ggml_backend_t, ggml_cgraph * graph, ggml_backend_graph_optimize_params * params) {
    ++g_calls;
    ASSERT_NE(params, nullptr);
    ASSERT_NE(params->add_alloc_dep, nullptr);
    ASSERT_GT(ggml_graph_n_nodes(graph), 0);
    if (g_keep != nullptr) {
        params->add_alloc_dep(params->user_data, g_keep, g_until);
        params->add_alloc_dep(params->user_data, g_keep, g_until); // repeated: the same lifetime
    }
}

bool overlaps(const ggml_tensor * a, const ggml_tensor * b) {
    const auto a0 = reinterpret_cast<uintptr_t>(a->data), b0 = reinterpret_cast<uintptr_t>(b->data);
    return a0 < b0 + ggml_nbytes(b) && b0 < a0 + ggml_nbytes(a);
}

// x -> n[0] = sqr(x) -> n[1] = neg(n[0]) -> ... (each node the size of x). Without a dependency the planner
// reuses n[0]'s memory two nodes later; with one (n[0] kept until the last node) it must not.
struct Chain {
    ggml_context *              ctx;
    ggml_tensor *               x;
    std::vector<ggml_tensor *>  n;
    ggml_cgraph *               graph;

    Chain() : ctx(ggml_init({64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true})) {
        x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, kN);
        ggml_set_input(x);
        ggml_tensor * cur = ggml_sqr(ctx, x);
        n.push_back(cur);
        for (int i = 1; i < kChain; ++i) {
            cur = i % 2 ? ggml_neg(ctx, cur) : ggml_abs(ctx, cur);
            n.push_back(cur);
        }
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, cur);
    }
    ~Chain() { ggml_free(ctx); }
    Chain(const Chain &)             = delete;
    Chain & operator=(const Chain &) = delete;

    bool first_shares_memory() const {
        for (int i = 1; i < kChain; ++i) {
            if (overlaps(n[0], n[static_cast<size_t>(i)])) {
                return true;
            }
        }
        return false;
    }
};

TEST(SchedAllocDeps, AKeptTensorIsNotReusedBeforeItsNode) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    ASSERT_NE(backend, nullptr);
    backend->iface.graph_optimize = keep_first_until_last;

    for (bool keep : {false, true}) {
        SCOPED_TRACE(keep ? "n[0] kept until the last node" : "no dependency");
        Chain                chain;
        ggml_backend_sched_t sched = ggml_backend_sched_new(&backend, nullptr, 1, 64, false, true);
        g_keep                     = keep ? chain.n[0] : nullptr;
        g_until                    = keep ? chain.n.back() : nullptr;
        g_calls                    = 0;
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, chain.graph));
        EXPECT_GE(g_calls, 1);
        // the test can fail: without the dependency the planner does reuse n[0]'s memory
        EXPECT_EQ(chain.first_shares_memory(), !keep);
        if (keep) {
            std::vector<float> xv(kN);
            for (int i = 0; i < kN; ++i) xv[static_cast<size_t>(i)] = static_cast<float>(i % 17) - 8.0f;
            ggml_backend_tensor_set(chain.x, xv.data(), 0, sizeof(float) * kN);
            ASSERT_EQ(ggml_backend_sched_graph_compute(sched, chain.graph), GGML_STATUS_SUCCESS);
            std::vector<float> first(kN);
            ggml_backend_tensor_get(chain.n[0], first.data(), 0, sizeof(float) * kN);
            for (int i = 0; i < kN; ++i) {
                ASSERT_EQ(first[static_cast<size_t>(i)], xv[static_cast<size_t>(i)] * xv[static_cast<size_t>(i)]) << i;
            }
        }
        ggml_backend_sched_free(sched);
    }
    g_keep = g_until = nullptr;
    ggml_backend_free(backend);
}

} // namespace
