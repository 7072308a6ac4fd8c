// The Vulkan backend (stream): graphs computed asynchronously and read back, asynchronous transfers, events
// between two streams of the device, copies between streams, and the scheduler: a graph split between the Vulkan
// device and the CPU (an op the device does not compute in the middle), with pipeline parallelism (several
// copies of the inputs, events between the splits). Results are compared with the CPU backend.
#include "vk_fixture.h"

#include "ggml-cpu.h"

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace switchyard::testing {
namespace {

std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    v(n);
    for (float & f : v) f = u(rng);
    return v;
}

void expect_near_all(const std::vector<float> & got, const std::vector<float> & want, float tol = 1e-4f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
    }
}

// A small transformer-like chain: rms_norm, mul_mat, add, silu, soft_max, then cumsum (which the Vulkan device
// does not compute) and a final mul_mat back on the device.
struct Chain {
    ggml_tensor *x, *w, *out;
    ggml_cgraph * graph;
};

Chain build_chain(ggml_context * ctx, bool with_cpu_only_op) {
    Chain c{};
    c.x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 6);
    c.w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
    ggml_set_name(c.x, "x");
    ggml_set_name(c.w, "w");
    ggml_set_input(c.x);
    ggml_tensor * h = ggml_rms_norm(ctx, c.x, 1e-5f);
    h               = ggml_mul_mat(ctx, c.w, h);
    h               = ggml_silu(ctx, ggml_add(ctx, h, c.x));
    h               = ggml_soft_max(ctx, h);
    if (with_cpu_only_op) {
        h = ggml_cumsum(ctx, h);
    }
    c.out = ggml_mul_mat(ctx, c.w, h);
    ggml_set_output(c.out);
    c.graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(c.graph, c.out);
    return c;
}

// The chain on the CPU backend, for comparison.
std::vector<float> chain_on_cpu(bool with_cpu_only_op, const std::vector<float> & x, const std::vector<float> & w) {
    ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(params);
    Chain            c   = build_chain(ctx, with_cpu_only_op);
    ggml_backend_t   cpu = ggml_backend_cpu_init();
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    ggml_backend_tensor_set(c.x, x.data(), 0, ggml_nbytes(c.x));
    ggml_backend_tensor_set(c.w, w.data(), 0, ggml_nbytes(c.w));
    EXPECT_EQ(ggml_backend_graph_compute(cpu, c.graph), GGML_STATUS_SUCCESS);
    std::vector<float> out(static_cast<size_t>(ggml_nelements(c.out)));
    ggml_backend_tensor_get(c.out, out.data(), 0, ggml_nbytes(c.out));
    ggml_backend_buffer_free(buf);
    ggml_backend_free(cpu);
    ggml_free(ctx);
    return out;
}

TEST_F(VulkanTest, GraphComputeMatchesCpu) {
    Chain c = build_chain(ctx_, false);
    allocate();
    const std::vector<float> x = random_floats(64 * 6, 1), w = random_floats(64 * 64, 2);
    ggml_backend_tensor_set(c.x, x.data(), 0, ggml_nbytes(c.x));
    ggml_backend_tensor_set(c.w, w.data(), 0, ggml_nbytes(c.w));
    ASSERT_EQ(ggml_backend_graph_compute(backend_, c.graph), GGML_STATUS_SUCCESS);
    std::vector<float> out(static_cast<size_t>(ggml_nelements(c.out)));
    ggml_backend_tensor_get(c.out, out.data(), 0, ggml_nbytes(c.out));
    expect_near_all(out, chain_on_cpu(false, x, w));
}

TEST_F(VulkanTest, AsyncTransfersAroundAGraph) {
    Chain c = build_chain(ctx_, false);
    allocate();
    const std::vector<float> x = random_floats(64 * 6, 3), w = random_floats(64 * 64, 4);
    std::vector<float>       out(static_cast<size_t>(ggml_nelements(c.out)), -1.0f);
    for (int round = 0; round < 3; ++round) { // the stream's staging memory is reused after each synchronize
        ggml_backend_tensor_set_async(backend_, c.x, x.data(), 0, ggml_nbytes(c.x));
        ggml_backend_tensor_set_async(backend_, c.w, w.data(), 0, ggml_nbytes(c.w));
        ASSERT_EQ(ggml_backend_graph_compute_async(backend_, c.graph), GGML_STATUS_SUCCESS);
        ggml_backend_tensor_get_async(backend_, c.out, out.data(), 0, ggml_nbytes(c.out));
        ggml_backend_synchronize(backend_);
        expect_near_all(out, chain_on_cpu(false, x, w));
    }
}

TEST_F(VulkanTest, UnsupportedNodeFailsWithoutAbort) {
    ggml_tensor * a = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 16);
    ggml_tensor * r = ggml_pool_1d(ctx_, a, GGML_OP_POOL_AVG, 2, 2, 0); // an op this backend does not run
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, r);
    allocate();
    EXPECT_FALSE(ggml_backend_supports_op(backend_, r));
    EXPECT_NE(ggml_backend_graph_compute(backend_, g), GGML_STATUS_SUCCESS);
}

TEST_F(VulkanTest, EventsOrderTwoStreams) {
    ggml_tensor * a = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4096);
    ggml_tensor * b = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4096);
    ggml_tensor * s = ggml_scale(ctx_, a, 3.0f);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, s);
    allocate();
    ggml_backend_t second = ggml_backend_dev_init(dev_, nullptr);
    ASSERT_NE(second, nullptr);
    ggml_backend_event_t event = ggml_backend_event_new(dev_);
    ASSERT_NE(event, nullptr);
    const std::vector<float> x = random_floats(4096, 5);
    for (int round = 0; round < 3; ++round) {
        ggml_backend_tensor_set(a, x.data(), 0, ggml_nbytes(a));
        ASSERT_EQ(ggml_backend_graph_compute_async(backend_, g), GGML_STATUS_SUCCESS);
        ggml_backend_event_record(event, backend_);
        ggml_backend_event_wait(second, event);
        ggml_backend_tensor_copy_async(backend_, second, s, b); // queued on the second stream
        ggml_backend_synchronize(second);
        ggml_backend_event_synchronize(event);
        std::vector<float> out(4096);
        ggml_backend_tensor_get(b, out.data(), 0, ggml_nbytes(b));
        for (size_t i = 0; i < out.size(); ++i) ASSERT_FLOAT_EQ(out[i], x[i] * 3.0f);
    }
    ggml_backend_event_free(event);
    ggml_backend_free(second);
}

class VulkanSchedTest : public VulkanTest, public ::testing::WithParamInterface<bool> {};

// The chain split between the device and the CPU, with and without pipeline parallelism.
TEST_P(VulkanSchedTest, SplitGraphMatchesCpu) {
    const bool     parallel = GetParam();
    ggml_backend_t cpu      = ggml_backend_cpu_init();
    ggml_backend_t backends[2] = {backend_, cpu};
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, nullptr, 2, 256, parallel, true);
    ASSERT_NE(sched, nullptr);
    Chain c = build_chain(ctx_, true);
    // the weight lives on the device, as a model's would
    buffer_ = ggml_backend_alloc_buffer(backend_, ggml_nbytes(c.w) + 256);
    ASSERT_NE(buffer_, nullptr);
    ggml_tallocr talloc = ggml_tallocr_new(buffer_);
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, c.w), GGML_STATUS_SUCCESS);
    const std::vector<float> w = random_floats(64 * 64, 7);
    ggml_backend_tensor_set(c.w, w.data(), 0, ggml_nbytes(c.w));
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, c.graph));
    EXPECT_GE(ggml_backend_sched_get_n_splits(sched), 2); // device, CPU (cumsum), device
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, c.out), backend_);
    for (int round = 0; round < 3; ++round) {
        const std::vector<float> x = random_floats(64 * 6, 10 + round);
        ggml_backend_tensor_set(c.x, x.data(), 0, ggml_nbytes(c.x));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, c.graph), GGML_STATUS_SUCCESS);
        std::vector<float> out(static_cast<size_t>(ggml_nelements(c.out)));
        ggml_backend_tensor_get(c.out, out.data(), 0, ggml_nbytes(c.out));
        expect_near_all(out, chain_on_cpu(true, x, w));
    }
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
}

INSTANTIATE_TEST_SUITE_P(Parallel, VulkanSchedTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> & i) { return i.param ? "pipeline" : "sequential"; });

} // namespace
} // namespace switchyard::testing
