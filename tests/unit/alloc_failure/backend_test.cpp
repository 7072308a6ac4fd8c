// Allocation failures in the backend layer: creating the CPU backend, contexts with a memory pool, allocating
// a context's tensors (one buffer, or a multi-buffer of several parts), and computing on several threads (the
// thread pool is created on first use).
#include "graphs.h"

#include "ggml-backend-impl.h"

#include "unit/bad_input/failing_buft.h"

namespace switchyard::alloc_failure {
namespace {

TEST(AllocFailure, CpuBackendInit) {
    struct State {
        BackendPtr backend;
    };
    inject_each(
        {"ggml_backend_cpu_init"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.backend.reset(ggml_backend_cpu_init());
            return s.backend != nullptr;
        },
        [](State & s, bool ok) {
            if (ok) {
                ElementwiseGraph g;
                BufferPtr        buffer(ggml_backend_alloc_ctx_tensors(g.ctx.get(), s.backend.get()));
                ASSERT_NE(buffer, nullptr);
                g.set_inputs();
                ASSERT_EQ(ggml_backend_graph_compute(s.backend.get(), g.graph), GGML_STATUS_SUCCESS);
                g.expect_result();
            }
        });
}

TEST(AllocFailure, InitContextWithAPool) {
    struct State {
        ContextPtr ctx;
    };
    inject_each(
        {"ggml_init"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            ggml_init_params params = {1 << 20, nullptr, false};
            s.ctx.reset(ggml_init(params));
            return s.ctx != nullptr;
        },
        [](State & s, bool ok) {
            if (ok) {
                EXPECT_NE(ggml_new_tensor_1d(s.ctx.get(), GGML_TYPE_F32, 1024), nullptr);
            }
        });
}

// Three weights and a view of one of them, allocated together.
struct Weights {
    ContextPtr                 ctx = meta_context(8);
    std::vector<ggml_tensor *> tensors;
    ggml_tensor *              view = nullptr;
    BufferPtr                  buffer;

    Weights() {
        for (int i = 0; i < 3; ++i) {
            tensors.push_back(ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 24));
        }
        view = ggml_view_1d(ctx.get(), tensors[1], 8, 16);
    }

    void expect_untouched() const {
        for (ggml_tensor * t : tensors) {
            EXPECT_EQ(t->buffer, nullptr) << "a failed allocation left a tensor in a freed buffer";
            EXPECT_EQ(t->data, nullptr);
        }
        EXPECT_EQ(view->buffer, nullptr);
    }

    void expect_usable() const {
        for (size_t i = 0; i < tensors.size(); ++i) {
            const std::vector<float> v = values(24, 0.5f, static_cast<float>(i));
            ggml_backend_tensor_set(tensors[i], v.data(), 0, 96);
            std::vector<float> back(24);
            ggml_backend_tensor_get(tensors[i], back.data(), 0, 96);
            EXPECT_EQ(back, v);
        }
        float from_view[8];
        ggml_backend_tensor_get(view, from_view, 0, sizeof(from_view));
        EXPECT_EQ(from_view[0], values(24, 0.5f, 1.0f)[4]);
    }
};

TEST(AllocFailure, AllocCtxTensors) {
    struct State {
        BackendPtr cpu{ggml_backend_cpu_init()};
        Weights    w;
    };
    inject_each(
        {"ggml_backend_alloc_ctx_tensors"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.w.buffer.reset(ggml_backend_alloc_ctx_tensors(s.w.ctx.get(), s.cpu.get()));
            return s.w.buffer != nullptr;
        },
        [](State & s, bool ok) {
            if (!ok) {
                s.w.expect_untouched();
                s.w.buffer.reset(ggml_backend_alloc_ctx_tensors(s.w.ctx.get(), s.cpu.get()));
                ASSERT_NE(s.w.buffer, nullptr) << "the retry failed";
            }
            s.w.expect_usable();
        });
}

TEST(AllocFailure, AllocCtxTensorsIntoAMultiBuffer) {
    // a max size of 128 bytes puts each 96-byte weight in its own buffer: three parts and a multi-buffer
    struct State {
        bad_input::FailingBuft buft{128};
        Weights                w;
    };
    inject_each(
        {"ggml_backend_alloc_ctx_tensors_from_buft", "ggml_backend_multi_buffer_alloc_buffer"},
        [] { return std::make_unique<State>(); },
        [](State & s) {
            s.w.buffer.reset(ggml_backend_alloc_ctx_tensors_from_buft(s.w.ctx.get(), s.buft.get()));
            return s.w.buffer != nullptr;
        },
        [](State & s, bool ok) {
            if (!ok) {
                EXPECT_EQ(s.buft.live_buffers(), 0) << "parts of a failed multi-buffer were not freed";
                s.w.expect_untouched();
                s.w.buffer.reset(ggml_backend_alloc_ctx_tensors_from_buft(s.w.ctx.get(), s.buft.get()));
                ASSERT_NE(s.w.buffer, nullptr) << "the retry failed";
            }
            EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(s.w.buffer.get()));
            s.w.expect_usable();
            s.w.buffer.reset();
            EXPECT_EQ(s.buft.live_buffers(), 0);
        });
}

TEST(AllocFailure, CpuComputeOnSeveralThreads) {
    // the backend's thread pool is made on the first compute: its threads' state is allocated by the caller
    struct State {
        BackendPtr       cpu{ggml_backend_cpu_init()};
        ElementwiseGraph g;
        BufferPtr        buffer;
        ggml_status      status = GGML_STATUS_FAILED;

        State() {
            ggml_backend_cpu_set_n_threads(cpu.get(), 4);
            buffer.reset(ggml_backend_alloc_ctx_tensors(g.ctx.get(), cpu.get()));
            g.set_inputs();
        }
    };
    inject_each(
        {"ggml_backend_graph_compute", "ggml_graph_compute"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.status = ggml_backend_graph_compute(s.cpu.get(), s.g.graph);
            return s.status == GGML_STATUS_SUCCESS;
        },
        [](State & s, bool ok) {
            if (!ok) {
                EXPECT_TRUE(s.status == GGML_STATUS_FAILED || s.status == GGML_STATUS_ALLOC_FAILED) << s.status;
                ASSERT_EQ(ggml_backend_graph_compute(s.cpu.get(), s.g.graph), GGML_STATUS_SUCCESS);
            }
            s.g.expect_result();
        });
}

} // namespace
} // namespace switchyard::alloc_failure
