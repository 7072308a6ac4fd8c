// Allocation failures inside the scheduler: creation, reserve, alloc_graph and compute, on the CPU alone and on
// a GPU-like test device plus the CPU (two splits, input copies, events with parallel = true). A failed call
// leaves a scheduler that computes the graph on the next try.
#include "graphs.h"

#include "test_device.h"

#include <cstring>

namespace switchyard::alloc_failure {
namespace {

// The test device, made once (it outlives every scheduler of the process). It runs MUL_MAT only, so the graph
// below is cut into a device split and a CPU split.
ggml_backend_dev_t test_device() {
    static ggml_backend_dev_t dev = [] {
        Pause                     pause;
        testing::TestDeviceConfig config;
        config.name        = "INJECTDEV";
        config.supports_op = [](const ggml_tensor * t) {
            return t->op == GGML_OP_MUL_MAT || t->op == GGML_OP_NONE || t->op == GGML_OP_VIEW ||
                   t->op == GGML_OP_RESHAPE;
        };
        return testing::test_device_create(config);
    }();
    return dev;
}

// out = (w x a + a) * 0.5 with w [32, 32] in a weights buffer (on the device when there is one), a [32, 4] a
// graph input placed by the scheduler.
struct SchedState {
    static constexpr int64_t kK = 32, kM = 4;

    BackendPtr         cpu{ggml_backend_cpu_init()};
    BackendPtr         dev;
    ContextPtr         wctx = meta_context(4);
    ContextPtr         gctx = meta_context();
    BufferPtr          weights;
    ggml_tensor *      w = nullptr;
    ggml_tensor *      a = nullptr;
    ggml_tensor *      out = nullptr;
    ggml_cgraph *      graph = nullptr;
    SchedPtr           sched;
    ggml_status        status = GGML_STATUS_FAILED;
    std::vector<float> vw = values(kK * kK, 0.3f, 0.0f), va = values(kK * kM, 0.11f, 0.5f);

    explicit SchedState(bool with_device) {
        if (with_device) {
            dev.reset(ggml_backend_dev_init(test_device(), nullptr));
        }
        w       = ggml_new_tensor_2d(wctx.get(), GGML_TYPE_F32, kK, kK);
        weights.reset(ggml_backend_alloc_ctx_tensors(wctx.get(), with_device ? dev.get() : cpu.get()));
        EXPECT_NE(weights, nullptr);
        ggml_backend_buffer_set_usage(weights.get(), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ggml_backend_tensor_set(w, vw.data(), 0, vw.size() * sizeof(float));
        a = ggml_new_tensor_2d(gctx.get(), GGML_TYPE_F32, kK, kM);
        ggml_set_input(a);
        out = ggml_scale(gctx.get(), ggml_add(gctx.get(), ggml_mul_mat(gctx.get(), w, a), a), 0.5f);
        ggml_set_output(out);
        graph = ggml_new_graph(gctx.get());
        ggml_build_forward_expand(graph, out);
    }

    bool make_sched(bool parallel) {
        ggml_backend_t backends[2] = {dev.get(), cpu.get()};
        const int      n           = dev ? 2 : 1;
        sched.reset(ggml_backend_sched_new(dev ? backends : backends + 1, nullptr, n, 256, parallel, true));
        return sched != nullptr;
    }

    // allocates afresh, fills a, computes and checks the result
    void compute_and_check() {
        ggml_backend_sched_reset(sched.get());
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched.get(), graph));
        ggml_backend_tensor_set(a, va.data(), 0, va.size() * sizeof(float));
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched.get(), graph), GGML_STATUS_SUCCESS);
        expect_result();
    }

    void expect_result() const {
        std::vector<float> r(static_cast<size_t>(kK * kM));
        ggml_backend_tensor_get(out, r.data(), 0, r.size() * sizeof(float));
        for (int64_t m = 0; m < kM; ++m) {
            for (int64_t n = 0; n < kK; ++n) {
                double dot = 0;
                for (int64_t k = 0; k < kK; ++k) {
                    dot += static_cast<double>(vw[n * kK + k]) * va[m * kK + k];
                }
                const double want = (dot + va[m * kK + n]) * 0.5;
                ASSERT_NEAR(r[m * kK + n], want, 1e-3) << "(" << n << ", " << m << ")";
            }
        }
    }
};

class SchedInjection : public ::testing::TestWithParam<bool> {
protected:
    bool with_device() const { return GetParam(); }

    std::unique_ptr<SchedState> fresh(bool parallel, bool with_sched = true) const {
        auto state = std::make_unique<SchedState>(with_device());
        if (with_sched) {
            EXPECT_TRUE(state->make_sched(parallel));
        }
        return state;
    }
};

TEST_P(SchedInjection, New) {
    for (bool parallel : {false, true}) {
        inject_each(
            {"ggml_backend_sched_new"}, [&] { return fresh(parallel, false); },
            [&](SchedState & s) { return s.make_sched(parallel); },
            [](SchedState & s, bool ok) {
                if (ok) {
                    s.compute_and_check();
                }
            });
    }
}

TEST_P(SchedInjection, Reserve) {
    inject_each(
        {"ggml_backend_sched_reserve"}, [&] { return fresh(false); },
        [](SchedState & s) { return ggml_backend_sched_reserve(s.sched.get(), s.graph); },
        [](SchedState & s, bool ok) {
            if (!ok) {
                ASSERT_TRUE(ggml_backend_sched_reserve(s.sched.get(), s.graph));
            }
            s.compute_and_check();
        });
}

TEST_P(SchedInjection, AllocGraph) {
    inject_each(
        {"ggml_backend_sched_alloc_graph"}, [&] { return fresh(true); },
        [](SchedState & s) { return ggml_backend_sched_alloc_graph(s.sched.get(), s.graph); },
        [](SchedState & s, bool ok) {
            if (ok) {
                s.compute_and_check();
                return;
            }
            EXPECT_EQ(s.out->data, nullptr) << "a failed alloc_graph left the graph allocated";
            s.compute_and_check();
        });
}

TEST_P(SchedInjection, ComputeAllocatedGraph) {
    inject_each(
        {"ggml_backend_sched_graph_compute", "ggml_backend_graph_compute"},
        [&] {
            auto state = fresh(true);
            EXPECT_TRUE(ggml_backend_sched_alloc_graph(state->sched.get(), state->graph));
            ggml_backend_tensor_set(state->a, state->va.data(), 0, state->va.size() * sizeof(float));
            return state;
        },
        [](SchedState & s) {
            s.status = ggml_backend_sched_graph_compute(s.sched.get(), s.graph);
            return s.status == GGML_STATUS_SUCCESS;
        },
        [](SchedState & s, bool ok) {
            if (ok) {
                s.expect_result();
                return;
            }
            EXPECT_TRUE(s.status == GGML_STATUS_FAILED || s.status == GGML_STATUS_ALLOC_FAILED) << s.status;
            // the same allocation computes on the next try
            ASSERT_EQ(ggml_backend_sched_graph_compute(s.sched.get(), s.graph), GGML_STATUS_SUCCESS);
            s.expect_result();
        });
}

TEST_P(SchedInjection, ComputeThatAllocates) {
    // compute on a reset scheduler splits and allocates the graph itself (a holds whatever its memory held;
    // the check computes again with a set)
    inject_each(
        {"ggml_backend_sched_graph_compute", "ggml_backend_sched_alloc_graph", "ggml_backend_graph_compute"},
        [&] { return fresh(false); },
        [](SchedState & s) {
            s.status = ggml_backend_sched_graph_compute(s.sched.get(), s.graph);
            return s.status == GGML_STATUS_SUCCESS;
        },
        [](SchedState & s, bool ok) {
            if (!ok) {
                EXPECT_TRUE(s.status == GGML_STATUS_FAILED || s.status == GGML_STATUS_ALLOC_FAILED) << s.status;
            }
            s.compute_and_check();
        });
}

INSTANTIATE_TEST_SUITE_P(Backends, SchedInjection, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> & info) {
                             return info.param ? std::string("TestDeviceAndCpu") : std::string("CpuOnly");
                         });

} // namespace
} // namespace switchyard::alloc_failure
