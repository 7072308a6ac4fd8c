// An op whose weight lives in device memory, on a device that cannot run the op: the scheduler runs it on the
// CPU and copies the weight there as a split input (as upstream does), instead of refusing the graph. A node that
// computes into memory it views runs where that memory's owner runs, though its neighbours run on the device.
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

bool not_fill(const ggml_tensor * op) { return op->op != GGML_OP_FILL; }

// llama.cpp's top-k attention mask (qwen4exp): mask = FILL(-inf) on the CPU (the device cannot fill), then
// SET_ROWS of zeros into a view of it, between nodes on the device. The SET_ROWS writes the CPU's memory, so it
// runs on the CPU; on the device it would write memory the device does not own (a Vulkan device fails there).
TEST_F(SchedTest, WriterIntoAViewRunsWhereTheMemoryIs) {
    test_device_set_supports_op(dev, not_fill);
    ggml_init_params      params{32 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *        wctx  = ggml_init(params);
    ggml_tensor *         scale = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, 6); // a weight on the device
    ggml_backend_buffer_t wbuf  = ggml_backend_alloc_ctx_tensors(wctx, gpu);
    ASSERT_NE(wbuf, nullptr);
    ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    const std::vector<float> sv = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
    ggml_backend_tensor_set(scale, sv.data(), 0, sizeof(float) * sv.size());

    ggml_context * ctx  = ggml_init(params);
    ggml_tensor *  x    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 4);
    ggml_tensor *  rows = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 2);
    ggml_tensor *  idx  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    for (ggml_tensor * t : {x, rows, idx}) {
        ggml_set_input(t);
    }
    ggml_tensor * h    = ggml_mul(ctx, x, scale);              // device (its weight)
    ggml_tensor * mask = ggml_fill(ctx, h, -1.0f);             // CPU only
    ggml_tensor * view = ggml_view_2d(ctx, mask, 6, 4, mask->nb[1], 0);
    ggml_tensor * r    = ggml_mul(ctx, rows, scale);           // device
    ggml_tensor * w    = ggml_set_rows(ctx, view, r, idx);     // into the CPU's memory
    ggml_tensor * out  = ggml_mul(ctx, ggml_view_2d(ctx, w, 6, 4, w->nb[1], 0), scale); // device
    ggml_set_output(out);
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_sched_t sched = make_sched();
    ASSERT_NE(sched, nullptr);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, h), gpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, mask), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, r), gpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, w), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, out), gpu);
    std::vector<float> xv(24, 1.0f), rv(12);
    const int32_t      iv[2] = {3, 1};
    for (size_t i = 0; i < rv.size(); ++i) {
        rv[i] = static_cast<float>(i);
    }
    ggml_backend_tensor_set(x, xv.data(), 0, sizeof(float) * xv.size());
    ggml_backend_tensor_set(rows, rv.data(), 0, sizeof(float) * rv.size());
    ggml_backend_tensor_set(idx, iv, 0, sizeof iv);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    std::vector<float> want(24);
    for (int row = 0; row < 4; ++row) {
        for (int c = 0; c < 6; ++c) {
            want[static_cast<size_t>(row * 6 + c)] = -sv[static_cast<size_t>(c)]; // -1 scaled
        }
    }
    for (int k = 0; k < 2; ++k) {
        for (int c = 0; c < 6; ++c) {
            const float s = sv[static_cast<size_t>(c)];
            want[static_cast<size_t>(iv[k] * 6 + c)] = s * s * rv[static_cast<size_t>(k * 6 + c)];
        }
    }
    expect_close(read_tensor(out), want);
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_backend_buffer_free(wbuf);
    ggml_free(wctx);
}

} // namespace
} // namespace switchyard::testing
