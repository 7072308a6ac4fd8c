// The registry with the compiled-in CPU backend: lookups by name (any case), index and type, backend
// creation (init_by_name/type/best), and the 2024 helpers of seed 000 over it ("name:params" strings reach the
// backend: the thread count is observed through a test kernel swapped into the CPU dispatch table).
#include "backend_test_util.h"
#include "unit/cpu/cpu_test_util.h"

#include <cstdint>
#include <string>
#include <strings.h>
#include <utility>

using namespace switchyard::testing;

namespace {

TEST(Registry, CpuBackendIsRegisteredUnderAnyCase) {
    ggml_backend_reg_t cpu = ggml_backend_reg_by_name("CPU");
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name("cpu"), cpu);
    EXPECT_EQ(ggml_backend_reg_by_name("Cpu"), cpu);
    EXPECT_EQ(strcasecmp(ggml_backend_reg_name(cpu), "cpu"), 0);
    EXPECT_EQ(ggml_backend_reg_by_name("CPUX"), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name("CP"), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name(nullptr), nullptr);

    bool listed = false;
    for (size_t i = 0; i < ggml_backend_reg_count(); ++i) {
        listed = listed || ggml_backend_reg_get(i) == cpu;
    }
    EXPECT_TRUE(listed);
    EXPECT_GE(ggml_backend_reg_dev_count(cpu), 1u);
}

TEST(Registry, CpuDeviceIsFoundByNameAndType) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("cpu");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("CPU"), dev);
    EXPECT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU), dev);
    EXPECT_EQ(ggml_backend_dev_type(dev), GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_EQ(ggml_backend_dev_backend_reg(dev), ggml_backend_reg_by_name("CPU"));
    EXPECT_EQ(ggml_backend_reg_dev_get(ggml_backend_reg_by_name("CPU"), 0), dev);

    bool listed = false;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        listed = listed || ggml_backend_dev_get(i) == dev;
    }
    EXPECT_TRUE(listed);

    LogCapture log;
    EXPECT_EQ(ggml_backend_dev_get(ggml_backend_dev_count()), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_dev_get] index"));
    EXPECT_EQ(ggml_backend_reg_get(ggml_backend_reg_count()), nullptr);
    EXPECT_EQ(ggml_backend_reg_dev_get(ggml_backend_reg_by_name("CPU"), 1000), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_reg_dev_get] device index 1000 out of range"));
}

TEST(Registry, InitBestIsTheCpuWithoutAGpu) {
    ASSERT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU), nullptr);
    ASSERT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU), nullptr);
    ggml_backend_t backend = ggml_backend_init_best();
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(ggml_backend_get_device(backend), ggml_backend_dev_by_name("CPU"));
    EXPECT_EQ(ggml_backend_dev_type(ggml_backend_get_device(backend)), GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_free(backend);
}

TEST(Registry, InitByNameAndByType) {
    ggml_backend_t by_name = ggml_backend_init_by_name("cpu", nullptr);
    ASSERT_NE(by_name, nullptr);
    EXPECT_EQ(ggml_backend_get_device(by_name), ggml_backend_dev_by_name("CPU"));
    ggml_backend_free(by_name);

    ggml_backend_t by_type = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    ASSERT_NE(by_type, nullptr);
    EXPECT_EQ(ggml_backend_get_device(by_type), ggml_backend_dev_by_name("CPU"));
    ggml_backend_free(by_type);

    LogCapture log;
    EXPECT_EQ(ggml_backend_init_by_name("no-such-device", nullptr), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_init_by_name] no device named 'no-such-device'"));
    EXPECT_EQ(ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_META, nullptr), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_init_by_type] no device of type"));
}

TEST(Registry, CpuDeviceUsesHostBuffers) {
    ggml_backend_t backend = ggml_backend_init_by_name("CPU", nullptr);
    ASSERT_NE(backend, nullptr);
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend);
    ASSERT_NE(buft, nullptr);
    EXPECT_TRUE(ggml_backend_buft_is_host(buft));
    EXPECT_TRUE(ggml_backend_supports_buft(backend, ggml_backend_cpu_buffer_type()));

    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(backend, 128);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 128u);
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(ggml_backend_get_alignment(backend), ggml_backend_buft_get_alignment(buft));
    ggml_backend_buffer_free(buf);
    ggml_backend_free(backend);
}

TEST(RegistryLegacy, Seed000HelpersWrapTheRegistry) {
    EXPECT_EQ(ggml_backend_reg_get_count(), ggml_backend_reg_count());
    const size_t i = ggml_backend_reg_find_by_name("cpu");
    ASSERT_NE(i, SIZE_MAX);
    EXPECT_EQ(ggml_backend_reg_get(i), ggml_backend_reg_by_name("CPU"));
    EXPECT_EQ(strcasecmp(ggml_backend_reg_get_name(i), "CPU"), 0);
    EXPECT_EQ(ggml_backend_reg_find_by_name("no-such-backend"), SIZE_MAX);

    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_name("CPU");
    EXPECT_EQ(ggml_backend_reg_get_default_buffer_type(i), ggml_backend_dev_buffer_type(cpu_dev));

    ggml_backend_buffer_t buf = ggml_backend_reg_alloc_buffer(i, 96);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 96u);
    EXPECT_EQ(ggml_backend_buffer_get_type(buf), ggml_backend_dev_buffer_type(cpu_dev));
    ggml_backend_buffer_free(buf);

    ggml_backend_t backend = ggml_backend_reg_init_backend(i, nullptr);
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(ggml_backend_get_device(backend), cpu_dev);
    ggml_backend_free(backend);
}

// The number of threads a CPU backend computes on, seen by a test kernel swapped in for ADD (it runs on all threads).
int cpu_threads_used(ggml_backend_t backend) {
    TestKernels   kernels;
    HostContext   ctx;
    ggml_tensor * a = new_f32(ctx.get(), 8, 8, "a");
    fill(a, ramp(64, 1.0f));
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, ggml_add(ctx.get(), a, a));
    if (ggml_backend_graph_compute(backend, graph) != GGML_STATUS_SUCCESS) {
        return -1;
    }
    return kernel_stats().max_nth.load();
}

TEST(RegistryLegacy, InitBackendFromStringSplitsNameAndParams) {
    const std::pair<const char *, int> cases[] = {
        {"CPU", GGML_DEFAULT_N_THREADS}, {"cpu", GGML_DEFAULT_N_THREADS}, {"CPU:", GGML_DEFAULT_N_THREADS},
        {"cpu:n_threads=2", 2},          {"CPU:n_threads=3", 3},
    };
    for (const auto & [text, threads] : cases) {
        ggml_backend_t backend = ggml_backend_reg_init_backend_from_str(text);
        ASSERT_NE(backend, nullptr) << text;
        EXPECT_EQ(ggml_backend_get_device(backend), ggml_backend_dev_by_name("CPU")) << text;
        EXPECT_EQ(cpu_threads_used(backend), threads) << text; // the params after ':' reached the backend
        ggml_backend_free(backend);
    }

    LogCapture log;
    EXPECT_EQ(ggml_backend_reg_init_backend_from_str("nope:threads=2"), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_reg_init_backend_from_str] backend nope not found"));
    EXPECT_EQ(ggml_backend_reg_init_backend_from_str(nullptr), nullptr);
}

TEST(RegistryLegacy, OutOfRangeIndicesAreLogged) {
    const size_t n = ggml_backend_reg_get_count();
    LogCapture   log;
    EXPECT_EQ(ggml_backend_reg_get_name(n), nullptr);
    EXPECT_EQ(ggml_backend_reg_init_backend(n, nullptr), nullptr);
    EXPECT_EQ(ggml_backend_reg_get_default_buffer_type(n), nullptr);
    EXPECT_EQ(ggml_backend_reg_alloc_buffer(n, 16), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_reg_get_name] backend index"));
    EXPECT_TRUE(log.contains("[ggml_backend_reg_init_backend] backend index"));
    EXPECT_TRUE(log.contains("[ggml_backend_reg_get_default_buffer_type] backend index"));
    EXPECT_EQ(log.errors(), 4u);
}

TEST(Registry, NullArgumentsAreHarmless) {
    LogCapture log;
    ggml_backend_register(nullptr);
    ggml_backend_device_register(nullptr);
    EXPECT_EQ(log.errors(), 2u);
    EXPECT_EQ(ggml_backend_dev_by_name(nullptr), nullptr);
    EXPECT_STREQ(ggml_backend_name(nullptr), "NULL");
    EXPECT_EQ(ggml_backend_get_device(nullptr), nullptr);
    EXPECT_EQ(ggml_backend_guid(nullptr), nullptr);
    ggml_backend_free(nullptr);
    ggml_backend_synchronize(nullptr);
    EXPECT_EQ(ggml_backend_graph_compute(nullptr, nullptr), GGML_STATUS_FAILED);
}

} // namespace
