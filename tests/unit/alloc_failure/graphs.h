// Small graphs for the injection tests, with their expected results computed on the host.
#pragma once

#include "injection.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <cmath>
#include <vector>

namespace switchyard::alloc_failure {

inline std::vector<float> values(size_t n, float scale, float offset) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = std::sin(static_cast<float>(i) * scale) + offset;
    }
    return v;
}

// out = reshape((a + b) * a * 0.5 + b), a and b graph inputs F32 [64, 4]: six nodes, some in place-able, a
// view; everything in one context, to be placed by a graph allocator.
struct ElementwiseGraph {
    static constexpr int64_t kNe0 = 64, kNe1 = 4;

    ContextPtr         ctx = meta_context();
    ggml_tensor *      a   = nullptr;
    ggml_tensor *      b   = nullptr;
    ggml_tensor *      out = nullptr;
    ggml_cgraph *      graph = nullptr;
    std::vector<float> va = values(kNe0 * kNe1, 0.1f, 0.0f), vb = values(kNe0 * kNe1, 0.07f, 1.0f);

    ElementwiseGraph() {
        a = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, kNe0, kNe1);
        b = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, kNe0, kNe1);
        ggml_set_input(a);
        ggml_set_input(b);
        ggml_tensor * c = ggml_add(ctx.get(), a, b);
        ggml_tensor * d = ggml_mul(ctx.get(), c, a);
        ggml_tensor * e = ggml_scale(ctx.get(), d, 0.5f);
        ggml_tensor * f = ggml_add(ctx.get(), e, b);
        out             = ggml_reshape_2d(ctx.get(), ggml_cont(ctx.get(), f), kNe0 * 2, kNe1 / 2);
        ggml_set_output(out);
        graph = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(graph, out);
    }

    void set_inputs() const {
        ggml_backend_tensor_set(a, va.data(), 0, va.size() * sizeof(float));
        ggml_backend_tensor_set(b, vb.data(), 0, vb.size() * sizeof(float));
    }

    // the output matches the host computation
    void expect_result() const {
        std::vector<float> r(va.size());
        ggml_backend_tensor_get(out, r.data(), 0, r.size() * sizeof(float));
        for (size_t i = 0; i < r.size(); ++i) {
            const float want = (va[i] + vb[i]) * va[i] * 0.5f + vb[i];
            ASSERT_NEAR(r[i], want, 1e-5f) << "element " << i;
        }
    }

    // inputs, compute on a fresh CPU backend, check (the graph must be allocated)
    void compute_and_check() const {
        BackendPtr cpu(ggml_backend_cpu_init());
        set_inputs();
        ASSERT_EQ(ggml_backend_graph_compute(cpu.get(), graph), GGML_STATUS_SUCCESS);
        expect_result();
    }
};

} // namespace switchyard::alloc_failure
