// Scheduler paths beyond the basic split: op offload of host-resident weights, micro-batches queued without
// waiting in between, the eval callback asking for some nodes only, and the plan/trace environment variables.
#include "sched_fixture.h"

#include "support/json_check.h"

#include <cstdlib>
#include <memory>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace switchyard::testing {
namespace {

std::string read_file(const std::string & path) {
    std::ifstream     in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class SchedPathsTest : public SchedTest {};

// Weights in host memory pin their ops to the CPU, unless op_offload is on and a higher-priority device asks
// for the op (offload_op): then the op moves to the device and the weights are copied there.
TEST_F(SchedPathsTest, OpOffloadPullsHostWeightOpsOntoTheDevice) {
    TestDeviceConfig config;
    config.offload_op = [](const ggml_tensor * op) { return op->op == GGML_OP_MUL_MAT; };
    init(config);
    const Weights            w(31);
    const std::vector<float> input = make_input(32);
    const std::vector<float> want  = cpu_reference(w, input);
    PlacedWeights            pw(w, cpu, cpu); // every weight in host memory
    for (const bool offload : {false, true}) {
        Block                b(pw);
        ggml_backend_t       backends[2] = {gpu, cpu};
        ggml_backend_sched_t sched       = ggml_backend_sched_new(backends, nullptr, 2, 256, false, offload);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.u), offload ? gpu : cpu) << "offload " << offload;
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.d), offload ? gpu : cpu) << "offload " << offload;
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.h), cpu); // MUL with host weights: not offloaded
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
        expect_close(read_tensor(b.out), want);
        EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), offload ? 3 : 1);
        ggml_backend_sched_free(sched);
    }
}

// Weights spread over more buffer types than the scheduler remembers answers for (BuftReach::kSlots = 8): ten
// devices, each holding one weight of a chain of products, and the CPU. Each product runs where its weight is
// (the device is asked about its own buffer type, never told it can read another's) and the result is the
// CPU's, computed by the scalar loop below.
TEST_F(SchedPathsTest, TenBufferTypesEachRunWhereTheirWeightIs) {
    constexpr int                   kDevices = 10, kN = 8;
    std::vector<ggml_backend_dev_t> devs;
    std::vector<ggml_backend_t>     backends;
    for (int d = 0; d < kDevices; ++d) {
        devs.push_back(test_device_create(TestDeviceConfig{}));
        backends.push_back(ggml_backend_dev_init(devs.back(), nullptr));
        ASSERT_NE(backends.back(), nullptr);
    }
    backends.push_back(cpu);
    ggml_context * wctx = ggml_init({kDevices * ggml_tensor_overhead(), nullptr, true});
    ggml_context * ctx  = ggml_init({4 * kDevices * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true});
    std::vector<ggml_tensor *>         weights;
    std::vector<ggml_backend_buffer_t> buffers;
    std::vector<std::vector<float>>    values;
    for (int d = 0; d < kDevices; ++d) {
        weights.push_back(ggml_new_tensor_2d(wctx, GGML_TYPE_F32, kN, kN));
        buffers.push_back(ggml_backend_buft_alloc_buffer(ggml_backend_get_default_buffer_type(backends[d]),
                                                         ggml_nbytes(weights.back()) + 256));
        ggml_backend_buffer_set_usage(buffers.back(), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ASSERT_EQ(ggml_backend_tensor_alloc(buffers.back(), weights.back(),
                                            ggml_backend_buffer_get_base(buffers.back())),
                  GGML_STATUS_SUCCESS);
        std::vector<float> v(kN * kN);
        for (int i = 0; i < kN * kN; ++i) {
            v[i] = static_cast<float>((i * 7 + d * 3) % 11 - 5) / 8.0f; // exact in binary
        }
        ggml_backend_tensor_set(weights.back(), v.data(), 0, v.size() * sizeof(float));
        values.push_back(v);
    }
    ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, kN);
    ggml_set_input(x);
    std::vector<ggml_tensor *> products;
    ggml_tensor *              cur = x;
    for (int d = 0; d < kDevices; ++d) {
        cur = ggml_mul_mat(ctx, weights[d], cur);
        products.push_back(cur);
    }
    ggml_set_output(cur);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, cur);

    ggml_backend_sched_t sched =
        ggml_backend_sched_new(backends.data(), nullptr, static_cast<int>(backends.size()), 256, false, true);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
    for (int d = 0; d < kDevices; ++d) {
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, products[d]), backends[d]) << "product " << d;
    }
    std::vector<float> want(kN);
    for (int i = 0; i < kN; ++i) {
        want[i] = static_cast<float>(i % 3) - 1.0f;
    }
    ggml_backend_tensor_set(x, want.data(), 0, want.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
    for (int d = 0; d < kDevices; ++d) { // y[r] = sum_k w[r][k] * x[k], in doubles (every value is exact)
        std::vector<float> next(kN);
        for (int r = 0; r < kN; ++r) {
            double sum = 0;
            for (int k = 0; k < kN; ++k) {
                sum += static_cast<double>(values[d][r * kN + k]) * want[k];
            }
            next[r] = static_cast<float>(sum);
        }
        want = next;
    }
    expect_close(read_tensor(cur), want);
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_free(wctx);
    for (int d = 0; d < kDevices; ++d) {
        ggml_backend_buffer_free(buffers[d]);
        ggml_backend_free(backends[d]);
        test_device_release(devs[d]);
    }
}

// Pipeline parallelism as an engine uses it: micro-batch m+1 is allocated, given its inputs and queued while
// m may still run; outputs are fetched asynchronously and checked only after one final synchronize.
TEST_F(SchedPathsTest, QueuedMicroBatchesMatchSequentialResults) {
    const Weights        w(33);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched(/*parallel=*/true);
    constexpr int        kSteps = 9;
    std::vector<std::vector<float>> inputs, outputs(kSteps);
    std::vector<std::unique_ptr<Block>> blocks;
    for (int step = 0; step < kSteps; ++step) {
        inputs.push_back(make_input(300 + static_cast<uint32_t>(step)));
        blocks.push_back(std::make_unique<Block>(pw));
        Block & b = *blocks.back();
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        ggml_backend_tensor_set(b.x, inputs.back().data(), 0, inputs.back().size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute_async(sched, b.graph), GGML_STATUS_SUCCESS);
        outputs[static_cast<size_t>(step)].resize(static_cast<size_t>(ggml_nelements(b.out)));
        ggml_backend_t out_backend = ggml_backend_sched_get_tensor_backend(sched, b.out);
        ggml_backend_tensor_get_async(out_backend, b.out, outputs[static_cast<size_t>(step)].data(), 0,
                                      ggml_nbytes(b.out));
    }
    ggml_backend_sched_synchronize(sched);
    for (int step = 0; step < kSteps; ++step) {
        expect_close(outputs[static_cast<size_t>(step)], cpu_reference(w, inputs[static_cast<size_t>(step)]));
    }
    ggml_backend_sched_free(sched);
}

struct Selective {
    std::map<std::string, int> asked, observed;
    std::string                wanted = "a";
};

bool selective(ggml_tensor * t, bool ask, void * user_data) {
    auto * s = static_cast<Selective *>(user_data);
    if (ask) {
        ++s->asked[t->name];
        return t->name == s->wanted;
    }
    ++s->observed[t->name];
    EXPECT_EQ(t->name, s->wanted) << "observed a node the callback did not ask for";
    return true;
}

// The callback answers "yes" to one node only: nodes before it run in one batch without being observed, the
// wanted node is observed once, and the result is unchanged.
TEST_F(SchedPathsTest, EvalCallbackObservesOnlyTheNodesItAsksFor) {
    const Weights            w(34);
    const std::vector<float> input = make_input(35);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ggml_backend_sched_t     sched = make_sched();
    Selective                s;
    ggml_backend_sched_set_eval_callback(sched, selective, &s);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(s.observed.size(), 1u);
    EXPECT_EQ(s.observed["a"], 1);
    for (int i = 0; i < ggml_graph_n_nodes(b.graph); ++i) {
        EXPECT_EQ(s.asked[ggml_graph_node(b.graph, i)->name], 1) << ggml_graph_node(b.graph, i)->name;
    }
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    ggml_backend_sched_free(sched);
}

// GGML_SCHED_PLAN and GGML_SCHED_TRACE, read when the scheduler is created: the plan file is written after
// allocation (so it has the compute buffer sizes) and the trace after the compute.
TEST_F(SchedPathsTest, PlanAndTraceEnvironmentVariablesWriteFiles) {
    const std::string plan_path  = ::testing::TempDir() + "switchyard_env_plan.json";
    const std::string trace_path = ::testing::TempDir() + "switchyard_env_trace.json";
    std::remove(plan_path.c_str());
    std::remove(trace_path.c_str());
    setenv("GGML_SCHED_PLAN", plan_path.c_str(), 1);
    setenv("GGML_SCHED_TRACE", trace_path.c_str(), 1);
    ggml_backend_sched_t sched = make_sched();
    unsetenv("GGML_SCHED_PLAN");
    unsetenv("GGML_SCHED_TRACE");
    const Weights            w(36);
    const std::vector<float> input = make_input(37);
    PlacedWeights            pw(w, gpu, cpu);
    Block                    b(pw);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    const size_t gpu_bytes = ggml_backend_sched_get_buffer_size(sched, gpu);
    ASSERT_GT(gpu_bytes, 0u);
    ggml_backend_sched_free(sched);

    const std::string plan = read_file(plan_path);
    EXPECT_TRUE(JsonChecker(plan).valid()) << plan;
    EXPECT_NE(plan.find("\"compute_buffer_bytes\": " + std::to_string(gpu_bytes)), std::string::npos) << plan;
    EXPECT_NE(plan.find("\"splits\""), std::string::npos) << plan;
    const std::string trace = read_file(trace_path);
    EXPECT_TRUE(JsonChecker(trace).valid()) << trace;
    EXPECT_NE(trace.find("\"cat\": \"compute\""), std::string::npos) << trace;
    std::remove(plan_path.c_str());
    std::remove(trace_path.c_str());
}

// Two streams of one device share its buffer type: a node assigned to the lower-priority stream is upgraded to
// the higher-priority one (same memory, nothing to copy), so the graph stays one split.
TEST_F(SchedPathsTest, NodeMovesToTheHigherPriorityBackendSharingItsBufferType) {
    const Weights            w(38);
    const std::vector<float> input = make_input(39);
    ggml_backend_t           gpu2  = ggml_backend_dev_init(dev, nullptr);
    ASSERT_NE(gpu2, nullptr);
    PlacedWeights        pw(w, gpu, gpu);
    Block                b(pw);
    ggml_backend_t       backends[3] = {gpu, gpu2, cpu};
    ggml_backend_sched_t sched       = ggml_backend_sched_new(backends, nullptr, 3, 256, false, true);
    ggml_backend_sched_set_tensor_backend(sched, b.u, gpu2);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.u), gpu);
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 1);
    ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
    expect_close(read_tensor(b.out), cpu_reference(w, input));
    ggml_backend_sched_free(sched);
    ggml_backend_free(gpu2);
}

std::string & debug_log() {
    static std::string text;
    return text;
}

void capture_log(ggml_log_level, const char * text, void *) { debug_log() += text; }

// GGML_SCHED_DEBUG=2: every split with its inputs, then every node with the backend it was assigned to.
TEST_F(SchedPathsTest, DebugVariablePrintsTheAssignment) {
    setenv("GGML_SCHED_DEBUG", "2", 1);
    ggml_backend_sched_t sched = make_sched();
    unsetenv("GGML_SCHED_DEBUG");
    const Weights w(40);
    PlacedWeights pw(w, gpu, cpu);
    Block         b(pw);
    debug_log().clear();
    ggml_log_set(capture_log, nullptr);
    const bool ok = ggml_backend_sched_alloc_graph(sched, b.graph);
    ggml_log_set(nullptr, nullptr);
    ASSERT_TRUE(ok);
    const std::string & text = debug_log();
    for (int s = 0; s < ggml_backend_sched_get_n_splits(sched); ++s) {
        EXPECT_NE(text.find("## SPLIT #" + std::to_string(s) + ": "), std::string::npos) << text;
    }
    EXPECT_NE(text.find("## SPLIT #0: TEST"), std::string::npos) << text;     // norm and up live on the device
    EXPECT_NE(text.find("input a ("), std::string::npos) << text;             // a goes to the CPU for down
    EXPECT_NE(text.find("u                        [TEST]"), std::string::npos) << text;
    EXPECT_NE(text.find("d                        [CPU]"), std::string::npos) << text;
    ggml_backend_sched_free(sched);
}

} // namespace
} // namespace switchyard::testing
