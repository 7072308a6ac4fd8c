// The framework driving an out-of-tree backend (TINY, tests/support/tiny_backend.h, written only against
// ggml-backend-impl.h): registration at run time, buffers whose memory is not host memory, copies by every
// route, a computed graph, the asynchronous fallbacks, and a device without events or graph plans.
#include "backend_test_util.h"

#include "ggml-backend-impl.h"
#include "support/tiny_backend.h"

#include <cstring>
#include <vector>

using namespace switchyard::testing;

namespace {

class TinyBackend : public ::testing::Test {
protected:
    void SetUp() override {
        reg_ = tiny_backend_reg();
        ggml_backend_register(reg_);
        dev_     = ggml_backend_reg_dev_get(reg_, 0);
        backend_ = ggml_backend_init_by_name("tiny", nullptr);
        ASSERT_NE(backend_, nullptr);
        buffer_ = ggml_backend_alloc_buffer(backend_, 4096);
        ASSERT_NE(buffer_, nullptr);
        host_ = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 4096);
        ASSERT_NE(host_, nullptr);
    }

    void TearDown() override {
        ggml_backend_buffer_free(host_);
        ggml_backend_buffer_free(buffer_);
        ggml_backend_free(backend_);
        ggml_backend_unload(reg_);
    }

    // A new F32 tensor at the next free offset of buf (offsets are tracked per buffer).
    ggml_tensor * tensor(ggml_backend_buffer_t buf, int64_t ne0, int64_t ne1 = 1) {
        ggml_tensor * t    = ggml_new_tensor_2d(ctx_.get(), GGML_TYPE_F32, ne0, ne1);
        size_t &      next = buf == host_ ? next_host_ : next_device_;
        EXPECT_TRUE(place(buf, t, next));
        next += (ggml_nbytes(t) + 63) / 64 * 64;
        return t;
    }

    TinyStats stats() const { return tiny_backend_stats(dev_); }

    MetaContext           ctx_;
    ggml_backend_reg_t    reg_     = nullptr;
    ggml_backend_dev_t    dev_     = nullptr;
    ggml_backend_t        backend_ = nullptr;
    ggml_backend_buffer_t buffer_  = nullptr;
    ggml_backend_buffer_t host_    = nullptr;
    size_t                next_host_ = 0, next_device_ = 0;
};

TEST_F(TinyBackend, IsFoundInTheRegistryByNameAndType) {
    EXPECT_EQ(ggml_backend_reg_by_name("Tiny"), reg_);
    EXPECT_EQ(ggml_backend_dev_by_name("TINY"), dev_);
    EXPECT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU), dev_);
    EXPECT_EQ(ggml_backend_dev_backend_reg(dev_), reg_);
    EXPECT_EQ(ggml_backend_get_device(backend_), dev_);
    EXPECT_STREQ(ggml_backend_name(backend_), "TINY");
    EXPECT_STREQ(ggml_backend_dev_description(dev_), "tiny test backend TINY");

    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend_);
    EXPECT_EQ(buft, ggml_backend_dev_buffer_type(dev_));
    EXPECT_EQ(ggml_backend_buft_get_device(buft), dev_);
    EXPECT_FALSE(ggml_backend_buft_is_host(buft));
    EXPECT_EQ(ggml_backend_buft_get_max_size(buft), SIZE_MAX); // optional member left NULL
    EXPECT_TRUE(ggml_backend_supports_buft(backend_, buft));
    EXPECT_FALSE(ggml_backend_supports_buft(backend_, ggml_backend_cpu_buffer_type()));
    EXPECT_EQ(ggml_backend_dev_host_buffer_type(dev_), nullptr);
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg_, "ggml_backend_set_n_threads"), nullptr);
}

TEST_F(TinyBackend, RegistrationIsIdempotentAndUnloadRemovesIt) {
    const size_t n_regs = ggml_backend_reg_count();
    const size_t n_devs = ggml_backend_dev_count();
    ggml_backend_register(reg_);
    ggml_backend_device_register(dev_);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
    EXPECT_EQ(ggml_backend_dev_count(), n_devs);

    ggml_backend_unload(reg_);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs - 1);
    EXPECT_EQ(ggml_backend_dev_count(), n_devs - 1);
    EXPECT_EQ(ggml_backend_reg_by_name("TINY"), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("TINY"), nullptr);

    LogCapture log;
    ggml_backend_unload(reg_);
    EXPECT_TRUE(log.contains("[ggml_backend_unload] backend TINY is not registered"));
    ggml_backend_register(reg_); // for TearDown
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
}

TEST_F(TinyBackend, RejectsARegWithAnotherApiVersion) {
    TinyBackendConfig config;
    config.name        = "OLDTINY";
    config.api_version = 1;
    LogCapture log;
    ggml_backend_register(tiny_backend_new_reg(config));
    EXPECT_EQ(ggml_backend_reg_by_name("OLDTINY"), nullptr);
    EXPECT_TRUE(log.contains("API version 1"));
}

TEST_F(TinyBackend, DataIsReachableThroughTheBuffer) {
    ggml_tensor *   t      = tensor(buffer_, 5);
    const TinyStats before = stats();
    write_f32(t, {1, 2, 3, 4, 5});
    EXPECT_EQ(read_f32(t), (std::vector<float>{1, 2, 3, 4, 5}));
    ggml_backend_tensor_memset(t, 0, 4, 8);
    EXPECT_EQ(read_f32(t), (std::vector<float>{1, 0, 0, 4, 5}));
    EXPECT_EQ(stats().set_calls - before.set_calls, 1u);
    EXPECT_EQ(stats().get_calls - before.get_calls, 2u);

    LogCapture log;
    const float too_many[6] = {};
    ggml_backend_tensor_set(t, too_many, 0, sizeof(too_many));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] out of range"));
    EXPECT_EQ(stats().set_calls - before.set_calls, 1u); // never reached the backend
}

TEST_F(TinyBackend, CopiesTakeTheHostPathsAndTheDeviceCopy) {
    ggml_backend_buffer_t second = ggml_backend_alloc_buffer(backend_, 256);
    ASSERT_NE(second, nullptr);
    ggml_tensor * h1 = tensor(host_, 4);
    ggml_tensor * h2 = tensor(host_, 4);
    ggml_tensor * d1 = tensor(buffer_, 4);
    ggml_tensor * d2 = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 4);
    ASSERT_TRUE(place(second, d2, 0));
    write_f32(h1, {1.5f, -2.5f, 3.5f, -4.5f});

    const TinyStats s0 = stats();
    ggml_backend_tensor_copy(h1, d1); // host source: the device buffer writes from host memory
    EXPECT_EQ(stats().set_calls - s0.set_calls, 1u);
    ggml_backend_tensor_copy(d1, d2); // both on the device: its own cpy_tensor
    EXPECT_EQ(stats().device_copies - s0.device_copies, 1u);
    ggml_backend_tensor_copy(d2, h2); // host destination: the device buffer reads into host memory
    EXPECT_EQ(stats().get_calls - s0.get_calls, 1u);
    EXPECT_EQ(read_f32(h2), (std::vector<float>{1.5f, -2.5f, 3.5f, -4.5f}));
    ggml_backend_buffer_free(second);
}

TEST_F(TinyBackend, CopyBetweenDevicesThatCannotCopyBouncesThroughHostMemory) {
    TinyBackendConfig config;
    config.name                      = "TINY_NOCOPY";
    config.cpy_tensor                = false;
    ggml_backend_reg_t         other = tiny_backend_new_reg(config);
    ggml_backend_dev_t         odev  = ggml_backend_reg_dev_get(other, 0);
    ggml_backend_buffer_t      obuf  = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(odev), 256);
    ASSERT_NE(obuf, nullptr);

    ggml_tensor * src = tensor(buffer_, 3);
    ggml_tensor * dst = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 3);
    ASSERT_TRUE(place(obuf, dst, 0));
    write_f32(src, {7, 8, 9});

    const TinyStats s0 = stats();
    const TinyStats o0 = tiny_backend_stats(odev);
    ggml_backend_tensor_copy(src, dst);
    EXPECT_EQ(stats().get_calls - s0.get_calls, 1u);                          // read into the bounce buffer
    EXPECT_EQ(tiny_backend_stats(odev).set_calls - o0.set_calls, 1u);         // written from it
    EXPECT_EQ(tiny_backend_stats(odev).device_copies, o0.device_copies);      // the device copy refused
    EXPECT_EQ(read_f32(dst), (std::vector<float>{7, 8, 9}));
    ggml_backend_buffer_free(obuf);
}

TEST_F(TinyBackend, ComputesABroadcastAddGraph) {
    ggml_tensor * a = tensor(buffer_, 4, 3);
    ggml_tensor * b = tensor(buffer_, 4, 1);
    ggml_tensor * c = ggml_add(ctx_.get(), a, b);
    ASSERT_TRUE(place(buffer_, c, next_device_));
    ggml_cgraph * graph = ggml_new_graph(ctx_.get());
    ggml_build_forward_expand(graph, c);

    write_f32(a, {1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400});
    write_f32(b, {0.5f, 0.25f, -1, -2});
    EXPECT_TRUE(ggml_backend_supports_op(backend_, c));

    const TinyStats s0 = stats();
    ASSERT_EQ(ggml_backend_graph_compute(backend_, graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(stats().graphs_computed - s0.graphs_computed, 1u);
    EXPECT_EQ(stats().nodes_computed - s0.nodes_computed, 1u);
    EXPECT_EQ(read_f32(c), (std::vector<float>{1.5f, 2.25f, 2, 2, 10.5f, 20.25f, 29, 38, 100.5f, 200.25f, 299, 398}));
}

TEST_F(TinyBackend, UnsupportedOpsAreReportedAndFail) {
    ggml_tensor * a   = tensor(buffer_, 4);
    ggml_tensor * b   = tensor(buffer_, 4);
    ggml_tensor * mul = ggml_mul(ctx_.get(), a, b);
    ASSERT_TRUE(place(buffer_, mul, next_device_));
    EXPECT_FALSE(ggml_backend_supports_op(backend_, mul));
    EXPECT_FALSE(ggml_backend_offload_op(backend_, mul)); // optional member left NULL

    ggml_tensor * h16 = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F16, 4);
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev_, ggml_add(ctx_.get(), h16, h16)));

    ggml_cgraph * graph = ggml_new_graph(ctx_.get());
    ggml_build_forward_expand(graph, mul);
    EXPECT_EQ(ggml_backend_graph_compute(backend_, graph), GGML_STATUS_FAILED);
}

TEST_F(TinyBackend, AsynchronousFunctionsFallBackToBlockingCopies) {
    ggml_tensor * t = tensor(buffer_, 4, 2);
    ggml_tensor * u = tensor(buffer_, 4, 2);
    const float   rows[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ggml_backend_tensor_set_async(backend_, t, rows, 0, sizeof(rows));
    float back[8] = {};
    ggml_backend_tensor_get_async(backend_, t, back, 0, sizeof(back));
    ggml_backend_synchronize(backend_);
    EXPECT_EQ(std::memcmp(back, rows, sizeof(rows)), 0);

    const float firsts[2] = {-1, -5};
    ggml_backend_tensor_set_2d_async(backend_, t, firsts, 0, sizeof(float), 2, 4 * sizeof(float), sizeof(float));
    float lasts[2] = {};
    ggml_backend_tensor_get_2d_async(backend_, t, lasts, 3 * sizeof(float), sizeof(float), 2, 4 * sizeof(float),
                                     sizeof(float));
    ggml_backend_tensor_copy_async(backend_, backend_, t, u);
    ggml_backend_synchronize(backend_);
    EXPECT_EQ(lasts[0], 4.0f);
    EXPECT_EQ(lasts[1], 8.0f);
    EXPECT_EQ(read_f32(u), (std::vector<float>{-1, 2, 3, 4, -5, 6, 7, 8}));

    LogCapture log;
    ggml_backend_tensor_set_async(backend_, t, rows, 4, sizeof(rows));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set_async] out of range"));
    ggml_backend_tensor_copy_async(nullptr, backend_, t, u);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_copy_async] source backend is NULL"));
}

TEST_F(TinyBackend, DeviceWithoutEventsOrPlansDegradesWithoutCrashing) {
    EXPECT_EQ(ggml_backend_event_new(dev_), nullptr);
    EXPECT_EQ(ggml_backend_event_new(nullptr), nullptr);
    ggml_backend_event_free(nullptr);

    LogCapture log;
    ggml_backend_event_record(nullptr, backend_);
    ggml_backend_event_wait(backend_, nullptr);
    ggml_backend_event_synchronize(nullptr);
    EXPECT_EQ(log.errors(), 3u);

    // an event the device did not make (it has no event functions at all)
    ggml_backend_event foreign = {dev_, nullptr};
    ggml_backend_event_record(&foreign, backend_);
    EXPECT_TRUE(log.contains("[ggml_backend_event_record] backend TINY does not support events"));
    ggml_backend_event_wait(backend_, &foreign);
    ggml_backend_event_synchronize(&foreign);
    ggml_backend_event_free(&foreign);
    EXPECT_EQ(log.errors(), 7u);

    ggml_cgraph * graph = ggml_new_graph(ctx_.get());
    EXPECT_EQ(ggml_backend_graph_plan_create(backend_, graph), nullptr);
    EXPECT_TRUE(log.contains("does not support graph plans"));
    EXPECT_EQ(ggml_backend_graph_plan_compute(backend_, nullptr), GGML_STATUS_FAILED);
}

TEST_F(TinyBackend, AllocationBeyondDeviceMemoryFails) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_alloc_buffer(backend_, size_t(1) << 29), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_buft_alloc_buffer] cannot allocate 536870912 bytes in buffer type TINY"));
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev_, &free, &total);
    EXPECT_EQ(total, size_t(1) << 28);
    EXPECT_LE(free, total - 4096); // the fixture's buffer is still allocated
}

TEST_F(TinyBackend, PropsAreZeroFilledBeforeTheDeviceFillsThem) {
    ggml_backend_dev_props props;
    std::memset(&props, 0xFF, sizeof(props));
    ggml_backend_dev_get_props(dev_, &props);
    EXPECT_STREQ(props.name, "TINY");
    EXPECT_EQ(props.type, GGML_BACKEND_DEVICE_TYPE_GPU);
    EXPECT_EQ(props.memory_total, size_t(1) << 28);
    EXPECT_EQ(props.device_id, nullptr);
    EXPECT_FALSE(props.caps.async);
    EXPECT_FALSE(props.caps.host_buffer);
    EXPECT_FALSE(props.caps.buffer_from_host_ptr);
    EXPECT_FALSE(props.caps.events);
    EXPECT_FALSE(props.caps.mmap_support);

    LogCapture log;
    EXPECT_EQ(ggml_backend_dev_buffer_from_host_ptr(dev_, nullptr, 0, 0), nullptr);
    EXPECT_TRUE(log.contains("cannot use host memory as a buffer"));
}

TEST_F(TinyBackend, InitBestPrefersTheGpuAndParamsReachTheDevice) {
    ggml_backend_t best = ggml_backend_init_best();
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(ggml_backend_get_device(best), dev_);
    ggml_backend_free(best);

    LogCapture log;
    EXPECT_EQ(ggml_backend_init_by_name("TINY", "fail"), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_dev_init] device TINY could not create a backend (params: fail)"));
    ggml_backend_t legacy = ggml_backend_reg_init_backend_from_str("tiny:fail");
    EXPECT_EQ(legacy, nullptr);
    legacy = ggml_backend_reg_init_backend_from_str("tiny:whatever");
    ASSERT_NE(legacy, nullptr);
    EXPECT_EQ(ggml_backend_get_device(legacy), dev_);
    ggml_backend_free(legacy);
}

} // namespace
