// Computing random graphs placed by the graph allocator (with memory reuse and in-place chains) gives the same
// results as computing them with every tensor in its own memory (ggml_backend_alloc_ctx_tensors).
#include "core/graph.h"
#include "random_graph.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <vector>

namespace switchyard::alloc_test {
namespace {

// The real op constructors, for graphs that are computed.
struct RealOps {
    ggml_context * ctx;

    ggml_tensor * leaf(int64_t ne0, int64_t ne1) { return ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1); }
    ggml_tensor * unary(ggml_tensor * a) { return ggml_silu(ctx, a); }
    ggml_tensor * scale(ggml_tensor * a) { return ggml_scale(ctx, a, 0.75f); }
    ggml_tensor * sqr(ggml_tensor * a) { return ggml_sqr(ctx, a); }
    ggml_tensor * soft_max(ggml_tensor * a) { return ggml_soft_max(ctx, a); }
    ggml_tensor * rms_norm(ggml_tensor * a) { return ggml_rms_norm(ctx, a, 1e-5f); }
    ggml_tensor * cont(ggml_tensor * a) { return ggml_cont(ctx, a); }
    ggml_tensor * add(ggml_tensor * a, ggml_tensor * b) { return ggml_add(ctx, a, b); }
    ggml_tensor * mul(ggml_tensor * a, ggml_tensor * b) { return ggml_mul(ctx, a, b); }
    ggml_tensor * mul_mat(ggml_tensor * w, ggml_tensor * a) { return ggml_mul_mat(ctx, w, a); }
    ggml_tensor * view_rows(ggml_tensor * a, int64_t row0, int64_t rows) {
        return ggml_view_2d(ctx, a, a->ne[0], rows, a->nb[1], static_cast<size_t>(row0) * a->nb[1]);
    }
    ggml_tensor * reshape(ggml_tensor * a, int64_t ne0, int64_t ne1) { return ggml_reshape_2d(ctx, a, ne0, ne1); }
    ggml_tensor * transpose(ggml_tensor * a) { return ggml_transpose(ctx, a); }
};

struct ComputeRun {
    ggml_context *             ctx = nullptr;
    RandomGraph                g;
    std::vector<ggml_tensor *> pre;
    ggml_backend_buffer_t      buffer = nullptr;

    ComputeRun(unsigned seed, int n_ops) {
        ctx = ggml_init({ggml_tensor_overhead() * 1024 + ggml_graph_overhead_custom(4096, false), nullptr, true});
        std::mt19937 rng(seed);
        RealOps      ops{ctx};
        g = build_random_graph(ops, rng, n_ops, pre);
    }
    ~ComputeRun() {
        ggml_backend_buffer_free(buffer);
        ggml_free(ctx);
    }

    void fill_leafs(unsigned seed) {
        for (size_t i = 0; i < g.leafs.size(); ++i) {
            if (g.leafs[i]->buffer == nullptr) {
                continue; // not reachable from the graph's results: never allocated
            }
            std::mt19937                          rng(seed * 1000 + static_cast<unsigned>(i));
            std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
            std::vector<float>                    values(ggml_nelements(g.leafs[i]));
            for (float & v : values) {
                v = dist(rng);
            }
            ggml_backend_tensor_set(g.leafs[i], values.data(), 0, values.size() * sizeof(float));
        }
    }

    // Nodes computed in the memory of their src[0] (in-place reuse).
    int inplace_nodes() const {
        int n = 0;
        for (int i = 0; i < g.graph->n_nodes; ++i) {
            const ggml_tensor * t = g.graph->nodes[i];
            n += t->view_src == nullptr && t->src[0] != nullptr && t->data == t->src[0]->data ? 1 : 0;
        }
        return n;
    }

    // Nodes whose values must survive the computation: outputs and results nobody consumes.
    std::vector<int> survivors() const {
        std::set<const ggml_tensor *> consumed;
        for (int i = 0; i < g.graph->n_nodes; ++i) {
            for (const ggml_tensor * s : g.graph->nodes[i]->src) {
                consumed.insert(s);
            }
        }
        std::vector<int> out;
        for (int i = 0; i < g.graph->n_nodes; ++i) {
            const ggml_tensor * n = g.graph->nodes[i];
            if ((n->flags & GGML_TENSOR_FLAG_OUTPUT) || !consumed.count(n)) {
                out.push_back(i);
            }
        }
        return out;
    }

    std::vector<float> read(int node) const {
        ggml_tensor *      t = g.graph->nodes[node];
        std::vector<float> values(ggml_nelements(t));
        EXPECT_TRUE(ggml_is_contiguous(t)) << t->name;
        ggml_backend_tensor_get(t, values.data(), 0, values.size() * sizeof(float));
        return values;
    }
};

TEST(GallocrCompute, ReuseGivesTheSameResultsAsSeparateMemory) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    ASSERT_NE(backend, nullptr);
    ggml_backend_cpu_set_n_threads(backend, 2);
    ggml_gallocr_t galloc   = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
    int            inplace  = 0;
    int            nonzero  = 0;
    int            compared = 0;
    for (unsigned seed = 1; seed <= 60; ++seed) {
        const int n_ops = 10 + static_cast<int>(seed % 30);
        // planned: weights in their own buffer, the rest placed by the graph allocator
        ComputeRun planned(seed, n_ops);
        size_t weight_bytes = 64;
        for (ggml_tensor * t : planned.pre) {
            weight_bytes += GGML_PAD(ggml_nbytes(t), 64);
        }
        planned.buffer      = ggml_backend_alloc_buffer(backend, weight_bytes);
        ggml_tallocr talloc = ggml_tallocr_new(planned.buffer);
        for (ggml_tensor * t : planned.pre) {
            ASSERT_EQ(ggml_tallocr_alloc(&talloc, t), GGML_STATUS_SUCCESS);
        }
        for (int i = 0; i < planned.g.graph->n_nodes; ++i) {
            ASSERT_EQ(planned.g.graph->nodes[i]->buffer, nullptr);
        }
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, planned.g.graph));
        inplace += planned.inplace_nodes();
        planned.fill_leafs(seed);
        ASSERT_EQ(ggml_backend_graph_compute(backend, planned.g.graph), GGML_STATUS_SUCCESS);

        // reference: every tensor of the context in its own memory
        ComputeRun reference(seed, n_ops);
        reference.buffer = ggml_backend_alloc_ctx_tensors(reference.ctx, backend);
        ASSERT_NE(reference.buffer, nullptr);
        reference.fill_leafs(seed);
        ASSERT_EQ(ggml_backend_graph_compute(backend, reference.g.graph), GGML_STATUS_SUCCESS);

        ASSERT_EQ(planned.g.graph->n_nodes, reference.g.graph->n_nodes);
        for (int node : planned.survivors()) {
            std::vector<float> got  = planned.read(node);
            std::vector<float> want = reference.read(node);
            ASSERT_EQ(got.size(), want.size());
            ++compared;
            for (float v : want) {
                nonzero += v != 0.0f ? 1 : 0;
            }
            EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
                << "seed " << seed << ", node " << node << " (" << planned.g.graph->nodes[node]->name << ")";
        }
    }
    // the comparison must not be vacuous: values were computed, and memory was reused in place
    EXPECT_GT(compared, 60);
    EXPECT_GT(nonzero, compared);
    EXPECT_GT(inplace, 30);
    ggml_gallocr_free(galloc);
    ggml_backend_free(backend);
}

} // namespace
} // namespace switchyard::alloc_test
