// An op whose weight lives in device memory, on a device that cannot run the op: the scheduler runs it on the
// CPU and copies the weight there as a split input (as upstream does), instead of refusing the graph.
#include "sched_fixture.h"

namespace switchyard::testing {
namespace {

bool not_mul(const ggml_tensor * op) { return op->op != GGML_OP_MUL; }

TEST_F(SchedTest, OpOnDeviceWeightFallsBackToCpuWithTheWeightCopied) {
    for (const bool parallel : {false, true}) {
        SCOPED_TRACE(parallel ? "pipeline parallel" : "sequential");
        test_device_set_supports_op(dev, not_mul);
        const Weights            w(11);
        const std::vector<float> input = make_input(12);
        PlacedWeights            pw(w, gpu, cpu); // norm (the MUL's weight) and up on the device
        Block                    b(pw);
        ggml_backend_sched_t     sched = make_sched(parallel);
        ASSERT_NE(sched, nullptr);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, b.graph));
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.h), cpu); // the MUL
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.u), gpu); // up @ h stays with its weight
        const std::string plan = plan_of(sched);
        // the CPU split that runs the MUL copies the norm weight out of device memory
        EXPECT_NE(plan.find("{\"name\": \"norm\", \"bytes\": " + std::to_string(kEmbd * 4) + "}"), std::string::npos)
            << plan;
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
        expect_close(read_tensor(b.out), cpu_reference(w, input));
        // a second step reuses the plan and still agrees
        ggml_backend_sched_reset(sched);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, b.graph), GGML_STATUS_SUCCESS);
        expect_close(read_tensor(b.out), cpu_reference(w, input));
        ggml_backend_sched_free(sched);
    }
}

TEST_F(SchedTest, CpuStillRefusesToReadDeviceMemoryDirectly) {
    // the probe is the scheduler's business: asked directly, the CPU refuses a MUL whose source is device memory
    const Weights w(13);
    PlacedWeights pw(w, gpu, cpu);
    Block         b(pw);
    EXPECT_FALSE(ggml_backend_supports_op(cpu, b.h));
    EXPECT_TRUE(ggml_backend_supports_op(cpu, b.d)); // down lives on the CPU
}

} // namespace
} // namespace switchyard::testing
