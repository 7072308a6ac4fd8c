// Shared setup for the scheduler tests: a GPU-like test device plus the CPU, and a small transformer-like
// block whose weights are split between them.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include "test_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace switchyard::testing {

constexpr int kEmbd = 64, kFf = 96, kTokens = 8;

struct Weights {
    std::vector<float> norm, up, down;

    explicit Weights(uint32_t seed) {
        std::mt19937                          rng(seed);
        std::uniform_real_distribution<float> u(-0.5f, 0.5f);
        norm.resize(kEmbd);
        up.resize(static_cast<size_t>(kEmbd) * kFf);
        down.resize(static_cast<size_t>(kFf) * kEmbd);
        for (float & v : norm) v = 1.0f + u(rng);
        for (float & v : up) v = u(rng) / 4;
        for (float & v : down) v = u(rng) / 4;
    }
};

// Weight tensors living in backend buffers (usage WEIGHTS).
struct PlacedWeights {
    ggml_context *        ctx_a = nullptr;
    ggml_context *        ctx_b = nullptr;
    ggml_backend_buffer_t buf_a = nullptr;
    ggml_backend_buffer_t buf_b = nullptr;
    ggml_tensor *         norm = nullptr, *up = nullptr, *down = nullptr;

    // norm and up on backend a, down on backend b
    PlacedWeights(const Weights & w, ggml_backend_t a, ggml_backend_t b) {
        ggml_init_params params{8 * ggml_tensor_overhead(), nullptr, true};
        ctx_a = ggml_init(params);
        ctx_b = ggml_init(params);
        norm  = ggml_new_tensor_1d(ctx_a, GGML_TYPE_F32, kEmbd);
        up    = ggml_new_tensor_2d(ctx_a, GGML_TYPE_F32, kEmbd, kFf);
        down  = ggml_new_tensor_2d(ctx_b, GGML_TYPE_F32, kFf, kEmbd);
        ggml_set_name(norm, "norm");
        ggml_set_name(up, "up");
        ggml_set_name(down, "down");
        buf_a = ggml_backend_alloc_ctx_tensors(ctx_a, a);
        buf_b = ggml_backend_alloc_ctx_tensors(ctx_b, b);
        EXPECT_NE(buf_a, nullptr);
        EXPECT_NE(buf_b, nullptr);
        if (buf_a && buf_b) {
            ggml_backend_buffer_set_usage(buf_a, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            ggml_backend_buffer_set_usage(buf_b, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            ggml_backend_tensor_set(norm, w.norm.data(), 0, w.norm.size() * sizeof(float));
            ggml_backend_tensor_set(up, w.up.data(), 0, w.up.size() * sizeof(float));
            ggml_backend_tensor_set(down, w.down.data(), 0, w.down.size() * sizeof(float));
        }
    }
    ~PlacedWeights() {
        ggml_backend_buffer_free(buf_a);
        ggml_backend_buffer_free(buf_b);
        ggml_free(ctx_a);
        ggml_free(ctx_b);
    }
    PlacedWeights(const PlacedWeights &)             = delete;
    PlacedWeights & operator=(const PlacedWeights &) = delete;
};

// The block: out = soft_max(down @ silu(up @ (rms_norm(x) * norm)) + x)
struct Block {
    ggml_context * ctx   = nullptr;
    ggml_cgraph *  graph = nullptr;
    ggml_tensor *  x = nullptr, *h = nullptr, *u = nullptr, *a = nullptr, *d = nullptr, *out = nullptr;

    explicit Block(const PlacedWeights & w) {
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(params);
        x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kEmbd, kTokens);
        ggml_set_name(x, "x");
        ggml_set_input(x);
        h = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), w.norm);
        ggml_set_name(h, "h");
        u = ggml_mul_mat(ctx, w.up, h);
        ggml_set_name(u, "u");
        a = ggml_silu(ctx, u);
        ggml_set_name(a, "a");
        d = ggml_mul_mat(ctx, w.down, a);
        ggml_set_name(d, "d");
        out = ggml_soft_max(ctx, ggml_add(ctx, d, x));
        ggml_set_name(out, "out");
        ggml_set_output(out);
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, out);
    }
    ~Block() { ggml_free(ctx); }
    Block(const Block &)             = delete;
    Block & operator=(const Block &) = delete;
};

inline std::vector<float> make_input(uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    v(static_cast<size_t>(kEmbd) * kTokens);
    for (float & f : v) f = u(rng);
    return v;
}

inline std::vector<float> read_tensor(const ggml_tensor * t) {
    std::vector<float> v(static_cast<size_t>(ggml_nelements(t)));
    ggml_backend_tensor_get(t, v.data(), 0, v.size() * sizeof(float));
    return v;
}

// Reference result: the block on the CPU backend alone, planned with the graph allocator directly (not the
// scheduler).
inline std::vector<float> cpu_reference(const Weights & w, const std::vector<float> & input) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    std::vector<float> result;
    {
        PlacedWeights pw(w, cpu, cpu);
        Block         b(pw);
        ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
        EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc, b.graph));
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        EXPECT_EQ(ggml_backend_graph_compute(cpu, b.graph), GGML_STATUS_SUCCESS);
        result = read_tensor(b.out);
        ggml_gallocr_free(galloc);
    }
    ggml_backend_free(cpu);
    return result;
}

inline void expect_close(const std::vector<float> & got, const std::vector<float> & want, float tol = 1e-5f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "at element " << i;
    }
}

class SchedTest : public ::testing::Test {
protected:
    void SetUp() override { init(TestDeviceConfig{}); }

    void init(const TestDeviceConfig & config) {
        TearDown();
        dev = test_device_create(config);
        gpu = ggml_backend_dev_init(dev, nullptr);
        cpu = ggml_backend_cpu_init();
        ASSERT_NE(gpu, nullptr);
        ASSERT_NE(cpu, nullptr);
    }

    ggml_backend_sched_t make_sched(bool parallel = false) {
        ggml_backend_t backends[2] = {gpu, cpu};
        return ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, parallel, true);
    }

    void TearDown() override {
        ggml_backend_free(gpu);
        ggml_backend_free(cpu);
        if (dev) {
            test_device_release(dev);
        }
        gpu = cpu = nullptr;
        dev = nullptr;
    }

    ggml_backend_dev_t dev = nullptr;
    ggml_backend_t     gpu = nullptr;
    ggml_backend_t     cpu = nullptr;
};

inline std::string plan_of(ggml_backend_sched_t sched) {
    std::string s(ggml_backend_sched_plan_json(sched, nullptr, 0) + 1, '\0');
    ggml_backend_sched_plan_json(sched, s.data(), s.size());
    s.pop_back();
    return s;
}

} // namespace switchyard::testing
