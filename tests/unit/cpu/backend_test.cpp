// The CPU backend object: identity, thread count, graph compute, graph plans reused across computes (new
// inputs, the graph object gone), thread pools of the caller (the previous one paused on switch), abort
// callback, use_ref, setters on a backend that is not a CPU backend, and work memory that cannot be had.
#include "cpu_test_util.h"

#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include "cpu/threadpool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace switchyard::testing;

constexpr int64_t kCols = 24;
constexpr int64_t kRows = 9;
constexpr size_t  kN    = kCols * kRows;

// out = (a + b) * a, in a context with memory; the graph lives in its own context (graph_ctx)
struct Graph {
    HostContext   tensors;
    ggml_context * graph_ctx = nullptr;
    ggml_tensor *  a = nullptr, *b = nullptr, *sum = nullptr, *out = nullptr;
    ggml_cgraph *  graph = nullptr;

    Graph() {
        a   = new_f32(tensors.get(), kCols, kRows, "a");
        b   = new_f32(tensors.get(), kCols, kRows, "b");
        sum = ggml_add(tensors.get(), a, b);
        out = ggml_mul(tensors.get(), sum, a);
        ggml_init_params params = {ggml_graph_overhead(), nullptr, true};
        graph_ctx               = ggml_init(params);
        graph                   = ggml_new_graph(graph_ctx);
        ggml_build_forward_expand(graph, out);
        set_inputs(1.0f);
    }
    ~Graph() { drop_graph(); }

    void drop_graph() {
        ggml_free(graph_ctx);
        graph_ctx = nullptr;
        graph     = nullptr;
    }

    void set_inputs(float scale) {
        fill(a, ramp(kN, 0.5f * scale));
        fill(b, ramp(kN, -0.25f * scale));
        fill_all(out, 1234.0f);
    }

    std::vector<float> expected() const {
        const std::vector<float> va = values(a), vb = values(b);
        std::vector<float>       e(kN);
        for (size_t i = 0; i < kN; ++i) {
            e[i] = (va[i] + vb[i]) * va[i];
        }
        return e;
    }
};

class CpuBackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        backend_ = ggml_backend_cpu_init();
        ASSERT_NE(backend_, nullptr);
    }
    void TearDown() override { ggml_backend_free(backend_); }

    TestKernels    kernels_;
    ggml_backend_t backend_ = nullptr;
};

TEST_F(CpuBackendTest, Identity) {
    EXPECT_TRUE(ggml_backend_is_cpu(backend_));
    EXPECT_FALSE(ggml_backend_is_cpu(nullptr));
    EXPECT_STREQ(ggml_backend_name(backend_), "CPU");
    EXPECT_EQ(ggml_backend_get_device(backend_), ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0));
    EXPECT_EQ(ggml_backend_get_default_buffer_type(backend_), ggml_backend_cpu_buffer_type());

    ggml_backend_t other = ggml_backend_cpu_init();
    ASSERT_NE(other, nullptr);
    EXPECT_TRUE(ggml_guid_matches(ggml_backend_guid(backend_), ggml_backend_guid(other)));
    ggml_backend_free(other);
}

TEST_F(CpuBackendTest, ComputesOnTheConfiguredThreadCount) {
    for (int n : {1, 2, 4, 3}) {
        Graph g;
        ggml_backend_cpu_set_n_threads(backend_, n);
        kernel_stats().reset();
        ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS) << n;
        EXPECT_EQ(values(g.out), g.expected()) << n;
        EXPECT_EQ(kernel_stats().max_nth.load(), n);
        EXPECT_TRUE(kernel_stats().scratch_ok.load());
    }
}

TEST_F(CpuBackendTest, DefaultThreadCountIsGgmlDefault) {
    Graph g;
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(kernel_stats().max_nth.load(), GGML_DEFAULT_N_THREADS);
}

TEST_F(CpuBackendTest, InvalidThreadCountIsLoggedAndIgnored) {
    ggml_backend_cpu_set_n_threads(backend_, 2);
    CpuLogCapture log;
    ggml_backend_cpu_set_n_threads(backend_, 0);
    ggml_backend_cpu_set_n_threads(backend_, -1);
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_set_n_threads] n_threads must be in [1, 512], got 0"));
    Graph g;
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(kernel_stats().max_nth.load(), 2);
}

TEST_F(CpuBackendTest, PlanIsReusedWithNewInputsAfterTheGraphIsGone) {
    ggml_backend_cpu_set_n_threads(backend_, 3);
    Graph                     g;
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(backend_, g.graph);
    ASSERT_NE(plan, nullptr);
    g.drop_graph(); // the plan keeps its own copy of the node list
    for (float scale : {1.0f, -2.0f, 0.125f}) {
        g.set_inputs(scale);
        kernel_stats().reset();
        ASSERT_EQ(ggml_backend_graph_plan_compute(backend_, plan), GGML_STATUS_SUCCESS);
        EXPECT_EQ(values(g.out), g.expected()) << scale;
        EXPECT_EQ(kernel_stats().phased_add_nodes.load(), 1);
        EXPECT_EQ(kernel_stats().serial_mul_nodes.load(), 1);
        EXPECT_EQ(kernel_stats().max_nth.load(), 3);
    }
    ggml_backend_graph_plan_free(backend_, plan);
}

TEST_F(CpuBackendTest, TwoPlansOnOneBackendKeepTheirOwnScratch) {
    Graph g1, g2;
    ggml_backend_cpu_set_n_threads(backend_, 2);
    ggml_backend_graph_plan_t p1 = ggml_backend_graph_plan_create(backend_, g1.graph);
    ggml_backend_cpu_set_n_threads(backend_, 4);
    ggml_backend_graph_plan_t p2 = ggml_backend_graph_plan_create(backend_, g2.graph);
    ASSERT_NE(p1, nullptr);
    ASSERT_NE(p2, nullptr);
    g2.set_inputs(3.0f);
    for (int round = 0; round < 2; ++round) {
        ASSERT_EQ(ggml_backend_graph_plan_compute(backend_, p1), GGML_STATUS_SUCCESS);
        ASSERT_EQ(ggml_backend_graph_plan_compute(backend_, p2), GGML_STATUS_SUCCESS);
    }
    EXPECT_EQ(values(g1.out), g1.expected());
    EXPECT_EQ(values(g2.out), g2.expected());
    ggml_backend_graph_plan_free(backend_, p1);
    ggml_backend_graph_plan_free(backend_, p2);
}

struct CountingAbort {
    int         calls   = 0;
    int         fire_at = 0;
    static bool callback(void * data) {
        auto * self = static_cast<CountingAbort *>(data);
        return ++self->calls == self->fire_at;
    }
};

TEST_F(CpuBackendTest, AbortCallbackStopsGraphsAndPlans) {
    Graph         g;
    CountingAbort abort{0, 1};
    ggml_backend_cpu_set_n_threads(backend_, 2);
    ggml_backend_cpu_set_abort_callback(backend_, &CountingAbort::callback, &abort);
    EXPECT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_ABORTED);
    EXPECT_EQ(abort.calls, 1);
    EXPECT_EQ(values(g.out), std::vector<float>(kN, 1234.0f)); // the second node never ran

    // a plan made before the callback was removed picks up the backend's current callback at compute time
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(backend_, g.graph);
    ASSERT_NE(plan, nullptr);
    ggml_backend_cpu_set_abort_callback(backend_, nullptr, nullptr);
    EXPECT_EQ(ggml_backend_graph_plan_compute(backend_, plan), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());
    ggml_backend_graph_plan_free(backend_, plan);
}

TEST_F(CpuBackendTest, CallersThreadPoolIsUsedAndPausedWhenReplaced) {
    ggml_threadpool_params params = ggml_threadpool_params_default(3);
    ggml_threadpool *      first  = ggml_threadpool_new(&params);
    params.n_threads              = 2;
    ggml_threadpool * second      = ggml_threadpool_new(&params);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    ggml_backend_cpu_set_n_threads(backend_, 3);

    Graph g;
    ggml_backend_cpu_set_threadpool(backend_, first);
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());
    EXPECT_EQ(kernel_stats().max_nth.load(), 3);

    ggml_backend_cpu_set_threadpool(backend_, second);
    EXPECT_TRUE(first->paused());
    EXPECT_FALSE(second->paused());
    ggml_backend_cpu_set_n_threads(backend_, 2);
    g.set_inputs(2.0f);
    kernel_stats().reset();
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());
    EXPECT_EQ(kernel_stats().max_nth.load(), 2);

    // back to the backend's own pool
    ggml_backend_cpu_set_threadpool(backend_, nullptr);
    EXPECT_TRUE(second->paused());
    g.set_inputs(-1.0f);
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());

    ggml_threadpool_free(first);
    ggml_threadpool_free(second);
}

TEST_F(CpuBackendTest, UseRefIsAcceptedAndResultsStayCorrect) {
    ggml_backend_cpu_set_use_ref(backend_, true);
    Graph g;
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());
}

TEST_F(CpuBackendTest, SettersOnOtherBackendsAreLoggedAndIgnored) {
    static ggml_guid other_guid = {1, 2, 3};
    ggml_backend     other{};
    other.guid = &other_guid;
    CpuLogCapture log;
    EXPECT_FALSE(ggml_backend_is_cpu(&other));
    ggml_backend_cpu_set_n_threads(&other, 2);
    ggml_backend_cpu_set_threadpool(&other, nullptr);
    ggml_backend_cpu_set_abort_callback(&other, nullptr, nullptr);
    ggml_backend_cpu_set_use_ref(&other, true);
    ggml_backend_cpu_set_n_threads(nullptr, 2);
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_set_n_threads] not a CPU backend"));
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_set_threadpool] not a CPU backend"));
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_set_abort_callback] not a CPU backend"));
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_set_use_ref] not a CPU backend"));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SWITCHYARD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SWITCHYARD_SANITIZED 1
#endif
#endif

size_t huge_work(const ggml_tensor *, int) { return size_t{1} << 62; }

TEST_F(CpuBackendTest, WorkMemoryThatCannotBeHadIsAllocFailed) {
#ifdef SWITCHYARD_SANITIZED
    GTEST_SKIP() << "sanitizer allocators abort on impossible sizes instead of returning NULL";
#endif
    switchyard::cpu::KernelInfo greedy = phased_add_kernel();
    greedy.work_size                   = huge_work;
    KernelSwap    swap(GGML_OP_ADD, greedy);
    Graph         g;
    CpuLogCapture log;
    EXPECT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_ALLOC_FAILED);
    EXPECT_TRUE(log.contains("[ggml_backend_graph_compute] cannot allocate")) << log.text();
    EXPECT_EQ(ggml_backend_graph_plan_create(backend_, g.graph), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_graph_plan_create] cannot allocate")) << log.text();
    EXPECT_EQ(values(g.out), std::vector<float>(kN, 1234.0f));

    // the backend recovers once graphs fit again
    KernelSwap normal(GGML_OP_ADD, phased_add_kernel());
    EXPECT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(values(g.out), g.expected());
}

TEST_F(CpuBackendTest, UnsupportedNodeFailsThroughTheBackend) {
    KernelSwap    no_add(GGML_OP_ADD, switchyard::cpu::KernelInfo{});
    Graph         g;
    CpuLogCapture log;
    EXPECT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("ADD")) << log.text();
    EXPECT_FALSE(ggml_backend_supports_op(backend_, g.sum));
    EXPECT_TRUE(ggml_backend_supports_op(backend_, g.out));
}

} // namespace
