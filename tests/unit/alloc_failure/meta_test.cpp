// Allocation failures in the meta device: creating its backend (one simple backend per device, worker
// threads, the communicator), allocating its buffers (scatter of a context's weights into per-device slices),
// and computing a graph on it. The meta device itself lives for the whole process, so it is made once, before
// anything is measured.
#include "graphs.h"

#include "ggml-backend-impl.h"

#include <cstring>
#include <string>
#include <vector>

namespace switchyard::alloc_failure {
namespace {

ggml_backend_meta_split_state state_of(const ggml_tensor * t, void *) {
    ggml_backend_meta_split_state s;
    std::memset(&s, 0, sizeof(s));
    s.n_segments = 1;
    s.nr[0]      = 1;
    if (std::strcmp(t->name, "w_split") == 0) {
        s.axis  = GGML_BACKEND_SPLIT_AXIS_1;
        s.ne[0] = t->ne[1] / 2;
        s.ne[1] = t->ne[1] - t->ne[1] / 2;
    } else {
        s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    }
    return s;
}

// A meta device over n CPU devices (made once per n, before anything is measured).
ggml_backend_dev_t meta_device(int n = 2) {
    static ggml_backend_dev_t devices[4] = {};
    if (devices[n] == nullptr) {
        Pause                           pause;
        std::vector<ggml_backend_dev_t> devs(static_cast<size_t>(n), ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
        devices[n] = ggml_backend_meta_device(devs.data(), devs.size(), state_of, nullptr);
    }
    return devices[n];
}

class MetaInit : public ::testing::TestWithParam<int> {};

TEST_P(MetaInit, BackendInit) {
    // with 3 devices the backend starts 2 worker threads: a failure between them must not leave one running
    const int n = GetParam();
    ASSERT_NE(meta_device(n), nullptr);
    struct State {
        BackendPtr backend;
    };
    inject_each(
        {"ggml_backend_dev_init", "ggml_backend_meta"}, [] { return std::make_unique<State>(); },
        [n](State & s) {
            s.backend.reset(ggml_backend_dev_init(meta_device(n), nullptr));
            return s.backend != nullptr;
        },
        [n](State & s, bool ok) {
            if (ok) {
                EXPECT_EQ(ggml_backend_meta_n_backends(s.backend.get()), static_cast<size_t>(n));
            }
        });
}

INSTANTIATE_TEST_SUITE_P(Devices, MetaInit, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int> & info) { return std::to_string(info.param); });

// w_split [16, 8] split in rows across the two devices, w_whole [16] mirrored.
struct MetaWeights {
    ContextPtr    ctx     = meta_context(8);
    ggml_tensor * w_split = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 16, 8);
    ggml_tensor * w_whole = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    BufferPtr     buffer;

    MetaWeights() {
        ggml_set_name(w_split, "w_split");
        ggml_set_name(w_whole, "w_whole");
    }

    bool allocate() {
        buffer.reset(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_dev_buffer_type(meta_device())));
        return buffer != nullptr;
    }

    void expect_round_trip() const {
        const std::vector<float> v = values(128, 0.2f, 0.0f);
        ggml_backend_tensor_set(w_split, v.data(), 0, v.size() * sizeof(float));
        std::vector<float> back(128);
        ggml_backend_tensor_get(w_split, back.data(), 0, back.size() * sizeof(float));
        EXPECT_EQ(back, v);
    }
};

TEST(AllocFailure, MetaAllocCtxTensors) {
    ASSERT_NE(meta_device(), nullptr);
    inject_each(
        {"ggml_backend_alloc_ctx_tensors_from_buft", "ggml_backend_meta"}, [] { return std::make_unique<MetaWeights>(); },
        [](MetaWeights & w) { return w.allocate(); },
        [](MetaWeights & w, bool ok) {
            if (!ok) {
                for (const ggml_tensor * t : {w.w_split, w.w_whole}) {
                    EXPECT_EQ(t->buffer, nullptr) << t->name;
                    EXPECT_EQ(t->data, nullptr) << t->name;
                }
                ASSERT_TRUE(w.allocate()) << "the retry failed";
            }
            w.expect_round_trip();
        });
}

TEST(AllocFailure, MetaBufferAlloc) {
    ASSERT_NE(meta_device(), nullptr);
    struct State {
        BufferPtr buffer;
    };
    inject_each(
        {"ggml_backend_buft_alloc_buffer", "ggml_backend_meta"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.buffer.reset(ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(meta_device()), 1 << 16));
            return s.buffer != nullptr;
        },
        [](State & s, bool ok) {
            if (ok) {
                EXPECT_TRUE(ggml_backend_buffer_is_meta(s.buffer.get()));
            }
        });
}

TEST(AllocFailure, MetaGraphCompute) {
    ASSERT_NE(meta_device(), nullptr);
    // out = (w_split x a) * 2, with a [16, 3] a graph input (mirrored)
    struct State {
        BackendPtr         backend{ggml_backend_dev_init(meta_device(), nullptr)};
        MetaWeights        w;
        ContextPtr         gctx = meta_context();
        GallocrPtr         galloc{ggml_gallocr_new(ggml_backend_dev_buffer_type(meta_device()))};
        ggml_tensor *      a    = nullptr;
        ggml_tensor *      out  = nullptr;
        ggml_cgraph *      graph = nullptr;
        ggml_status        status = GGML_STATUS_FAILED;
        std::vector<float> vw = values(128, 0.2f, 0.0f), va = values(48, 0.3f, 0.1f);

        State() {
            EXPECT_TRUE(w.allocate());
            ggml_backend_tensor_set(w.w_split, vw.data(), 0, vw.size() * sizeof(float));
            a = ggml_new_tensor_2d(gctx.get(), GGML_TYPE_F32, 16, 3);
            ggml_set_input(a);
            out = ggml_scale(gctx.get(), ggml_mul_mat(gctx.get(), w.w_split, a), 2.0f);
            ggml_set_output(out);
            graph = ggml_new_graph(gctx.get());
            ggml_build_forward_expand(graph, out);
            EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc.get(), graph));
            ggml_backend_tensor_set(a, va.data(), 0, va.size() * sizeof(float));
        }

        void expect_result() const {
            std::vector<float> r(24);
            ggml_backend_tensor_get(out, r.data(), 0, r.size() * sizeof(float));
            for (int m = 0; m < 3; ++m) {
                for (int n = 0; n < 8; ++n) {
                    double dot = 0;
                    for (int k = 0; k < 16; ++k) {
                        dot += static_cast<double>(vw[n * 16 + k]) * va[m * 16 + k];
                    }
                    ASSERT_NEAR(r[m * 8 + n], 2.0 * dot, 1e-3) << n << ", " << m;
                }
            }
        }
    };
    inject_each(
        {"ggml_backend_graph_compute", "ggml_backend_meta"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.status = ggml_backend_graph_compute(s.backend.get(), s.graph);
            return s.status == GGML_STATUS_SUCCESS;
        },
        [](State & s, bool ok) {
            if (!ok) {
                EXPECT_TRUE(s.status == GGML_STATUS_FAILED || s.status == GGML_STATUS_ALLOC_FAILED) << s.status;
                ASSERT_EQ(ggml_backend_graph_compute(s.backend.get(), s.graph), GGML_STATUS_SUCCESS);
            }
            s.expect_result();
        });
}

} // namespace
} // namespace switchyard::alloc_failure
