// Custom ops on the CPU backend: the application's function is called once for every ith in [0, nth) with
// nth = n_tasks (GGML_N_TASKS_MAX: the thread count; else at most the thread count), the in-place forms write a's
// memory, and under a scheduler with a GPU-like device (which refuses custom ops) they run on the CPU with the
// right results.
#include "test_device.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace switchyard::testing {
namespace {

// Every (ith, nth) a function was called with, from any thread.
struct Calls {
    std::mutex                       mutex;
    std::vector<std::pair<int, int>> seen;

    void record(int ith, int nth) {
        std::lock_guard lock(mutex);
        seen.emplace_back(ith, nth);
    }
    // true when the calls were exactly (0, nth), (1, nth), ... (nth - 1, nth), in any order
    ::testing::AssertionResult each_ith_once(int nth) {
        std::vector<std::pair<int, int>> got = seen;
        std::sort(got.begin(), got.end());
        std::vector<std::pair<int, int>> want;
        for (int i = 0; i < nth; ++i) {
            want.emplace_back(i, nth);
        }
        if (got == want) {
            return ::testing::AssertionSuccess();
        }
        std::string text;
        for (const auto & [i, n] : got) {
            text += " (" + std::to_string(i) + "," + std::to_string(n) + ")";
        }
        return ::testing::AssertionFailure() << "calls:" << text << ", expected nth = " << nth << " once per ith";
    }
};

float * f32(const ggml_tensor * t) { return static_cast<float *>(t->data); }

// dst[i] = a[i] + 1 over the elements of thread ith's share (contiguous F32 tensors)
void add_one(ggml_tensor * dst, const ggml_tensor * a, int ith, int nth, Calls * calls) {
    calls->record(ith, nth);
    const int64_t n = ggml_nelements(dst), per = (n + nth - 1) / nth;
    for (int64_t i = per * ith; i < std::min(n, per * (ith + 1)); ++i) {
        f32(dst)[i] = f32(a)[i] + 1.0f;
    }
}

void custom1(ggml_tensor * dst, const ggml_tensor * a, int ith, int nth, void * ud) {
    add_one(dst, a, ith, nth, static_cast<Calls *>(ud));
}

// dst = a + b
void custom2(ggml_tensor * dst, const ggml_tensor * a, const ggml_tensor * b, int ith, int nth, void * ud) {
    static_cast<Calls *>(ud)->record(ith, nth);
    const int64_t n = ggml_nelements(dst), per = (n + nth - 1) / nth;
    for (int64_t i = per * ith; i < std::min(n, per * (ith + 1)); ++i) {
        f32(dst)[i] = f32(a)[i] + f32(b)[i];
    }
}

// dst = a * b + c
void custom3(ggml_tensor * dst, const ggml_tensor * a, const ggml_tensor * b, const ggml_tensor * c, int ith, int nth,
             void * ud) {
    static_cast<Calls *>(ud)->record(ith, nth);
    const int64_t n = ggml_nelements(dst), per = (n + nth - 1) / nth;
    for (int64_t i = per * ith; i < std::min(n, per * (ith + 1)); ++i) {
        f32(dst)[i] = f32(a)[i] * f32(b)[i] + f32(c)[i];
    }
}

// dst = src[0] - src[1]
void custom_sub(ggml_tensor * dst, int ith, int nth, void * ud) {
    static_cast<Calls *>(ud)->record(ith, nth);
    const int64_t n = ggml_nelements(dst), per = (n + nth - 1) / nth;
    for (int64_t i = per * ith; i < std::min(n, per * (ith + 1)); ++i) {
        f32(dst)[i] = f32(dst->src[0])[i] - f32(dst->src[1])[i];
    }
}

constexpr int64_t kN = 37; // not a multiple of any thread count

class CustomOpCpu : public ::testing::Test {
protected:
    void SetUp() override { ctx_ = ggml_init(ggml_init_params{64 << 20, nullptr, false}); }
    void TearDown() override { ggml_free(ctx_); }

    ggml_tensor * input(float base) {
        ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, kN);
        for (int64_t i = 0; i < kN; ++i) {
            f32(t)[i] = base + static_cast<float>(i);
        }
        return t;
    }

    ggml_status compute(ggml_tensor * out, int n_threads) {
        ggml_cgraph * g = ggml_new_graph(ctx_);
        ggml_build_forward_expand(g, out);
        return ggml_graph_compute_with_ctx(ctx_, g, n_threads);
    }

    ggml_context * ctx_ = nullptr;
};

int expected_nth(int n_tasks, int n_threads) {
    return n_tasks == GGML_N_TASKS_MAX ? n_threads : std::min(n_tasks, n_threads);
}

TEST_F(CustomOpCpu, EveryIthOnceWithTheExpectedNth) {
    for (int n_threads : {1, 4}) {
        for (int n_tasks : {1, 2, GGML_N_TASKS_MAX}) {
            SCOPED_TRACE("n_threads " + std::to_string(n_threads) + ", n_tasks " + std::to_string(n_tasks));
            const int nth = expected_nth(n_tasks, n_threads);
            {
                Calls         calls;
                ggml_tensor * a   = input(1.0f);
                ggml_tensor * out = ggml_map_custom1(ctx_, a, custom1, n_tasks, &calls);
                ASSERT_EQ(compute(out, n_threads), GGML_STATUS_SUCCESS);
                EXPECT_TRUE(calls.each_ith_once(nth)) << "map_custom1";
                for (int64_t i = 0; i < kN; ++i) {
                    ASSERT_EQ(f32(out)[i], 2.0f + static_cast<float>(i)) << i;
                }
            }
            {
                Calls         calls;
                ggml_tensor * a   = input(1.0f);
                ggml_tensor * b   = input(10.0f);
                ggml_tensor * out = ggml_map_custom2(ctx_, a, b, custom2, n_tasks, &calls);
                ASSERT_EQ(compute(out, n_threads), GGML_STATUS_SUCCESS);
                EXPECT_TRUE(calls.each_ith_once(nth)) << "map_custom2";
                for (int64_t i = 0; i < kN; ++i) {
                    ASSERT_EQ(f32(out)[i], 11.0f + 2.0f * static_cast<float>(i)) << i;
                }
            }
            {
                Calls         calls;
                ggml_tensor * a   = input(0.0f);
                ggml_tensor * b   = input(2.0f);
                ggml_tensor * c   = input(-1.0f);
                ggml_tensor * out = ggml_map_custom3(ctx_, a, b, c, custom3, n_tasks, &calls);
                ASSERT_EQ(compute(out, n_threads), GGML_STATUS_SUCCESS);
                EXPECT_TRUE(calls.each_ith_once(nth)) << "map_custom3";
                for (int64_t i = 0; i < kN; ++i) {
                    const float x = static_cast<float>(i);
                    ASSERT_EQ(f32(out)[i], x * (x + 2.0f) + x - 1.0f) << i;
                }
            }
            {
                Calls         calls;
                ggml_tensor * args[2] = {input(5.0f), input(1.0f)};
                ggml_tensor * out     = ggml_custom_4d(ctx_, GGML_TYPE_F32, kN, 1, 1, 1, args, 2, custom_sub, n_tasks, &calls);
                ASSERT_EQ(compute(out, n_threads), GGML_STATUS_SUCCESS);
                EXPECT_TRUE(calls.each_ith_once(nth)) << "custom_4d";
                for (int64_t i = 0; i < kN; ++i) {
                    ASSERT_EQ(f32(out)[i], 4.0f) << i;
                }
            }
        }
    }
}

// A graph of one-task custom ops is planned for one thread, as upstream's ggml_graph_plan does.
TEST_F(CustomOpCpu, PlanUsesTheLargestTaskCount) {
    Calls         calls;
    ggml_tensor * a = input(0.0f);
    ggml_tensor * one = ggml_map_custom1(ctx_, a, custom1, 1, &calls);
    ggml_cgraph * g   = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, one);
    EXPECT_EQ(ggml_graph_plan(g, 4, nullptr).n_threads, 1);
    ggml_build_forward_expand(g, ggml_map_custom1(ctx_, one, custom1, 3, &calls));
    EXPECT_EQ(ggml_graph_plan(g, 4, nullptr).n_threads, 3);
    EXPECT_EQ(ggml_graph_plan(g, 2, nullptr).n_threads, 2);
    ggml_build_forward_expand(g, ggml_map_custom1(ctx_, one, custom1, GGML_N_TASKS_MAX, &calls));
    EXPECT_EQ(ggml_graph_plan(g, 4, nullptr).n_threads, 4);
}

TEST_F(CustomOpCpu, InplaceFormsWriteAsMemory) {
    for (int n_threads : {1, 4}) {
        SCOPED_TRACE("n_threads " + std::to_string(n_threads));
        Calls         calls;
        ggml_tensor * a1  = input(1.0f);
        ggml_tensor * r1  = ggml_map_custom1_inplace(ctx_, a1, custom1, GGML_N_TASKS_MAX, &calls);
        ggml_tensor * a2  = input(1.0f);
        ggml_tensor * r2  = ggml_map_custom2_inplace(ctx_, a2, input(3.0f), custom2, 2, &calls);
        ggml_tensor * a3  = input(1.0f);
        ggml_tensor * r3  = ggml_map_custom3_inplace(ctx_, a3, input(0.0f), input(0.0f), custom3, 3, &calls);
        ggml_tensor * a4  = input(7.0f);
        ggml_tensor * arg = input(2.0f);
        ggml_tensor * r4  = ggml_custom_inplace(ctx_, a4, &arg, 1, custom_sub, 1, &calls);
        for (ggml_tensor * r : {r1, r2, r3, r4}) {
            ASSERT_EQ(compute(r, n_threads), GGML_STATUS_SUCCESS);
        }
        EXPECT_EQ(r1->data, a1->data);
        EXPECT_EQ(r4->data, a4->data);
        for (int64_t i = 0; i < kN; ++i) {
            const float x = static_cast<float>(i);
            ASSERT_EQ(f32(a1)[i], x + 2.0f) << i;           // a + 1
            ASSERT_EQ(f32(a2)[i], 2.0f * x + 4.0f) << i;    // a + b
            ASSERT_EQ(f32(a3)[i], (x + 1.0f) * x + x) << i; // a * b + c
            ASSERT_EQ(f32(a4)[i], 5.0f) << i;               // a - arg
        }
    }
}

// x * w1 (w1 on the device) -> custom1 (+1; the device refuses it: on the CPU) -> + w2 (w2 on the device)
TEST(CustomOpSched, RunsOnTheCpuWhenTheOtherDeviceRefuses) {
    ggml_backend_dev_t dev = test_device_create(TestDeviceConfig{});
    ggml_backend_t     gpu = ggml_backend_dev_init(dev, nullptr);
    ggml_backend_t     cpu = ggml_backend_cpu_init();
    ASSERT_NE(gpu, nullptr);
    ASSERT_NE(cpu, nullptr);
    ggml_backend_cpu_set_n_threads(cpu, 4);
    {
        ggml_context * wctx = ggml_init(ggml_init_params{4 * ggml_tensor_overhead(), nullptr, true});
        ggml_tensor *  w1   = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, kN, 3);
        ggml_tensor *  w2   = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, kN, 3);
        ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors(wctx, gpu);
        ASSERT_NE(wbuf, nullptr);
        ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        const size_t       n = static_cast<size_t>(kN * 3);
        std::vector<float> in(n), v1(n), v2(n);
        for (size_t i = 0; i < n; ++i) {
            in[i] = static_cast<float>(i) * 0.25f - 3.0f;
            v1[i] = 2.0f - static_cast<float>(i % 5);
            v2[i] = static_cast<float>(i % 7) * 0.5f;
        }
        ggml_backend_tensor_set(w1, v1.data(), 0, n * sizeof(float));
        ggml_backend_tensor_set(w2, v2.data(), 0, n * sizeof(float));

        ggml_context * ctx = ggml_init(ggml_init_params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true});
        Calls          calls;
        ggml_tensor *  x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kN, 3);
        ggml_set_input(x);
        ggml_tensor * pre  = ggml_mul(ctx, x, w1);
        ggml_tensor * cust = ggml_map_custom1(ctx, pre, custom1, GGML_N_TASKS_MAX, &calls);
        ggml_tensor * out  = ggml_add(ctx, cust, w2);
        ggml_set_output(out);
        ggml_cgraph * graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, out);

        EXPECT_FALSE(ggml_backend_dev_supports_op(dev, cust)) << "a GPU-like device cannot call host functions";
        EXPECT_TRUE(ggml_backend_dev_supports_op(dev, pre));

        ggml_backend_t       backends[2] = {gpu, cpu};
        ggml_backend_sched_t sched = ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, pre), gpu);
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, cust), cpu);
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, out), gpu);

        ggml_backend_tensor_set(x, in.data(), 0, n * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
        EXPECT_TRUE(calls.each_ith_once(4));
        std::vector<float> got(n);
        ggml_backend_tensor_get(out, got.data(), 0, n * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            ASSERT_FLOAT_EQ(got[i], in[i] * v1[i] + 1.0f + v2[i]) << i;
        }
        ggml_backend_sched_free(sched);
        ggml_free(ctx);
        ggml_backend_buffer_free(wbuf);
        ggml_free(wctx);
    }
    ggml_backend_free(cpu);
    ggml_backend_free(gpu);
    test_device_release(dev);
}

} // namespace
} // namespace switchyard::testing
