#include "sched_fixture.h"

#include "support/json_check.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace switchyard::testing {
namespace {

struct LogCapture {
    static std::string & text() {
        static std::string s;
        return s;
    }
    static void callback(ggml_log_level, const char * msg, void *) { text() += msg; }
    LogCapture() {
        text().clear();
        ggml_log_set(callback, nullptr);
    }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
};

TEST_F(SchedTest, WeightsSplitBetweenDevicesMatchCpuOnly) {
    const Weights            w(1);
    const std::vector<float> input = make_input(2);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ggml_backend_sched_t     sched = make_sched();
    ASSERT_NE(sched, nullptr);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    EXPECT_GE(test_device_graphs_computed(dev), 1u);
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, SplitsAndCopiesOfConstructedGraph) {
    const Weights        w(3);
    PlacedWeights        pw(w, gpu, cpu);
    Block                b(pw);
    ggml_backend_sched_t sched = make_sched();
    ggml_backend_sched_split_graph(sched, b.graph);
    // norm/up on the device pull rms_norm, mul, mul_mat and silu there; down is on the CPU
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 2);
    EXPECT_EQ(ggml_backend_sched_get_n_copies(sched), 1);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.h), gpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.u), gpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.a), gpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.d), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.out), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.x), cpu); // graph inputs start on the CPU

    const std::string plan = plan_of(sched);
    EXPECT_TRUE(JsonChecker(plan).valid()) << plan;
    // split 0 copies x to the device, split 1 copies a back (the CPU cannot read device memory)
    const size_t split0 = plan.find("\"backend\": \"TEST\"");
    const size_t split1 = plan.find("\"backend\": \"CPU\"", split0);
    ASSERT_NE(split0, std::string::npos) << plan;
    ASSERT_NE(split1, std::string::npos) << plan;
    const std::string s0 = plan.substr(split0, split1 - split0);
    EXPECT_NE(s0.find("{\"name\": \"x\", \"bytes\": " + std::to_string(kEmbd * kTokens * 4) + "}"), std::string::npos) << plan;
    EXPECT_NE(plan.find("{\"name\": \"a\", \"bytes\": " + std::to_string(kFf * kTokens * 4) + "}", split1), std::string::npos) << plan;
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, UnsupportedOpFallsBackToCpuAndAgrees) {
    test_device_set_supports_op(dev, [](const ggml_tensor * op) { return op->op != GGML_OP_UNARY; });
    const Weights            w(4);
    const std::vector<float> input = make_input(5);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ggml_backend_sched_t     sched = make_sched();
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.a), cpu); // silu cannot run on the device
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.u), gpu);
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    const std::string plan = plan_of(sched);
    EXPECT_NE(plan.find("\"tensor\": \"a\""), std::string::npos) << plan; // reported as a fallback
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, SetTensorBackendIsHonoured) {
    const Weights            w(6);
    const std::vector<float> input = make_input(7);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ggml_backend_sched_t     sched = make_sched();
    ggml_backend_sched_set_tensor_backend(sched, b.a, cpu);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.a), cpu);
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    ggml_backend_sched_free(sched);
}

struct Observations {
    std::map<std::string, int> seen;
    int                        cancel_after = -1;
    int                        count        = 0;
};

bool observe(ggml_tensor * t, bool ask, void * ud) {
    auto * obs = static_cast<Observations *>(ud);
    if (ask) {
        return true;
    }
    ++obs->seen[t->name];
    ++obs->count;
    return obs->cancel_after < 0 || obs->count < obs->cancel_after;
}

TEST_F(SchedTest, EvalCallbackObservesEveryNodeOnceAndCanCancel) {
    const Weights            w(8);
    const std::vector<float> input = make_input(9);
    PlacedWeights            pw(w, gpu, cpu);
    {
        Block                b(pw);
        ggml_backend_sched_t sched = make_sched();
        Observations         obs;
        ggml_backend_sched_set_eval_callback(sched, observe, &obs);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
        EXPECT_EQ(obs.count, ggml_graph_n_nodes(b.graph));
        for (int i = 0; i < ggml_graph_n_nodes(b.graph); ++i) {
            EXPECT_EQ(obs.seen[ggml_graph_node(b.graph, i)->name], 1) << ggml_graph_node(b.graph, i)->name;
        }
        expect_close(read_tensor(b.out), cpu_reference(w, input));
        ggml_backend_sched_free(sched);
    }
    {
        Block                b(pw);
        ggml_backend_sched_t sched = make_sched();
        Observations         obs;
        obs.cancel_after = 2;
        ggml_backend_sched_set_eval_callback(sched, observe, &obs);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        EXPECT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_ABORTED);
        EXPECT_EQ(obs.count, 2); // nothing after the cancel, in this split or later ones
        ggml_backend_sched_free(sched);
    }
}

TEST_F(SchedTest, ReserveThenComputeDoesNotReallocate) {
    const Weights        w(10);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    {
        Block measure(pw);
        ASSERT_TRUE(ggml_backend_sched_reserve(sched, measure.graph));
    }
    const size_t gpu_size  = ggml_backend_sched_get_buffer_size(sched, gpu);
    const size_t cpu_size  = ggml_backend_sched_get_buffer_size(sched, cpu);
    const size_t allocated = test_device_allocated(dev);
    EXPECT_GT(gpu_size, 0u);
    EXPECT_GT(cpu_size, 0u);
    for (int step = 0; step < 3; ++step) {
        const std::vector<float> input = make_input(100 + static_cast<uint32_t>(step));
        Block                    b(pw);
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
        expect_close(read_tensor(b.out), cpu_reference(w, input));
        EXPECT_EQ(ggml_backend_sched_get_buffer_size(sched, gpu), gpu_size);
        EXPECT_EQ(ggml_backend_sched_get_buffer_size(sched, cpu), cpu_size);
        EXPECT_EQ(test_device_allocated(dev), allocated);
    }
    size_t sizes[2] = {0, 0};
    {
        Block measure(pw);
        ggml_backend_sched_reserve_size(sched, measure.graph, sizes);
    }
    EXPECT_EQ(sizes[0], gpu_size);
    EXPECT_EQ(sizes[1], cpu_size);
    ggml_backend_sched_free(sched);
}

// Splitting redirects node sources to copies in the scheduler's context; reserve must give the measure graph its
// sources back, so the same graph can then be allocated and computed.
TEST_F(SchedTest, ReservedGraphCanBeComputedAfterwards) {
    const Weights            w(21);
    const std::vector<float> input = make_input(22);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    std::vector<ggml_tensor *> sources;
    for (int i = 0; i < ggml_graph_n_nodes(b.graph); ++i) {
        ggml_tensor * node = ggml_graph_node(b.graph, i);
        sources.insert(sources.end(), node->src, node->src + GGML_MAX_SRC);
    }
    ggml_backend_sched_t sched = make_sched();
    ASSERT_TRUE(ggml_backend_sched_reserve(sched, b.graph));
    std::vector<ggml_tensor *> after;
    for (int i = 0; i < ggml_graph_n_nodes(b.graph); ++i) {
        ggml_tensor * node = ggml_graph_node(b.graph, i);
        after.insert(after.end(), node->src, node->src + GGML_MAX_SRC);
    }
    EXPECT_EQ(after, sources);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, PipelineParallelMatchesSequential) {
    const Weights        w(11);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched(/*parallel=*/true);
    ASSERT_NE(sched, nullptr);
    EXPECT_EQ(ggml_backend_sched_get_n_copies(sched), 4);
    for (int step = 0; step < 10; ++step) {
        const std::vector<float> input = make_input(200 + static_cast<uint32_t>(step));
        Block                    b(pw);
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute_async(sched, b.graph), GGML_STATUS_SUCCESS);
        ggml_backend_sched_synchronize(sched);
        expect_close(read_tensor(b.out), cpu_reference(w, input));
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, ComputedCpuTensorReachesTheDeviceByAsyncCopy) {
    const Weights            w(18);
    const std::vector<float> input = make_input(19);
    PlacedWeights            pw(w, gpu, cpu);
    ggml_init_params         params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *           ctx = ggml_init(params);
    ggml_tensor *            x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kEmbd, kTokens);
    ggml_set_input(x);
    ggml_tensor * y = ggml_scale(ctx, x, 2.0f); // forced onto the CPU below
    ggml_tensor * z = ggml_mul(ctx, y, pw.norm); // the weights pull this onto the device
    ggml_set_output(z);
    ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, z);
    ggml_backend_sched_t sched = make_sched(/*parallel=*/true);
    ggml_backend_sched_set_tensor_backend(sched, y, cpu);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, g));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, z), gpu);
    ggml_backend_tensor_set(x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, g), GGML_STATUS_SUCCESS);
    EXPECT_GT(test_device_async_copies(dev), 0u);
    const std::vector<float> got = read_tensor(z);
    for (int64_t t = 0; t < kTokens; ++t) {
        for (int64_t i = 0; i < kEmbd; ++i) {
            const size_t k = static_cast<size_t>(t * kEmbd + i);
            ASSERT_FLOAT_EQ(got[k], input[k] * 2.0f * w.norm[static_cast<size_t>(i)]);
        }
    }
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
}

TEST_F(SchedTest, OpNoBackendSupportsIsAnErrorNotAnAbort) {
    const Weights w(12);
    PlacedWeights pw(w, gpu, cpu);
    Block         b(pw);
    // a node no backend supports: a lightning indexer given only its queries (no keys, weights or mask)
    ggml_tensor * odd = ggml_dup_tensor(b.ctx, b.out);
    odd->op           = GGML_OP_LIGHTNING_INDEXER;
    odd->src[0]       = b.out;
    odd->flags       |= GGML_TENSOR_FLAG_COMPUTE;
    ggml_set_name(odd, "odd");
    ggml_build_forward_expand(b.graph, odd);
    ggml_backend_sched_t sched = make_sched();
    LogCapture           log;
    const ggml_tensor * d_src0 = b.d->src[0];
    EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched, b.graph));
    EXPECT_EQ(b.d->src[0], d_src0); // the user's graph is left as it was
    EXPECT_NE(LogCapture::text().find("LIGHTNING_INDEXER"), std::string::npos) << LogCapture::text();
    EXPECT_NE(LogCapture::text().find("'odd'"), std::string::npos) << LogCapture::text();
    EXPECT_NE(LogCapture::text().find("TEST, CPU"), std::string::npos) << LogCapture::text();
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_FAILED);
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, DeviceAllocationFailureIsAnError) {
    TestDeviceConfig config;
    config.memory_size = 26 * 1024; // the device's weights (~24.3 KiB) fit, its compute buffer (5 KiB) does not
    init(config);
    const Weights w(13);
    ggml_backend_t cpu2 = ggml_backend_cpu_init();
    PlacedWeights pw(w, gpu, cpu2);
    Block         b(pw);
    ggml_backend_sched_t sched = make_sched();
    LogCapture           log;
    EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched, b.graph));
    EXPECT_FALSE(LogCapture::text().empty());
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu2);
}

bool compare_nodes(int, ggml_tensor * t1, ggml_tensor * t2, void * ud) {
    auto * mismatches = static_cast<int *>(ud);
    if (t1->type != GGML_TYPE_F32) {
        return true;
    }
    const std::vector<float> a = read_tensor(t1), b = read_tensor(t2);
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::fabs(a[i] - b[i]) > 1e-5f * (1.0f + std::fabs(a[i]))) {
            ++*mismatches;
            break;
        }
    }
    return true;
}

TEST_F(SchedTest, CompareGraphBackendAgreesNodeByNode) {
    const Weights            w(14);
    const std::vector<float> input = make_input(15);
    PlacedWeights            pw(w, cpu, cpu);
    Block                    b(pw);
    ggml_gallocr_t           galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    int mismatches = 0;
    EXPECT_TRUE(ggml_backend_compare_graph_backend(cpu, gpu, b.graph, compare_nodes, &mismatches, nullptr, 0));
    EXPECT_EQ(mismatches, 0);
    ggml_gallocr_free(galloc);
}

TEST_F(SchedTest, PlanAndTraceAreValidJsonWithTheSplits) {
    const Weights            w(16);
    const std::vector<float> input = make_input(17);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ggml_backend_sched_t     sched = make_sched();
    char                     path[] = "/tmp/switchyard_trace_XXXXXX";
    const int                fd     = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    ggml_backend_sched_set_trace(sched, path);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);

    const std::string plan = plan_of(sched);
    EXPECT_TRUE(JsonChecker(plan).valid()) << plan;
    EXPECT_NE(plan.find("\"splits\""), std::string::npos);
    EXPECT_NE(plan.find("\"compute_buffer_bytes\""), std::string::npos);

    std::ifstream     in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string trace = ss.str();
    EXPECT_TRUE(JsonChecker(trace).valid()) << trace;
    EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos);
    EXPECT_NE(trace.find("\"cat\": \"compute\""), std::string::npos) << trace;
    EXPECT_NE(trace.find("\"cat\": \"copy\""), std::string::npos) << trace;
    EXPECT_NE(trace.find("\"name\": \"a\""), std::string::npos) << trace; // the copy of a to the CPU
    std::remove(path);
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, LastBackendMustBeCpu) {
    ggml_backend_t backends[2] = {cpu, gpu};
    LogCapture     log;
    EXPECT_EQ(ggml_backend_sched_new(backends, nullptr, 2, 256, false, false), nullptr);
    EXPECT_NE(LogCapture::text().find("CPU"), std::string::npos);
}

} // namespace
} // namespace switchyard::testing
