// The runtime with the real kernel families (not the test kernels): ADD/MUL chains with broadcasting and
// MUL_MAT with a converted F16 operand (scratch + kernel barrier) give the same results on 1, 2 and 4 threads,
// matching plain loops; a backend plan is reused with new inputs; the abort callback stops real graphs.
#include "cpu_test_util.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace switchyard::testing;

constexpr int64_t kCols = 45;
constexpr int64_t kRows = 13;

// out = (a + b) * a + b, b a single row broadcast over a's rows
struct AddMul {
    ggml_tensor * a = nullptr;
    ggml_tensor * b = nullptr;
    ggml_tensor * out = nullptr;
    ggml_cgraph * graph = nullptr;

    explicit AddMul(ggml_context * ctx) {
        a   = new_f32(ctx, kCols, kRows, "a");
        b   = new_f32(ctx, kCols, 1, "b");
        out = ggml_add(ctx, ggml_mul(ctx, ggml_add(ctx, a, b), a), b);
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, out);
        set_inputs(1.0f);
    }

    void set_inputs(float scale) {
        fill(a, ramp(kCols * kRows, 0.75f * scale));
        fill(b, ramp(kCols, -1.5f * scale));
    }

    std::vector<float> expected() const {
        const std::vector<float> va = values(a), vb = values(b);
        std::vector<float>       e(va.size());
        for (int64_t r = 0; r < kRows; ++r) {
            for (int64_t c = 0; c < kCols; ++c) {
                const float x = va[r * kCols + c], y = vb[c];
                e[r * kCols + c] = (x + y) * x + y;
            }
        }
        return e;
    }
};

TEST(RealKernels, AddMulWithBroadcastOnOneTwoAndFourThreads) {
    for (int n : {1, 2, 4}) {
        HostContext ctx;
        AddMul      g(ctx.get());
        ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), g.graph, n), GGML_STATUS_SUCCESS) << n;
        EXPECT_EQ(values(g.out), g.expected()) << n << " threads";
    }
}

TEST(RealKernels, MulMatWithF16OperandIsTheSameOnEveryThreadCount) {
    constexpr int64_t K = 64, M = 33, N = 7;
    std::vector<std::vector<float>> results;
    std::vector<double>             reference(M * N);
    for (int n : {1, 2, 4}) {
        HostContext   ctx;
        ggml_tensor * w = new_f32(ctx.get(), K, M, "w");
        ggml_tensor * x = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F16, K, N);
        fill(w, ramp(K * M, 0.01f));
        std::vector<float> xs(K * N);
        for (int64_t i = 0; i < K * N; ++i) {
            xs[i] = static_cast<float>((i * 7) % 11) * 0.25f - 1.0f; // exact in f16
            ggml_set_f32_1d(x, static_cast<int>(i), xs[i]);
        }
        ggml_tensor * y = ggml_mul_mat(ctx.get(), w, x); // [M, N]
        ggml_cgraph * g = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(g, y);
        ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), g, n), GGML_STATUS_SUCCESS) << n;
        results.push_back(values(y));
        if (n == 1) {
            const std::vector<float> ws = values(w);
            for (int64_t j = 0; j < N; ++j) {
                for (int64_t i = 0; i < M; ++i) {
                    double sum = 0;
                    for (int64_t k = 0; k < K; ++k) {
                        sum += static_cast<double>(ws[i * K + k]) * xs[j * K + k];
                    }
                    reference[j * M + i] = sum;
                }
            }
        }
    }
    for (size_t t = 0; t < results.size(); ++t) {
        EXPECT_EQ(results[t], results[0]) << "thread count #" << t; // identical split-independent results
        for (size_t i = 0; i < reference.size(); ++i) {
            ASSERT_NEAR(results[t][i], reference[i], 1e-4 * (1.0 + std::fabs(reference[i]))) << i;
        }
    }
}

TEST(RealKernels, BackendPlanReusedWithNewInputs) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    ASSERT_NE(backend, nullptr);
    ggml_backend_cpu_set_n_threads(backend, 2);
    HostContext               ctx;
    AddMul                    g(ctx.get());
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(backend, g.graph);
    ASSERT_NE(plan, nullptr);
    for (float scale : {1.0f, 3.0f, -0.5f}) {
        g.set_inputs(scale);
        ASSERT_EQ(ggml_backend_graph_plan_compute(backend, plan), GGML_STATUS_SUCCESS);
        EXPECT_EQ(values(g.out), g.expected()) << scale;
    }
    ggml_backend_graph_plan_free(backend, plan);
    ggml_backend_free(backend);
}

TEST(RealKernels, AbortStopsARealGraphBetweenNodes) {
    struct Counter {
        int         calls = 0;
        static bool callback(void * data) { return ++static_cast<Counter *>(data)->calls == 2; }
    } counter;
    ggml_backend_t backend = ggml_backend_cpu_init();
    ASSERT_NE(backend, nullptr);
    ggml_backend_cpu_set_abort_callback(backend, &Counter::callback, &counter);
    HostContext ctx;
    AddMul      g(ctx.get());
    fill_all(g.out, 1234.0f);
    EXPECT_EQ(ggml_backend_graph_compute(backend, g.graph), GGML_STATUS_ABORTED);
    EXPECT_EQ(counter.calls, 2);
    EXPECT_EQ(values(g.out), std::vector<float>(kCols * kRows, 1234.0f)); // the third node never ran
    ggml_backend_free(backend);
}

} // namespace
