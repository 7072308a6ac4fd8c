// Buffer types and buffers: the CPU buffer type, buffers over caller memory, zero-size buffers, the defaults
// of optional vtable members, multi-buffers, and allocation failures.
#include "backend_test_util.h"

#include "ggml-backend-impl.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace switchyard::testing;

namespace {

struct AlignedMemory {
    explicit AlignedMemory(size_t n) : size(n), data(static_cast<uint8_t *>(std::aligned_alloc(64, n))) {}
    ~AlignedMemory() { std::free(data); }
    size_t    size;
    uint8_t * data;
};

TEST(CpuBufferType, ReportsHostMemoryWithUpstreamDefaults) {
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    ASSERT_NE(buft, nullptr);
    EXPECT_STREQ(ggml_backend_buft_name(buft), "CPU");
    EXPECT_TRUE(ggml_backend_buft_is_host(buft));
    EXPECT_EQ(ggml_backend_buft_get_alignment(buft), 32u);
    EXPECT_EQ(ggml_backend_buft_get_max_size(buft), SIZE_MAX);
    EXPECT_EQ(ggml_backend_buft_get_device(buft), nullptr);

    MetaContext   ctx;
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 5, 3);
    EXPECT_EQ(ggml_backend_buft_get_alloc_size(buft, t), 5u * 3u * 4u);
}

TEST(CpuBuffer, AllocClearAndUsage) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 1000);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 1000u);
    EXPECT_STREQ(ggml_backend_buffer_name(buf), "CPU");
    EXPECT_EQ(ggml_backend_buffer_get_type(buf), ggml_backend_cpu_buffer_type());
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(ggml_backend_buffer_get_alignment(buf), 32u);

    auto * base = static_cast<uint8_t *>(ggml_backend_buffer_get_base(buf));
    ASSERT_NE(base, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(base) % 32, 0u);

    ggml_backend_buffer_clear(buf, 0xAB);
    for (size_t i = 0; i < 1000; ++i) {
        ASSERT_EQ(base[i], 0xAB) << "byte " << i;
    }

    EXPECT_EQ(ggml_backend_buffer_get_usage(buf), GGML_BACKEND_BUFFER_USAGE_ANY);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(ggml_backend_buffer_get_usage(buf), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_buffer_free(buf);
}

TEST(CpuBuffer, ZeroSizeBufferHasNullBaseAndClearsAsNoOp) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 0);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 0u);
    EXPECT_EQ(ggml_backend_buffer_get_base(buf), nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_type(buf), ggml_backend_cpu_buffer_type());
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    ggml_backend_buffer_clear(buf, 1);
    ggml_backend_buffer_reset(buf);

    // empty tensors fit in it, and copying them is a quiet no-op
    MetaContext   ctx;
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 0);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 0);
    LogCapture    log;
    EXPECT_EQ(ggml_backend_tensor_alloc(buf, a, nullptr), GGML_STATUS_SUCCESS);
    EXPECT_EQ(ggml_backend_tensor_alloc(buf, b, nullptr), GGML_STATUS_SUCCESS);
    ggml_backend_tensor_copy(a, b);
    EXPECT_EQ(log.errors(), 0u);
    ggml_backend_buffer_free(buf);
}

TEST(CpuBuffer, FromPtrUsesAndKeepsTheCallersMemory) {
    AlignedMemory mem(256);
    std::memset(mem.data, 0x11, mem.size);

    ggml_backend_buffer_t buf = ggml_backend_cpu_buffer_from_ptr(mem.data, mem.size);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_base(buf), mem.data);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 256u);
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_STREQ(ggml_backend_buffer_name(buf), "CPU_Mapped");

    MetaContext   ctx;
    ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ASSERT_TRUE(place(buf, t, 64));
    write_f32(t, {1.0f, 2.0f, 3.0f, 4.0f});
    float direct[4];
    std::memcpy(direct, mem.data + 64, sizeof(direct));
    EXPECT_EQ(direct[0], 1.0f);
    EXPECT_EQ(direct[3], 4.0f);

    ggml_backend_buffer_clear(buf, 0x22);
    EXPECT_EQ(mem.data[0], 0x22);
    EXPECT_EQ(mem.data[255], 0x22);

    // freeing the buffer must leave the memory alone: AlignedMemory frees it (a double free would abort)
    ggml_backend_buffer_free(buf);
    mem.data[0] = 0x33;
    EXPECT_EQ(mem.data[0], 0x33);
}

TEST(CpuBuffer, FromPtrRejectsMisalignedOrNullMemory) {
    AlignedMemory mem(128);
    LogCapture    log;
    EXPECT_EQ(ggml_backend_cpu_buffer_from_ptr(mem.data + 4, 64), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_buffer_from_ptr]"));
    EXPECT_TRUE(log.contains("not aligned"));
    log.clear();
    EXPECT_EQ(ggml_backend_cpu_buffer_from_ptr(nullptr, 64), nullptr);
    EXPECT_TRUE(log.contains("ptr is NULL"));
}

TEST(CpuBuffer, OversizedAllocationFailsWithALoggedError) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), SIZE_MAX), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_buft_alloc_buffer] cannot allocate"));
    log.clear();
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), SIZE_MAX / 4), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_cpu_buffer_type]"));
}

// A buffer type that fills only the required vtable members, and reports too small an allocation size.
struct MinimalType {
    static const char *          name(ggml_backend_buffer_type_t) { return "MINIMAL"; }
    static ggml_backend_buffer_t alloc(ggml_backend_buffer_type_t, size_t) { return nullptr; }
    static size_t                alignment(ggml_backend_buffer_type_t) { return 8; }
    static size_t                too_small(ggml_backend_buffer_type_t, const ggml_tensor *) { return 1; }
};

TEST(BufferType, OptionalMembersHaveTheirDocumentedDefaults) {
    ggml_backend_buffer_type buft = {};
    buft.iface.get_name           = MinimalType::name;
    buft.iface.alloc_buffer       = MinimalType::alloc;
    buft.iface.get_alignment      = MinimalType::alignment;

    MetaContext   ctx;
    ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 10);
    EXPECT_EQ(ggml_backend_buft_get_max_size(&buft), SIZE_MAX);
    EXPECT_FALSE(ggml_backend_buft_is_host(&buft));
    EXPECT_EQ(ggml_backend_buft_get_alloc_size(&buft, t), 40u);
    EXPECT_EQ(ggml_backend_buft_get_alignment(&buft), 8u);

    LogCapture log;
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(&buft, 16), nullptr);
    EXPECT_TRUE(log.contains("cannot allocate 16 bytes in buffer type MINIMAL"));

    // a backend that under-reports is corrected to ggml_nbytes
    buft.iface.get_alloc_size = MinimalType::too_small;
    EXPECT_EQ(ggml_backend_buft_get_alloc_size(&buft, t), 40u);
    EXPECT_TRUE(log.contains("[ggml_backend_buft_get_alloc_size]"));

    // size 0 never reaches the backend
    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(&buft, 0);
    ASSERT_NE(empty, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_base(empty), nullptr);
    ggml_backend_buffer_free(empty);
}

struct ResetCounter {
    static void reset(ggml_backend_buffer_t buffer) { ++*static_cast<int *>(buffer->context); }
};

TEST(Buffer, ResetAndInitTensorDispatchOrDefault) {
    int                   resets = 0;
    ggml_backend_buffer_i iface  = {};
    iface.reset                  = ResetCounter::reset;
    ggml_backend_buffer_t buf    = ggml_backend_buffer_init(ggml_backend_cpu_buffer_type(), iface, &resets, 0);
    ASSERT_NE(buf, nullptr);
    ggml_backend_buffer_reset(buf);
    ggml_backend_buffer_reset(buf);
    EXPECT_EQ(resets, 2);

    MetaContext   ctx;
    ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 1);
    EXPECT_EQ(ggml_backend_buffer_init_tensor(buf, t), GGML_STATUS_SUCCESS); // no init_tensor: nothing to do
    ggml_backend_buffer_free(buf); // no free_buffer: only the object goes
}

TEST(MultiBuffer, SpansItsPartsForSizeUsageAndClear) {
    ggml_backend_buffer_type_t buft     = ggml_backend_cpu_buffer_type();
    ggml_backend_buffer_t      parts[2] = {ggml_backend_buft_alloc_buffer(buft, 100),
                                           ggml_backend_buft_alloc_buffer(buft, 200)};
    ASSERT_NE(parts[0], nullptr);
    ASSERT_NE(parts[1], nullptr);

    ggml_backend_buffer_t multi = ggml_backend_multi_buffer_alloc_buffer(parts, 2);
    ASSERT_NE(multi, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(multi));
    EXPECT_FALSE(ggml_backend_buffer_is_multi_buffer(parts[0]));
    EXPECT_EQ(ggml_backend_buffer_get_size(multi), 300u);
    EXPECT_EQ(ggml_backend_buffer_get_type(multi), buft);
    EXPECT_EQ(ggml_backend_buffer_get_base(multi), nullptr);

    ggml_backend_buffer_set_usage(multi, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    EXPECT_EQ(ggml_backend_buffer_get_usage(multi), GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    EXPECT_EQ(ggml_backend_buffer_get_usage(parts[0]), GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    EXPECT_EQ(ggml_backend_buffer_get_usage(parts[1]), GGML_BACKEND_BUFFER_USAGE_COMPUTE);

    ggml_backend_buffer_clear(multi, 7);
    for (ggml_backend_buffer_t part : parts) {
        auto * bytes = static_cast<const uint8_t *>(ggml_backend_buffer_get_base(part));
        for (size_t i = 0; i < ggml_backend_buffer_get_size(part); ++i) {
            ASSERT_EQ(bytes[i], 7) << "byte " << i;
        }
    }
    ggml_backend_buffer_free(multi); // frees the parts too
}

TEST(MultiBuffer, InvalidRequestsAreLogged) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_multi_buffer_alloc_buffer(nullptr, 0), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_multi_buffer_alloc_buffer]"));

    ggml_backend_buffer_t plain = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
    log.clear();
    ggml_backend_multi_buffer_set_usage(plain, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_TRUE(log.contains("is not a multi-buffer"));
    EXPECT_EQ(ggml_backend_buffer_get_usage(plain), GGML_BACKEND_BUFFER_USAGE_ANY);
    ggml_backend_buffer_free(plain);
}

TEST(Buffer, NullHandlesAreHarmless) {
    EXPECT_STREQ(ggml_backend_buft_name(nullptr), "NULL");
    EXPECT_EQ(ggml_backend_buffer_get_size(nullptr), 0u);
    EXPECT_EQ(ggml_backend_buffer_get_base(nullptr), nullptr);
    ggml_backend_buffer_free(nullptr);
    ggml_backend_buffer_clear(nullptr, 0);
    LogCapture log;
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(nullptr, 16), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_buft_alloc_buffer] buffer type is NULL"));
}

} // namespace
