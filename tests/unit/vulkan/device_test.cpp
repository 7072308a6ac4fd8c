// The Vulkan device: the visibility rule, enumeration through the registry and the C API, properties, and the
// buffers (device-local with staging, pinned host, imported host memory) with their set/get/memset/copy paths.
#include "vk_fixture.h"

#include "vulkan/instance.h"

#include "ggml-backend-impl.h"

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

namespace switchyard::testing {
namespace {

using vulkan::select_devices;

TEST(VulkanVisibility, CpuDevicesAreHiddenByDefault) {
    EXPECT_TRUE(select_devices({VK_PHYSICAL_DEVICE_TYPE_CPU}, nullptr).empty());
    EXPECT_EQ(select_devices({VK_PHYSICAL_DEVICE_TYPE_CPU, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
                              VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_PHYSICAL_DEVICE_TYPE_OTHER},
                             nullptr),
              (std::vector<uint32_t>{1, 2}));
}

TEST(VulkanVisibility, TheListNamesDevicesInItsOrder) {
    const std::vector<VkPhysicalDeviceType> types = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU};
    EXPECT_EQ(select_devices(types, "1"), (std::vector<uint32_t>{1}));
    EXPECT_EQ(select_devices(types, "1,0"), (std::vector<uint32_t>{1, 0}));
    EXPECT_TRUE(select_devices(types, "").empty()); // set but empty: no device
}

TEST(VulkanVisibility, BadEntriesAreIgnored) {
    const std::vector<VkPhysicalDeviceType> types = {VK_PHYSICAL_DEVICE_TYPE_CPU, VK_PHYSICAL_DEVICE_TYPE_CPU};
    EXPECT_EQ(select_devices(types, "0,7,x,-1,1,1,"), (std::vector<uint32_t>{0, 1}));
}

TEST(VulkanRegistry, RegIsRegisteredWithItsDevices) {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan");
    ASSERT_NE(reg, nullptr);
    EXPECT_EQ(reg, ggml_backend_vk_reg());
    EXPECT_EQ(ggml_backend_reg_dev_count(reg), static_cast<size_t>(ggml_backend_vk_get_device_count()));
    EXPECT_EQ(ggml_backend_vk_init(GGML_VK_MAX_DEVICES), nullptr);
    EXPECT_EQ(ggml_backend_vk_buffer_type(GGML_VK_MAX_DEVICES), nullptr);
    char desc[8] = "x";
    ggml_backend_vk_get_device_description(-1, desc, sizeof desc);
    EXPECT_STREQ(desc, "");
    size_t free = 1, total = 1;
    ggml_backend_vk_get_device_memory(GGML_VK_MAX_DEVICES, &free, &total);
    EXPECT_EQ(free + total, 0u);
}

TEST_F(VulkanTest, DeviceProperties) {
    EXPECT_STREQ(ggml_backend_dev_name(dev_), "Vulkan0");
    EXPECT_EQ(ggml_backend_dev_by_name("Vulkan0"), dev_);
    ggml_backend_dev_props props{};
    ggml_backend_dev_get_props(dev_, &props);
    EXPECT_TRUE(props.caps.async);
    EXPECT_TRUE(props.caps.events);
    EXPECT_TRUE(props.caps.host_buffer);
    EXPECT_GT(props.memory_total, 0u);
    char desc[256];
    ggml_backend_vk_get_device_description(0, desc, sizeof desc);
    EXPECT_STREQ(desc, props.description);
    EXPECT_TRUE(ggml_backend_is_vk(backend_));
    EXPECT_FALSE(ggml_backend_buft_is_host(ggml_backend_vk_buffer_type(0)));
    EXPECT_TRUE(ggml_backend_buft_is_host(ggml_backend_vk_host_buffer_type()));
    EXPECT_EQ(ggml_backend_get_default_buffer_type(backend_), ggml_backend_vk_buffer_type(0));
}

TEST_F(VulkanTest, SetGetAtOffsets) {
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_I8, 1001);
    allocate();
    std::vector<uint8_t> in(1001), out(1001, 0);
    std::iota(in.begin(), in.end(), uint8_t(3));
    ggml_backend_tensor_set(t, in.data(), 0, in.size());
    ggml_backend_tensor_get(t, out.data(), 0, out.size());
    EXPECT_EQ(in, out);
    const uint8_t part[5] = {9, 8, 7, 6, 5};
    ggml_backend_tensor_set(t, part, 13, 5); // unaligned offset and size
    uint8_t back[7] = {};
    ggml_backend_tensor_get(t, back, 12, 7);
    EXPECT_EQ(back[0], in[12]);
    EXPECT_EQ(std::memcmp(back + 1, part, 5), 0);
    EXPECT_EQ(back[6], in[18]);
}

TEST_F(VulkanTest, MemsetAndClear) {
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_I8, 64);
    allocate();
    ggml_backend_buffer_clear(buffer_, 0x11);
    ggml_backend_tensor_memset(t, 0x7f, 3, 10); // unaligned
    ggml_backend_tensor_memset(t, 0x22, 16, 16); // aligned
    std::vector<uint8_t> out(64);
    ggml_backend_tensor_get(t, out.data(), 0, out.size());
    for (size_t i = 0; i < out.size(); ++i) {
        const uint8_t want = i >= 3 && i < 13 ? 0x7f : i >= 16 && i < 32 ? 0x22 : 0x11;
        ASSERT_EQ(out[i], want) << "byte " << i;
    }
}

TEST_F(VulkanTest, LargeTransfersGoThroughStagingInChunks) {
    const int64_t n = (int64_t(20) << 20) / 4; // 20 MiB, more than one staging chunk
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n);
    allocate();
    std::vector<float> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) in[static_cast<size_t>(i)] = static_cast<float>(i);
    ggml_backend_tensor_set(t, in.data(), 0, ggml_nbytes(t));
    ggml_backend_tensor_get(t, out.data(), 0, ggml_nbytes(t));
    EXPECT_EQ(in, out);
}

TEST_F(VulkanTest, CopyBetweenBuffersAndFromHost) {
    ggml_tensor * a = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 100);
    ggml_tensor * b = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 100);
    allocate();
    std::vector<float> in(100), out(100);
    std::iota(in.begin(), in.end(), 1.0f);
    ggml_backend_tensor_set(a, in.data(), 0, 400);
    ggml_backend_tensor_copy(a, b); // device to device
    ggml_backend_tensor_get(b, out.data(), 0, 400);
    EXPECT_EQ(in, out);

    // from a tensor in host memory (the CPU buffer type)
    ggml_init_params      params{ggml_tensor_overhead(), nullptr, true};
    ggml_context *        host_ctx = ggml_init(params);
    ggml_tensor *         h        = ggml_new_tensor_1d(host_ctx, GGML_TYPE_F32, 100);
    ggml_backend_buffer_t host_buf = ggml_backend_alloc_ctx_tensors_from_buft(host_ctx, ggml_backend_cpu_buffer_type());
    ASSERT_NE(host_buf, nullptr);
    for (int i = 0; i < 100; ++i) static_cast<float *>(h->data)[i] = -static_cast<float>(i);
    ggml_backend_tensor_copy(h, a);
    ggml_backend_tensor_get(a, out.data(), 0, 400);
    EXPECT_EQ(std::memcmp(out.data(), h->data, 400), 0);
    ggml_backend_buffer_free(host_buf);
    ggml_free(host_ctx);
}

TEST_F(VulkanTest, PinnedHostBuffer) {
    ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(dev_);
    ASSERT_NE(host, nullptr);
    ggml_backend_buffer_t pinned = ggml_backend_buft_alloc_buffer(host, 4096);
    ASSERT_NE(pinned, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_host(pinned));
    auto * p = static_cast<float *>(ggml_backend_buffer_get_base(pinned));
    for (int i = 0; i < 256; ++i) p[i] = static_cast<float>(i) * 0.5f;
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 256);
    allocate();
    ggml_backend_tensor_set(t, p, 0, 1024); // direct copy from pinned memory
    ggml_backend_tensor_get(t, p + 256, 0, 1024);
    for (int i = 0; i < 256; ++i) ASSERT_EQ(p[256 + i], static_cast<float>(i) * 0.5f);
    ggml_backend_buffer_free(pinned);
}

TEST_F(VulkanTest, BufferFromHostPtr) {
    ggml_backend_dev_props props{};
    ggml_backend_dev_get_props(dev_, &props);
    if (!props.caps.buffer_from_host_ptr) {
        GTEST_SKIP() << "no VK_EXT_external_memory_host";
    }
    std::vector<float> host(4096 + 1024);
    float *            base = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(host.data()) + 4095) & ~uintptr_t(4095));
    for (int i = 0; i < 1024; ++i) base[i] = static_cast<float>(i);
    ggml_backend_buffer_t buf = ggml_backend_dev_buffer_from_host_ptr(dev_, base, 4096, 4096);
    ASSERT_NE(buf, nullptr);
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 1024);
    ASSERT_EQ(ggml_backend_tensor_alloc(buf, t, base), GGML_STATUS_SUCCESS);
    std::vector<float> out(1024);
    ggml_backend_tensor_get(t, out.data(), 0, 4096);
    EXPECT_EQ(std::memcmp(out.data(), base, 4096), 0);
    ggml_backend_buffer_free(buf);
}

TEST_F(VulkanTest, OutOfDeviceMemoryReturnsNull) {
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev_, &free, &total);
    ggml_backend_buffer_type_t buft = ggml_backend_vk_buffer_type(0);
    // larger than the device: refused with a message, no abort
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(buft, std::max(total, ggml_backend_buft_get_max_size(buft)) * 4 + 4096), nullptr);
}

} // namespace
} // namespace switchyard::testing
