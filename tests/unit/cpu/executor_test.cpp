// ggml_graph_plan / ggml_graph_compute / ggml_graph_compute_with_ctx with the test kernels of cpu_test_util.h:
// work sizes, thread counts, kernel barriers and scratch, the COMPUTE flag, the abort callback stopping between
// nodes, unsupported nodes and missing data failing before anything runs, and the error returns; the CPU
// backend's one-pass plan and compute (cpu/executor.h) against ggml_graph_plan.
#include "cpu_test_util.h"

#include "cpu/executor.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace switchyard::testing;

constexpr int64_t kCols = 37;
constexpr int64_t kRows = 11;
constexpr size_t  kN    = kCols * kRows;

// chain: n0 = a + b, n1 = n0 * b, n2 = n1 + a, n3 = n2 * a, n4 = n3 + b (ADD on all threads, MUL on one)
struct Chain {
    ggml_tensor *              a = nullptr;
    ggml_tensor *              b = nullptr;
    std::vector<ggml_tensor *> nodes;
    ggml_cgraph *              graph = nullptr;

    explicit Chain(ggml_context * ctx) {
        a = new_f32(ctx, kCols, kRows, "a");
        b = new_f32(ctx, kCols, kRows, "b");
        nodes.push_back(ggml_add(ctx, a, b));
        nodes.push_back(ggml_mul(ctx, nodes[0], b));
        nodes.push_back(ggml_add(ctx, nodes[1], a));
        nodes.push_back(ggml_mul(ctx, nodes[2], a));
        nodes.push_back(ggml_add(ctx, nodes[3], b));
        for (size_t i = 0; i < nodes.size(); ++i) {
            ggml_format_name(nodes[i], "n%zu", i);
        }
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, nodes.back());
        fill(a, ramp(kN, 0.25f));
        fill(b, ramp(kN, -0.125f));
        for (ggml_tensor * node : nodes) {
            fill_all(node, 1234.0f); // sentinel: "not computed"
        }
    }

    // expected node values, computed here in plain loops
    std::vector<std::vector<float>> expected() const {
        const std::vector<float>        va = values(a), vb = values(b);
        std::vector<std::vector<float>> out(5, std::vector<float>(kN));
        for (size_t i = 0; i < kN; ++i) {
            out[0][i] = va[i] + vb[i];
            out[1][i] = out[0][i] * vb[i];
            out[2][i] = out[1][i] + va[i];
            out[3][i] = out[2][i] * va[i];
            out[4][i] = out[3][i] + vb[i];
        }
        return out;
    }
};

ggml_status compute(ggml_cgraph * graph, int n_threads, std::vector<uint8_t> & work, ggml_cplan * out = nullptr) {
    ggml_cplan plan = ggml_graph_plan(graph, n_threads, nullptr);
    work.assign(plan.work_size, 0);
    plan.work_data = work.empty() ? nullptr : work.data();
    if (out) {
        *out = plan;
    }
    return ggml_graph_compute(graph, &plan);
}

TEST(GraphPlan, WorkSizeIsLargestNodePlusOneCacheLinePerThread) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    for (int n : {1, 2, 4}) {
        const ggml_cplan plan = ggml_graph_plan(chain.graph, n, nullptr);
        EXPECT_EQ(plan.n_threads, n);
        EXPECT_EQ(plan.work_size, static_cast<size_t>(n) * 64 + static_cast<size_t>(n) * 64) << n;
        EXPECT_EQ(plan.work_data, nullptr);
        EXPECT_EQ(plan.threadpool, nullptr);
        EXPECT_FALSE(plan.use_ref);
    }
    EXPECT_EQ(ggml_graph_plan(chain.graph, 0, nullptr).n_threads, GGML_DEFAULT_N_THREADS);
}

TEST(GraphPlan, SingleTaskGraphsUseOneThreadAndNoScratch) {
    TestKernels kernels;
    HostContext ctx;
    ggml_tensor * a = new_f32(ctx.get(), 4, 4, "a");
    ggml_tensor * m = ggml_mul(ctx.get(), a, a);
    ggml_cgraph * g = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(g, m);
    const ggml_cplan plan = ggml_graph_plan(g, 8, nullptr);
    EXPECT_EQ(plan.n_threads, 1);
    EXPECT_EQ(plan.work_size, 0u);
}

TEST(GraphCompute, ResultsAreTheSameOnOneTwoAndFourThreads) {
    TestKernels kernels;
    for (int n : {1, 2, 4}) {
        HostContext          ctx;
        Chain                chain(ctx.get());
        std::vector<uint8_t> work;
        kernel_stats().reset();
        ASSERT_EQ(compute(chain.graph, n, work), GGML_STATUS_SUCCESS) << n;
        const auto expected = chain.expected();
        for (size_t i = 0; i < chain.nodes.size(); ++i) {
            EXPECT_EQ(values(chain.nodes[i]), expected[i]) << "node " << i << ", " << n << " threads";
        }
        EXPECT_EQ(kernel_stats().phased_add_nodes.load(), 3);
        EXPECT_EQ(kernel_stats().serial_mul_nodes.load(), 2);
        EXPECT_EQ(kernel_stats().max_nth.load(), n);
        EXPECT_TRUE(kernel_stats().scratch_ok.load()) << n;
    }
}

// Without a thread pool in the plan, computations share one pool kept between them (executor.cpp): repeated calls,
// a change of thread count, two threads computing at once (one of them then starts a pool of its own) and a forked
// child (which has none of its parent's workers and so starts its own) all compute the chain.
TEST(GraphCompute, KeptPoolServesRepeatedConcurrentAndForkedComputations) {
    TestKernels          kernels;
    HostContext          ctx;
    Chain                chain(ctx.get());
    const auto           want = chain.expected()[4];
    std::vector<uint8_t> work;
    for (int n : {2, 2, 3, 2}) {
        fill_all(chain.nodes.back(), 1234.0f);
        ASSERT_EQ(compute(chain.graph, n, work), GGML_STATUS_SUCCESS) << n << " threads";
        EXPECT_EQ(values(chain.nodes.back()), want) << n << " threads";
    }
    std::atomic<int> wrong{0};
    const auto       many = [&] {
        HostContext          own_ctx;
        Chain                own(own_ctx.get());
        std::vector<uint8_t> own_work;
        for (int i = 0; i < 50; ++i) {
            fill_all(own.nodes.back(), 1234.0f);
            if (compute(own.graph, 2, own_work) != GGML_STATUS_SUCCESS || values(own.nodes.back()) != want) {
                ++wrong;
            }
        }
    };
    std::thread other(many);
    many();
    other.join();
    EXPECT_EQ(wrong.load(), 0);
    if (std::getenv("SWITCHYARD_TEST_EMULATED") != nullptr) {
        GTEST_SKIP() << "emulated (qemu-user): a forked child of a process with threads cannot start threads";
    }
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "ThreadSanitizer: no fork() of a process with threads";
#else
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::alarm(30); // a child that waited on its parent's workers would hang: end it
        fill_all(chain.nodes.back(), 1234.0f);
        const bool ok = compute(chain.graph, 2, work) == GGML_STATUS_SUCCESS && values(chain.nodes.back()) == want;
        ::_exit(ok ? 0 : 1);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
#endif
}

TEST(GraphCompute, OnAThreadPoolOfTheCaller) {
    TestKernels            kernels;
    HostContext            ctx;
    Chain                  chain(ctx.get());
    ggml_threadpool_params params = ggml_threadpool_params_default(3);
    params.paused                 = true;
    ggml_threadpool * pool        = ggml_threadpool_new(&params);
    ASSERT_NE(pool, nullptr);
    ggml_cplan plan = ggml_graph_plan(chain.graph, 3, pool);
    EXPECT_EQ(plan.threadpool, pool);
    std::vector<uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    for (int round = 0; round < 3; ++round) {
        fill_all(chain.nodes.back(), 1234.0f);
        ASSERT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_SUCCESS); // the paused pool is resumed
        EXPECT_EQ(values(chain.nodes.back()), chain.expected()[4]);
    }
    EXPECT_EQ(kernel_stats().max_nth.load(), 3);
    ggml_threadpool_free(pool);
}

TEST(GraphCompute, MoreThreadsThanThePoolHasAreCappedWithAWarning) {
    TestKernels            kernels;
    HostContext            ctx;
    Chain                  chain(ctx.get());
    ggml_threadpool_params params = ggml_threadpool_params_default(2);
    ggml_threadpool *      pool   = ggml_threadpool_new(&params);
    ASSERT_NE(pool, nullptr);
    ggml_cplan           plan = ggml_graph_plan(chain.graph, 4, pool);
    std::vector<uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    CpuLogCapture log;
    ASSERT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_SUCCESS);
    EXPECT_TRUE(log.contains("thread pool has 2"));
    EXPECT_EQ(values(chain.nodes.back()), chain.expected()[4]);
    EXPECT_EQ(kernel_stats().max_nth.load(), 2);
    ggml_threadpool_free(pool);
}

// More threads than cores, many rounds: every round must see the previous node's complete output.
TEST(GraphCompute, OversubscribedPoolManyRounds) {
    TestKernels            kernels;
    HostContext            ctx;
    Chain                  chain(ctx.get());
    ggml_threadpool_params params = ggml_threadpool_params_default(8);
    ggml_threadpool *      pool   = ggml_threadpool_new(&params);
    ASSERT_NE(pool, nullptr);
    ggml_cplan           plan = ggml_graph_plan(chain.graph, 8, pool);
    std::vector<uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    for (int round = 0; round < 30; ++round) {
        fill(chain.a, ramp(kN, 0.25f + static_cast<float>(round)));
        ASSERT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_SUCCESS) << round;
        ASSERT_EQ(values(chain.nodes.back()), chain.expected()[4]) << round;
    }
    EXPECT_TRUE(kernel_stats().scratch_ok.load());
    EXPECT_EQ(kernel_stats().max_nth.load(), 8);
    ggml_threadpool_free(pool);
}

TEST(GraphCompute, NodesWithoutTheComputeFlagAreSkipped) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    chain.nodes[1]->flags &= ~GGML_TENSOR_FLAG_COMPUTE;
    std::vector<uint8_t> work;
    ASSERT_EQ(compute(chain.graph, 2, work), GGML_STATUS_SUCCESS);
    const auto expected = chain.expected();
    EXPECT_EQ(values(chain.nodes[0]), expected[0]);
    EXPECT_EQ(values(chain.nodes[1]), std::vector<float>(kN, 1234.0f)); // skipped: sentinel kept
    // n2 = n1 + a with n1 still holding the sentinel
    const std::vector<float> va = values(chain.a);
    for (size_t i = 0; i < kN; ++i) {
        ASSERT_EQ(values(chain.nodes[2])[i], 1234.0f + va[i]) << i;
    }
    EXPECT_EQ(kernel_stats().serial_mul_nodes.load(), 1);
}

struct AbortAt {
    int calls    = 0;
    int fire_at  = 0;
    static bool callback(void * data) {
        auto * self = static_cast<AbortAt *>(data);
        return ++self->calls == self->fire_at;
    }
};

TEST(GraphCompute, AbortCallbackStopsBetweenNodes) {
    TestKernels kernels;
    for (int n : {1, 3}) {
        HostContext          ctx;
        Chain                chain(ctx.get());
        AbortAt              abort{0, 3};
        std::vector<uint8_t> work;
        ggml_cplan           plan = ggml_graph_plan(chain.graph, n, nullptr);
        work.resize(plan.work_size);
        plan.work_data           = work.data();
        plan.abort_callback      = &AbortAt::callback;
        plan.abort_callback_data = &abort;
        EXPECT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_ABORTED);
        EXPECT_EQ(abort.calls, 3); // polled once after each of the three nodes that ran
        const auto expected = chain.expected();
        for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(values(chain.nodes[i]), expected[i]) << i;
        }
        EXPECT_EQ(values(chain.nodes[3]), std::vector<float>(kN, 1234.0f));
        EXPECT_EQ(values(chain.nodes[4]), std::vector<float>(kN, 1234.0f));
    }
}

// Many short graphs aborted at every position on 4 threads: a thread slow to leave a barrier must stop at the
// same node as the others (a stale-flag race here shows up as a hang or a wrong call count).
TEST(GraphCompute, AbortAtEveryPositionRepeatedly) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    std::vector<uint8_t> work;
    ggml_cplan           plan = ggml_graph_plan(chain.graph, 4, nullptr);
    ggml_threadpool_params params = ggml_threadpool_params_default(4);
    ggml_threadpool *      pool   = ggml_threadpool_new(&params);
    ASSERT_NE(pool, nullptr);
    plan.threadpool = pool;
    work.resize(plan.work_size);
    plan.work_data = work.data();
    for (int round = 0; round < 150; ++round) {
        AbortAt abort{0, 1 + round % 5};
        plan.abort_callback      = &AbortAt::callback;
        plan.abort_callback_data = &abort;
        ASSERT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_ABORTED) << round;
        ASSERT_EQ(abort.calls, 1 + round % 5) << round;
    }
    ggml_threadpool_free(pool);
}

TEST(GraphCompute, AbortCallbackThatNeverFiresIsPolledPerNode) {
    TestKernels          kernels;
    HostContext          ctx;
    Chain                chain(ctx.get());
    AbortAt              abort{0, -1};
    std::vector<uint8_t> work;
    ggml_cplan           plan = ggml_graph_plan(chain.graph, 2, nullptr);
    work.resize(plan.work_size);
    plan.work_data           = work.data();
    plan.abort_callback      = &AbortAt::callback;
    plan.abort_callback_data = &abort;
    EXPECT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_SUCCESS);
    EXPECT_EQ(abort.calls, 5);
}

TEST(GraphCompute, UnsupportedOpFailsBeforeAnythingRuns) {
    TestKernels kernels;
    KernelSwap  no_mul(GGML_OP_MUL, switchyard::cpu::KernelInfo{});
    HostContext ctx;
    Chain       chain(ctx.get());
    CpuLogCapture        log;
    std::vector<uint8_t> work;
    EXPECT_EQ(compute(chain.graph, 2, work), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("node 1 'n1' (MUL f32 <- f32 'n0', f32 'b')")) << log.text();
    EXPECT_TRUE(log.contains("not supported by the CPU backend")) << log.text();
    EXPECT_EQ(values(chain.nodes[0]), std::vector<float>(kN, 1234.0f)); // node 0 did not run either
}

TEST(GraphCompute, OpWithoutAnyKernelIsNamedInTheLog) {
    // every op of the enum has a CPU kernel: take this one's away for the test
    KernelSwap    no_kernel(GGML_OP_LIGHTNING_INDEXER, switchyard::cpu::KernelInfo{});
    HostContext   ctx;
    ggml_tensor * a = new_f32(ctx.get(), 4, 1, "a");
    ggml_tensor * t = new_f32(ctx.get(), 4, 1, "made_up");
    t->op           = GGML_OP_LIGHTNING_INDEXER;
    t->src[0]       = a;
    t->src[1]       = a;
    t->flags |= GGML_TENSOR_FLAG_COMPUTE;
    ggml_cgraph * g = ggml_new_graph(ctx.get());
    ggml_graph_add_node(g, t);
    CpuLogCapture        log;
    std::vector<uint8_t> work;
    EXPECT_EQ(compute(g, 1, work), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("LIGHTNING_INDEXER")) << log.text();
    EXPECT_TRUE(log.contains("'made_up'")) << log.text();
}

TEST(GraphCompute, UnallocatedTensorsFailWithALog) {
    TestKernels    kernels;
    ggml_init_params params = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    a      = new_f32(ctx, 4, 2, "a");
    ggml_tensor *    s      = ggml_add(ctx, a, a);
    ggml_set_name(s, "sum");
    ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, s);
    CpuLogCapture        log;
    std::vector<uint8_t> work;
    EXPECT_EQ(compute(g, 1, work), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("'sum'")) << log.text();
    EXPECT_TRUE(log.contains("no data")) << log.text();
    ggml_free(ctx);
}

TEST(GraphCompute, BadPlansAreRejected) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    CpuLogCapture log;

    ggml_cplan plan = ggml_graph_plan(chain.graph, 2, nullptr);
    ASSERT_GT(plan.work_size, 0u);
    EXPECT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_FAILED); // work_data missing
    EXPECT_TRUE(log.contains("work_data is NULL"));

    std::vector<uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    plan.n_threads = 0;
    EXPECT_EQ(ggml_graph_compute(chain.graph, &plan), GGML_STATUS_FAILED);

    // a plan for 1 thread computed on 4: the scratch is too small for the wider split, and that is caught
    ggml_cplan           small = ggml_graph_plan(chain.graph, 1, nullptr);
    std::vector<uint8_t> small_work(small.work_size);
    small.work_data = small_work.data();
    small.n_threads = 4;
    EXPECT_EQ(ggml_graph_compute(chain.graph, &small), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("bytes of work memory"));

    EXPECT_EQ(ggml_graph_compute(nullptr, &plan), GGML_STATUS_FAILED);
    EXPECT_EQ(ggml_graph_compute(chain.graph, nullptr), GGML_STATUS_FAILED);
    EXPECT_EQ(values(chain.nodes[0]), std::vector<float>(kN, 1234.0f));
}

TEST(GraphCompute, EmptyGraphSucceeds) {
    HostContext   ctx;
    ggml_cgraph * g    = ggml_new_graph(ctx.get());
    ggml_cplan    plan = ggml_graph_plan(g, 4, nullptr);
    EXPECT_EQ(plan.work_size, 0u);
    EXPECT_EQ(ggml_graph_compute(g, &plan), GGML_STATUS_SUCCESS);
}

TEST(GraphComputeWithCtx, TakesScratchFromTheContext) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    const size_t before = ggml_used_mem(ctx.get());
    ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), chain.graph, 3), GGML_STATUS_SUCCESS);
    EXPECT_GE(ggml_used_mem(ctx.get()), before + 3 * 64);
    EXPECT_EQ(values(chain.nodes.back()), chain.expected()[4]);
}

TEST(GraphComputeWithCtx, ContextTooSmallForScratchIsAllocFailed) {
    TestKernels kernels;
    // room for the tensors and the graph, not for the scratch
    const size_t  tensor_bytes = 7 * (ggml_tensor_overhead() + kN * sizeof(float));
    HostContext   ctx(tensor_bytes + ggml_graph_overhead() + 256);
    Chain         chain(ctx.get());
    CpuLogCapture log;
    const size_t  left = ggml_get_mem_size(ctx.get()) - ggml_used_mem(ctx.get());
    ASSERT_LT(left, ggml_graph_plan(chain.graph, 2, nullptr).work_size);
    EXPECT_EQ(ggml_graph_compute_with_ctx(ctx.get(), chain.graph, 2), GGML_STATUS_ALLOC_FAILED);
    EXPECT_TRUE(log.contains("[ggml_graph_compute_with_ctx]")) << log.text();
    EXPECT_EQ(values(chain.nodes[0]), std::vector<float>(kN, 1234.0f));
}

// compute_graph's prepare: records the plan it is given and hands it `work` sized to it (or fails, with `fail`).
struct Prepared {
    ggml_cplan           plan{};
    std::vector<uint8_t> work;
    bool                 called = false;
    bool                 fail   = false;

    static bool prepare(void * self_ptr, ggml_cplan & plan) {
        auto * self   = static_cast<Prepared *>(self_ptr);
        self->called = true;
        self->plan   = plan;
        if (self->fail) {
            return false;
        }
        self->work.assign(plan.work_size, 0);
        plan.work_data = self->work.empty() ? nullptr : self->work.data();
        return true;
    }
};

TEST(OnePassPlan, IsThePlanGgmlGraphPlanMakes) {
    TestKernels kernels;
    // MUL on one thread with scratch: a graph whose busiest node uses fewer threads than asked for, with work
    KernelSwap  mul_with_work(GGML_OP_MUL, {serial_mul, one_task, phased_add_work, same_shape_f32});
    for (int n : {1, 2, 4}) {
        HostContext   ctx;
        Chain         chain(ctx.get());
        ggml_tensor * a    = new_f32(ctx.get(), 4, 4, "a");
        ggml_cgraph * mul  = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(mul, ggml_mul(ctx.get(), a, a));
        fill(a, ramp(16, 0.5f));
        for (ggml_cgraph * g : {chain.graph, mul}) {
            const ggml_cplan expected = ggml_graph_plan(g, n, nullptr);
            Prepared         got;
            ASSERT_EQ(switchyard::cpu::compute_graph(g, n, &Prepared::prepare, &got), GGML_STATUS_SUCCESS) << n;
            ASSERT_TRUE(got.called);
            EXPECT_EQ(got.plan.n_threads, expected.n_threads) << n;
            EXPECT_EQ(got.plan.work_size, expected.work_size) << n;
        }
        EXPECT_EQ(values(chain.nodes.back()), chain.expected()[4]) << n;
        EXPECT_TRUE(kernel_stats().scratch_ok.load()) << n;
    }
}

TEST(OnePassPlan, PrepareFailingIsAllocFailedAndComputesNothing) {
    TestKernels kernels;
    HostContext ctx;
    Chain       chain(ctx.get());
    Prepared    refused;
    refused.fail = true;
    EXPECT_EQ(switchyard::cpu::compute_graph(chain.graph, 2, &Prepared::prepare, &refused), GGML_STATUS_ALLOC_FAILED);
    EXPECT_TRUE(refused.called);
    for (ggml_tensor * node : chain.nodes) {
        EXPECT_EQ(values(node), std::vector<float>(kN, 1234.0f));
    }
}

} // namespace
