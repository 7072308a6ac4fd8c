// Bad input and failures in the allocators: a context allocation that fails part-way (a buffer type whose
// second allocation fails, a view of an unallocated tensor) must return NULL and leave every tensor as it was,
// so the same call can be retried (fix 3); graph allocators whose buffers cannot be had fail with a status and
// stay usable; bad arguments are refused with a message.
#include "bad_input.h"
#include "failing_buft.h"

#include "ggml-backend-impl.h"

namespace switchyard::bad_input {
namespace {

constexpr int64_t kRow = 24; // floats: 96 bytes, one tensor per 128-byte buffer

// Four weights of 96 bytes each; with a max size of 128 bytes each gets its own buffer (4 ranges).
struct FourWeights {
    ContextPtr                 ctx = meta_context(8);
    std::vector<ggml_tensor *> tensors;

    FourWeights() {
        for (int i = 0; i < 4; ++i) {
            ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, kRow);
            ggml_format_name(t, "w%d", i);
            tensors.push_back(t);
        }
    }

    ::testing::AssertionResult untouched() const {
        for (ggml_tensor * t : tensors) {
            if (t->buffer != nullptr || t->data != nullptr) {
                return ::testing::AssertionFailure()
                       << "tensor '" << t->name << "' kept buffer " << t->buffer << " / data " << t->data
                       << " from a failed allocation";
            }
        }
        return ::testing::AssertionSuccess();
    }
};

TEST(AllocBadInput, ContextAllocationFailingPartWayLeavesTensorsUntouched) {
    FailingBuft buft(128);
    FourWeights w;
    buft.fail_nth(2);
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors_from_buft")) << logged(log);
    EXPECT_EQ(buft.live_buffers(), 0) << "buffers allocated before the failure were not freed";
    EXPECT_TRUE(w.untouched());

    // the retry works and every tensor is usable
    buft.fail_nth(0);
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()));
    ASSERT_NE(buffer, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(buffer.get()));
    EXPECT_EQ(buft.live_buffers(), 4);
    for (size_t i = 0; i < w.tensors.size(); ++i) {
        ASSERT_NE(w.tensors[i]->data, nullptr);
        const std::vector<uint8_t> bytes = pattern(kRow * sizeof(float), static_cast<uint8_t>(i));
        write_bytes(w.tensors[i], bytes);
        EXPECT_EQ(read_bytes(w.tensors[i]), bytes);
    }
    buffer.reset();
    EXPECT_EQ(buft.live_buffers(), 0);
}

TEST(AllocBadInput, ContextAllocationFailingOnTheLastBufferLeavesTensorsUntouched) {
    FailingBuft buft(128);
    FourWeights w;
    buft.fail_nth(4);
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors_from_buft")) << logged(log);
    EXPECT_EQ(buft.live_buffers(), 0);
    EXPECT_TRUE(w.untouched());
}

TEST(AllocBadInput, ContextAllocationFailingInOneBufferLeavesTensorsUntouched) {
    FailingBuft buft;
    FourWeights w;
    buft.fail_nth(1);
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors_from_buft")) << logged(log);
    EXPECT_TRUE(w.untouched());
    buft.fail_nth(0);
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()));
    EXPECT_NE(buffer, nullptr);
}

TEST(AllocBadInput, ViewOfAnUnallocatedTensorFailsAndLeavesTensorsUntouched) {
    ContextPtr    other = meta_context(4);
    ggml_tensor * src   = ggml_new_tensor_1d(other.get(), GGML_TYPE_F32, 16);
    ggml_set_name(src, "elsewhere");

    FourWeights   w; // allocated before the view in context order
    ggml_tensor * view = ggml_view_1d(w.ctx.get(), src, 4, 0);
    ggml_set_name(view, "view_of_elsewhere");
    FailingBuft buft;
    LogCapture  log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_backend_alloc_ctx_tensors_from_buft", "view_of_elsewhere"})) << logged(log);
    EXPECT_EQ(buft.live_buffers(), 0);
    EXPECT_TRUE(w.untouched());
    EXPECT_EQ(view->buffer, nullptr);

    // once its source has memory, the retry works and the view sees the source's data
    BufferPtr src_buffer(ggml_backend_alloc_ctx_tensors_from_buft(other.get(), ggml_backend_cpu_buffer_type()));
    ASSERT_NE(src_buffer, nullptr);
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft.get()));
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(view->data, src->data);
    EXPECT_EQ(view->buffer, src_buffer.get());
    for (ggml_tensor * t : w.tensors) {
        EXPECT_EQ(t->buffer, buffer.get());
    }
}

TEST(AllocBadInput, TensorLargerThanTheMaxSizeIsRefused) {
    FailingBuft   buft(64);
    ContextPtr    ctx = meta_context(4);
    ggml_tensor * big = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 32);
    ggml_set_name(big, "too_big");
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), buft.get()), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_backend_alloc_ctx_tensors_from_buft", "too_big"})) << logged(log);
    EXPECT_EQ(buft.attempts(), 0) << "nothing should be allocated for a context that cannot fit";
    EXPECT_EQ(big->data, nullptr);
}

TEST(AllocBadInput, ContextArgumentsAreChecked) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(nullptr, ggml_backend_cpu_buffer_type()), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors_from_buft")) << logged(log);
    log.clear();
    ContextPtr ctx = meta_context(4);
    ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), nullptr), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors_from_buft")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors(ctx.get(), nullptr), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_alloc_ctx_tensors")) << logged(log);
    log.clear();
    ggml_init_params params = {1 << 16, nullptr, false}; // allocating context: its tensors have memory already
    ContextPtr       owning(ggml_init(params));
    ggml_new_tensor_1d(owning.get(), GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(owning.get(), ggml_backend_cpu_buffer_type()), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_backend_alloc_ctx_tensors_from_buft", "no_alloc"})) << logged(log);
}

TEST(AllocBadInput, MultiBufferArgumentsAreChecked) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_multi_buffer_alloc_buffer(nullptr, 0), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_multi_buffer_alloc_buffer")) << logged(log);
    log.clear();
    FailingBuft           buft;
    ggml_backend_buffer_t parts[2] = {ggml_backend_buft_alloc_buffer(buft.get(), 64), nullptr};
    EXPECT_EQ(ggml_backend_multi_buffer_alloc_buffer(parts, 2), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_multi_buffer_alloc_buffer")) << logged(log);
    // a refused multi-buffer leaves its parts with the caller
    EXPECT_EQ(buft.live_buffers(), 1);
    ggml_backend_buffer_free(parts[0]);
    EXPECT_EQ(buft.live_buffers(), 0);
}

TEST(AllocBadInput, TallocrOutOfSpaceFailsAndLeavesTheTensorUnplaced) {
    BufferPtr    buffer(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 128));
    ggml_tallocr talloc = ggml_tallocr_new(buffer.get());
    ContextPtr   ctx    = meta_context(4);
    ggml_tensor * fits  = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ggml_tensor * over  = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 32);
    ggml_set_name(over, "over");
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, fits), GGML_STATUS_SUCCESS);
    LogCapture log;
    EXPECT_NE(ggml_tallocr_alloc(&talloc, over), GGML_STATUS_SUCCESS);
    EXPECT_TRUE(log.has_error({"ggml_tallocr_alloc", "over"})) << logged(log);
    EXPECT_EQ(over->data, nullptr);
    EXPECT_EQ(over->buffer, nullptr);
    log.clear();
    EXPECT_NE(ggml_tallocr_alloc(nullptr, over), GGML_STATUS_SUCCESS);
    EXPECT_TRUE(log.has_error("ggml_tallocr_alloc")) << logged(log);
}

// ---- graph allocator ----

// out = (a + b) * a, all F32 [64]
struct SmallGraph {
    ContextPtr    ctx = meta_context();
    ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 64);
    ggml_tensor * b   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 64);
    ggml_tensor * out = nullptr;
    ggml_cgraph * graph = nullptr;

    SmallGraph() {
        ggml_set_input(a);
        ggml_set_input(b);
        out = ggml_mul(ctx.get(), ggml_add(ctx.get(), a, b), a);
        ggml_set_output(out);
        graph = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(graph, out);
    }

    // fills the inputs, computes on the CPU and checks out
    void compute_and_check() const {
        BackendPtr               cpu(ggml_backend_cpu_init());
        const std::vector<float> va = iota_f32(64, 1.0f), vb = iota_f32(64, 10.0f);
        ggml_backend_tensor_set(a, va.data(), 0, 256);
        ggml_backend_tensor_set(b, vb.data(), 0, 256);
        ASSERT_EQ(ggml_backend_graph_compute(cpu.get(), graph), GGML_STATUS_SUCCESS);
        std::vector<float> r(64);
        ggml_backend_tensor_get(out, r.data(), 0, 256);
        for (size_t i = 0; i < 64; ++i) {
            EXPECT_EQ(r[i], (va[i] + vb[i]) * va[i]) << i;
        }
    }
};

TEST(GallocrBadInput, ReserveWhoseBufferFailsReturnsFalseAndCanBeRetried) {
    FailingBuft buft;
    SmallGraph  g;
    GallocrPtr  galloc(ggml_gallocr_new(buft.get()));
    ASSERT_NE(galloc, nullptr);
    buft.fail_all(true);
    LogCapture log;
    EXPECT_FALSE(ggml_gallocr_reserve(galloc.get(), g.graph));
    EXPECT_TRUE(log.has_error("ggml_gallocr_reserve")) << logged(log);
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc.get(), 0), 0u);
    buft.fail_all(false);
    ASSERT_TRUE(ggml_gallocr_reserve(galloc.get(), g.graph));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc.get(), g.graph));
    g.compute_and_check();
}

TEST(GallocrBadInput, AllocGraphWhoseBufferFailsReturnsFalseAndCanBeRetried) {
    FailingBuft buft;
    SmallGraph  g;
    GallocrPtr  galloc(ggml_gallocr_new(buft.get()));
    buft.fail_all(true);
    LogCapture log;
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc.get(), g.graph));
    EXPECT_TRUE(log.has_error("ggml_gallocr")) << logged(log);
    buft.fail_all(false);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc.get(), g.graph));
    g.compute_and_check();
}

TEST(GallocrBadInput, ArgumentsAreChecked) {
    LogCapture log;
    EXPECT_EQ(ggml_gallocr_new_n(nullptr, 1), nullptr);
    EXPECT_TRUE(log.has_error("ggml_gallocr_new_n")) << logged(log);
    log.clear();
    ggml_backend_buffer_type_t bufts[2] = {ggml_backend_cpu_buffer_type(), nullptr};
    EXPECT_EQ(ggml_gallocr_new_n(bufts, 0), nullptr);
    EXPECT_EQ(ggml_gallocr_new_n(bufts, 2), nullptr);
    EXPECT_GE(log.errors(), 2u) << logged(log);
    log.clear();
    GallocrPtr galloc(ggml_gallocr_new(ggml_backend_cpu_buffer_type()));
    EXPECT_FALSE(ggml_gallocr_reserve(galloc.get(), nullptr));
    EXPECT_FALSE(ggml_gallocr_reserve(nullptr, nullptr));
    EXPECT_FALSE(ggml_gallocr_alloc_graph(galloc.get(), nullptr));
    EXPECT_GE(log.errors(), 3u) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc.get(), 5), 0u);
    EXPECT_TRUE(log.has_error("ggml_gallocr_get_buffer_size")) << logged(log);
    // buffer ids out of range in reserve_n
    SmallGraph g;
    std::vector<int> node_ids(static_cast<size_t>(ggml_graph_n_nodes(g.graph)), 3);
    log.clear();
    EXPECT_FALSE(ggml_gallocr_reserve_n(galloc.get(), g.graph, node_ids.data(), nullptr));
    EXPECT_TRUE(log.has_error("ggml_gallocr_reserve_n")) << logged(log);
    // and the allocator still works for a good graph
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc.get(), g.graph));
    g.compute_and_check();
}

} // namespace
} // namespace switchyard::bad_input
