// Bad input to the meta device: invalid device lists and callbacks, and static allocations in the meta buffer
// type that fail part-way (a simple device out of memory, a view of an unallocated tensor; fix 3): NULL, a
// message, and every tensor left as it was so the call can be retried.
#include "bad_input.h"

#include "ggml-backend-impl.h"

#include "test_device.h"

#include <cstring>

namespace switchyard::bad_input {
namespace {

ggml_backend_meta_split_state state(ggml_backend_meta_split_axis axis, int64_t share0 = 0, int64_t share1 = 0) {
    ggml_backend_meta_split_state s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = axis;
    s.n_segments = 1;
    s.nr[0]      = 1;
    s.ne[0]      = share0;
    s.ne[1]      = share1;
    return s;
}

// weights named "split*" are cut in two halves along ne[1]; everything else is mirrored
ggml_backend_meta_split_state split_rows(const ggml_tensor * t, void *) {
    if (std::strncmp(t->name, "split", 5) == 0) {
        return state(GGML_BACKEND_SPLIT_AXIS_1, t->ne[1] / 2, t->ne[1] - t->ne[1] / 2);
    }
    return state(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
}

ggml_backend_dev_t cpu_device() { return ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU); }

TEST(MetaBadInput, InvalidDeviceListsAndCallbacksGiveNull) {
    std::vector<ggml_backend_dev_t> devs(GGML_BACKEND_META_MAX_DEVICES + 1, cpu_device());
    LogCapture                      log;
    EXPECT_EQ(ggml_backend_meta_device(nullptr, 2, split_rows, nullptr), nullptr);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), 0, split_rows, nullptr), nullptr);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), devs.size(), split_rows, nullptr), nullptr);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), 2, nullptr, nullptr), nullptr);
    EXPECT_GE(log.errors(), 4u) << logged(log);
    EXPECT_TRUE(log.has_error("[ggml_backend_meta_device]")) << logged(log);
    log.clear();
    ggml_backend_dev_t with_null[2] = {cpu_device(), nullptr};
    EXPECT_EQ(ggml_backend_meta_device(with_null, 2, split_rows, nullptr), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_meta_device]", "NULL"})) << logged(log);
    log.clear();
    ggml_backend_dev_t meta      = ggml_backend_meta_device(devs.data(), 2, split_rows, nullptr);
    ASSERT_NE(meta, nullptr);
    ggml_backend_dev_t nested[2] = {cpu_device(), meta};
    EXPECT_EQ(ggml_backend_meta_device(nested, 2, split_rows, nullptr), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_meta_device]", "meta"})) << logged(log);
}

TEST(MetaBadInput, MetaBackendQueriesOnOtherBackendsAreRefused) {
    BackendPtr cpu(ggml_backend_cpu_init());
    LogCapture log;
    EXPECT_EQ(ggml_backend_meta_n_backends(cpu.get()), 0u);
    EXPECT_TRUE(log.has_error("ggml_backend_meta_n_backends")) << logged(log);
    EXPECT_EQ(ggml_backend_meta_simple_backend(nullptr, 0), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_meta_simple_backend")) << logged(log);
    log.clear();
    ggml_backend_dev_t devs[2] = {cpu_device(), cpu_device()};
    ggml_backend_dev_t meta    = ggml_backend_meta_device(devs, 2, split_rows, nullptr);
    BackendPtr         backend(ggml_backend_dev_init(meta, nullptr));
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(ggml_backend_meta_simple_backend(backend.get(), 2), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_backend_meta_simple_backend", "out of range"})) << logged(log);
}

// Two weights (one split, one mirrored) in a context, allocated in a meta buffer type.
struct MetaWeights {
    ContextPtr    ctx   = meta_context(8);
    ggml_tensor * split = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 8, 6);
    ggml_tensor * whole = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 8);

    MetaWeights() {
        ggml_set_name(split, "split_w");
        ggml_set_name(whole, "mirrored_w");
    }

    ::testing::AssertionResult untouched() const {
        for (const ggml_tensor * t : {split, whole}) {
            if (t->buffer != nullptr || t->data != nullptr || t->extra != nullptr) {
                return ::testing::AssertionFailure() << "tensor '" << t->name << "' kept state from a failed allocation";
            }
        }
        return ::testing::AssertionSuccess();
    }
};

TEST(MetaBadInput, AllocationFailingOnOneDeviceLeavesTensorsUntouched) {
    testing::TestDeviceConfig good;
    good.name = "METAOK";
    testing::TestDeviceConfig bad;
    bad.name               = "METAOOM";
    bad.fail_alloc         = true;
    ggml_backend_dev_t d0  = testing::test_device_create(good);
    ggml_backend_dev_t d1  = testing::test_device_create(bad);
    {
        ggml_backend_dev_t devs[2] = {d0, d1};
        ggml_backend_dev_t meta    = ggml_backend_meta_device(devs, 2, split_rows, nullptr);
        ASSERT_NE(meta, nullptr);
        MetaWeights w;
        LogCapture  log;
        EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), ggml_backend_dev_buffer_type(meta)), nullptr);
        EXPECT_GT(log.errors(), 0u) << logged(log);
        EXPECT_TRUE(log.has_error("ggml_backend_")) << logged(log);
        EXPECT_TRUE(w.untouched());
        EXPECT_EQ(testing::test_device_allocated(d0), 0u) << "the part allocated on the good device was not freed";
    }
    testing::test_device_release(d0);
    testing::test_device_release(d1);
}

TEST(MetaBadInput, ViewOfAnUnallocatedTensorFailsAndLeavesTensorsUntouched) {
    ggml_backend_dev_t devs[2] = {cpu_device(), cpu_device()};
    ggml_backend_dev_t meta    = ggml_backend_meta_device(devs, 2, split_rows, nullptr);
    ASSERT_NE(meta, nullptr);
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(meta);

    ContextPtr    other = meta_context(4);
    ggml_tensor * src   = ggml_new_tensor_1d(other.get(), GGML_TYPE_F32, 8);
    ggml_set_name(src, "mirrored_elsewhere");
    MetaWeights   w;
    ggml_tensor * view = ggml_view_1d(w.ctx.get(), src, 4, 0);
    ggml_set_name(view, "meta_view_of_elsewhere");
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_backend_alloc_ctx_tensors_from_buft", "meta_view_of_elsewhere"})) << logged(log);
    EXPECT_TRUE(w.untouched());
    EXPECT_EQ(view->buffer, nullptr);

    // once the source is allocated (in the same meta buffer type), the retry works
    BufferPtr src_buffer(ggml_backend_alloc_ctx_tensors_from_buft(other.get(), buft));
    ASSERT_NE(src_buffer, nullptr);
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors_from_buft(w.ctx.get(), buft));
    ASSERT_NE(buffer, nullptr);
    EXPECT_NE(w.split->data, nullptr);
    EXPECT_NE(w.whole->data, nullptr);
    EXPECT_EQ(view->buffer, src_buffer.get());
    // and the data round-trips through the slices
    const std::vector<float> v = iota_f32(48);
    ggml_backend_tensor_set(w.split, v.data(), 0, v.size() * sizeof(float));
    std::vector<float> back(48);
    ggml_backend_tensor_get(w.split, back.data(), 0, back.size() * sizeof(float));
    EXPECT_EQ(back, v);
}

TEST(MetaBadInput, HugeMetaBufferReturnsNull) {
    ggml_backend_dev_t devs[2] = {cpu_device(), cpu_device()};
    ggml_backend_dev_t meta    = ggml_backend_meta_device(devs, 2, split_rows, nullptr);
    ASSERT_NE(meta, nullptr);
    ContextPtr ctx = meta_context(4);
    // 2^61 floats per row, mirrored: each device would need 2^63 bytes
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, int64_t{1} << 40, int64_t{1} << 20);
    ASSERT_NE(t, nullptr);
    ggml_set_name(t, "mirrored_huge");
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_dev_buffer_type(meta)), nullptr);
    EXPECT_GT(log.errors(), 0u) << logged(log);
    EXPECT_EQ(t->data, nullptr);
    EXPECT_EQ(t->buffer, nullptr);
}

} // namespace
} // namespace switchyard::bad_input
