// Bad input to the scheduler: NULL handles and graphs (fix 5), bad backend sets, buffer types a backend
// cannot use (whose error path must not leak, fix 6), ops no backend can run, index data out of range in a
// scheduled graph (fix 7). The scheduler logs, fails, and stays usable for the next, good graph.
#include "bad_input.h"

#include "test_device.h"

#include <cstdlib>
#include <filesystem>

namespace switchyard::bad_input {
namespace {

constexpr int kMaxSchedBackends = 16; // GGML_SCHED_MAX_BACKENDS upstream

// out = a * 2 + b over F32 [32], with inputs filled on request
struct GoodGraph {
    ContextPtr    ctx = meta_context();
    ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 32);
    ggml_tensor * b   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 32);
    ggml_tensor * out = nullptr;
    ggml_cgraph * graph = nullptr;

    GoodGraph() {
        ggml_set_input(a);
        ggml_set_input(b);
        out = ggml_add(ctx.get(), ggml_scale(ctx.get(), a, 2.0f), b);
        ggml_set_output(out);
        graph = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(graph, out);
    }

    // allocates, fills, computes and checks through sched
    void run(ggml_backend_sched_t sched) const {
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
        const std::vector<float> va = iota_f32(32, 1.0f), vb = iota_f32(32, 100.0f);
        ggml_backend_tensor_set(a, va.data(), 0, 128);
        ggml_backend_tensor_set(b, vb.data(), 0, 128);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
        std::vector<float> r(32);
        ggml_backend_tensor_get(out, r.data(), 0, 128);
        for (size_t i = 0; i < 32; ++i) {
            EXPECT_EQ(r[i], 2.0f * va[i] + vb[i]) << i;
        }
    }
};

class SchedBadInput : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_NE(cpu_, nullptr);
        ggml_backend_t backends[1] = {cpu_.get()};
        sched_.reset(ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
        ASSERT_NE(sched_, nullptr);
    }

    BackendPtr cpu_{ggml_backend_cpu_init()};
    SchedPtr   sched_;
};

// ---- creation ----

TEST_F(SchedBadInput, NewWithNullBackendsReturnsNull) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_sched_new(nullptr, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_sched_new]")) << logged(log);
}

TEST_F(SchedBadInput, NewWithABadBackendCountReturnsNull) {
    std::vector<ggml_backend_t> backends(kMaxSchedBackends + 1, cpu_.get());
    for (int n : {0, -1, kMaxSchedBackends + 1}) {
        LogCapture log;
        EXPECT_EQ(ggml_backend_sched_new(backends.data(), nullptr, n, GGML_DEFAULT_GRAPH_SIZE, false, true), nullptr)
            << "n_backends = " << n;
        EXPECT_TRUE(log.has_error({"[ggml_backend_sched_new]", "n_backends"})) << "n_backends = " << n << logged(log);
    }
}

TEST_F(SchedBadInput, NewWithANullBackendInTheArrayReturnsNull) {
    ggml_backend_t backends[2] = {nullptr, cpu_.get()};
    LogCapture     log;
    EXPECT_EQ(ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, false, true), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_sched_new]", "NULL"})) << logged(log);
}

TEST_F(SchedBadInput, NewWhoseLastBackendIsNotACpuReturnsNull) {
    testing::TestDeviceConfig config;
    config.name            = "SCHEDGPU";
    ggml_backend_dev_t dev = testing::test_device_create(config);
    {
        BackendPtr     gpu(ggml_backend_dev_init(dev, nullptr));
        ggml_backend_t backends[2] = {cpu_.get(), gpu.get()};
        LogCapture     log;
        EXPECT_EQ(ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, false, true), nullptr);
        EXPECT_TRUE(log.has_error({"[ggml_backend_sched_new]", "CPU"})) << logged(log);
        log.clear();
        EXPECT_EQ(ggml_backend_sched_new(backends + 1, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true), nullptr);
        EXPECT_TRUE(log.has_error({"[ggml_backend_sched_new]", "CPU"})) << logged(log);
    }
    testing::test_device_release(dev);
}

// The error path after the trace and the events exist (fix 6): under LeakSanitizer a leak fails this test.
TEST_F(SchedBadInput, NewWithAnUnusableBufferTypeReturnsNullWithoutLeaking) {
    testing::TestDeviceConfig config;
    config.name            = "SCHEDEV";
    ggml_backend_dev_t dev = testing::test_device_create(config);
    const std::filesystem::path trace =
        std::filesystem::temp_directory_path() / ("bad_input_trace_" + std::to_string(::getpid()) + ".json");
    ::setenv("GGML_SCHED_TRACE", trace.c_str(), 1);
    {
        BackendPtr gpu(ggml_backend_dev_init(dev, nullptr));
        // the CPU backend cannot use the device's memory; the device's backend has events (parallel = true)
        ggml_backend_t             backends[2] = {gpu.get(), cpu_.get()};
        ggml_backend_buffer_type_t bufts[2]    = {nullptr, ggml_backend_dev_buffer_type(dev)};
        LogCapture                 log;
        EXPECT_EQ(ggml_backend_sched_new(backends, bufts, 2, GGML_DEFAULT_GRAPH_SIZE, true, true), nullptr);
        EXPECT_TRUE(log.has_error({"[ggml_backend_sched_new]", "buffer type"})) << logged(log);
        // the same backends with usable buffer types still make a scheduler
        SchedPtr ok(ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, true, true));
        EXPECT_NE(ok, nullptr);
    }
    ::unsetenv("GGML_SCHED_TRACE");
    std::error_code ec;
    std::filesystem::remove(trace, ec);
    testing::test_device_release(dev);
}

// ---- NULL handles (fix 5) ----

TEST_F(SchedBadInput, ComputeWithANullSchedulerFails) {
    GoodGraph  g;
    LogCapture log;
    EXPECT_EQ(ggml_backend_sched_graph_compute(nullptr, g.graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_graph_compute")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_sched_graph_compute_async(nullptr, g.graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_graph_compute")) << logged(log);
}

TEST_F(SchedBadInput, ComputeANullGraphFailsAndTheSchedulerStaysUsable) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched_.get(), nullptr), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_graph_compute")) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched_.get(), nullptr));
    EXPECT_TRUE(log.has_error("ggml_backend_sched_alloc_graph")) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_backend_sched_reserve(sched_.get(), nullptr));
    EXPECT_TRUE(log.has_error("ggml_backend_sched_reserve")) << logged(log);
    GoodGraph g;
    g.run(sched_.get());
}

TEST_F(SchedBadInput, QueriesOnANullSchedulerFail) {
    LogCapture log;
    ggml_backend_sched_reset(nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_reset")) << logged(log);
    log.clear();
    const int n_splits = ggml_backend_sched_get_n_splits(nullptr);
    EXPECT_TRUE(n_splits == 0 || n_splits == -1) << n_splits;
    EXPECT_TRUE(log.has_error("ggml_backend_sched_get_n_splits")) << logged(log);
    log.clear();
    EXPECT_LE(ggml_backend_sched_get_n_copies(nullptr), 0);
    EXPECT_LE(ggml_backend_sched_get_n_backends(nullptr), 0);
    EXPECT_EQ(ggml_backend_sched_get_backend(nullptr, 0), nullptr);
    EXPECT_EQ(ggml_backend_sched_get_buffer_size(nullptr, cpu_.get()), 0u);
    EXPECT_GE(log.errors(), 4u) << logged(log);
    ggml_backend_sched_free(nullptr); // accepted and ignored
}

TEST_F(SchedBadInput, BackendQueriesOutOfRangeAreRefused) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_sched_get_backend(sched_.get(), 1), nullptr);
    EXPECT_EQ(ggml_backend_sched_get_backend(sched_.get(), -1), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_get_backend")) << logged(log);
    log.clear();
    GoodGraph g;
    ggml_backend_sched_set_tensor_backend(sched_.get(), g.out, nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_sched_set_tensor_backend")) << logged(log);
    g.run(sched_.get());
}

// ---- graphs that cannot run ----

TEST_F(SchedBadInput, UnsupportedOpIsRefusedAndTheSchedulerStaysUsable) {
    ContextPtr    ctx = meta_context();
    ggml_tensor * q   = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_Q4_0, 32, 6);
    ggml_tensor * b   = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 6, 3);
    ggml_tensor * mm  = ggml_mul_mat(ctx.get(), ggml_transpose(ctx.get(), q), b);
    ggml_set_name(mm, "mm_nobody_runs");
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, mm);
    LogCapture log;
    EXPECT_FALSE(ggml_backend_sched_reserve(sched_.get(), graph));
    EXPECT_TRUE(log.has_error({"ggml_backend_sched_reserve", "mm_nobody_runs"})) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched_.get(), graph));
    EXPECT_TRUE(log.has_error({"ggml_backend_sched_alloc_graph", "mm_nobody_runs"})) << logged(log);
    log.clear();
    ggml_backend_sched_reset(sched_.get());
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched_.get(), graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("mm_nobody_runs")) << logged(log);
    EXPECT_EQ(mm->data, nullptr) << "a graph that cannot run must not be left allocated";
    GoodGraph g;
    g.run(sched_.get());
}

TEST_F(SchedBadInput, AllocatingTwiceWithoutResetIsRefused) {
    GoodGraph g;
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched_.get(), g.graph));
    LogCapture log;
    EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched_.get(), g.graph));
    EXPECT_TRUE(log.has_error({"ggml_backend_sched_alloc_graph", "reset"})) << logged(log);
    g.run(sched_.get());
}

TEST_F(SchedBadInput, IndexOutOfRangeFailsTheComputation) {
    ContextPtr    ctx = meta_context();
    ggml_tensor * a   = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 4, 3);
    ggml_tensor * idx = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_I32, 2);
    ggml_set_input(a);
    ggml_set_input(idx);
    ggml_tensor * rows = ggml_get_rows(ctx.get(), a, idx);
    ggml_set_name(rows, "sched_rows");
    ggml_tensor * out = ggml_scale(ctx.get(), rows, 2.0f);
    ggml_set_output(out);
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, out);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched_.get(), graph));
    const std::vector<float> va  = iota_f32(12);
    const int32_t            bad[2] = {0, 3};
    ggml_backend_tensor_set(a, va.data(), 0, sizeof(float) * 12);
    ggml_backend_tensor_set(idx, bad, 0, sizeof(bad));
    LogCapture log;
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched_.get(), graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("sched_rows")) << logged(log);
    // the same allocation computes once the indices are valid
    const int32_t good[2] = {2, 1};
    ggml_backend_tensor_set(idx, good, 0, sizeof(good));
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched_.get(), graph), GGML_STATUS_SUCCESS);
    float r[8];
    ggml_backend_tensor_get(out, r, 0, sizeof(r));
    EXPECT_EQ(r[0], 2.0f * va[8]);
    EXPECT_EQ(r[4], 2.0f * va[4]);
}

} // namespace
} // namespace switchyard::bad_input
