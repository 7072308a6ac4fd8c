// The CPU device and reg: properties (name, CPU model from /proc/cpuinfo, memory from sysconf, capabilities),
// backend creation with parameter strings, buffer types, supports_op/supports_buft (sources in device memory
// refused), buffers over caller memory, and the reg's proc addresses and feature list.
#include "cpu_test_util.h"

#include "base/cpuid.h"

#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

namespace {

using namespace switchyard::testing;

ggml_backend_dev_t cpu_dev() { return ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0); }

TEST(CpuDevice, NameTypeAndRegistryLinks) {
    ggml_backend_dev_t dev = cpu_dev();
    ASSERT_NE(dev, nullptr);
    EXPECT_STREQ(ggml_backend_dev_name(dev), "CPU");
    EXPECT_EQ(ggml_backend_dev_type(dev), GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_EQ(ggml_backend_dev_backend_reg(dev), ggml_backend_cpu_reg());
    EXPECT_EQ(ggml_backend_dev_by_name("CPU"), dev);
}

// the first "model name" value of /proc/cpuinfo, or "" without one
std::string cpuinfo_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string   line;
    while (std::getline(in, line)) {
        if (line.compare(0, 10, "model name") == 0) {
            std::string value = line.substr(line.find(':') + 1);
            value.erase(0, value.find_first_not_of(" \t"));
            value.erase(value.find_last_not_of(" \t") + 1);
            return value;
        }
    }
    return "";
}

TEST(CpuDevice, DescriptionIsTheCpuModel) {
    const std::string model = cpuinfo_model();
    const char *      desc  = ggml_backend_dev_description(cpu_dev());
    ASSERT_NE(desc, nullptr);
    if (model.empty()) {
        EXPECT_STREQ(desc, "CPU");
    } else {
        EXPECT_EQ(desc, model);
    }
}

TEST(CpuDevice, MemoryIsSystemMemory) {
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(cpu_dev(), &free, &total);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(total, static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page);
    EXPECT_GT(free, 0u);
    EXPECT_LE(free, total);
}

TEST(CpuDevice, PropsAndCapabilities) {
    ggml_backend_dev_props props;
    ggml_backend_dev_get_props(cpu_dev(), &props);
    EXPECT_STREQ(props.name, "CPU");
    EXPECT_STREQ(props.description, ggml_backend_dev_description(cpu_dev()));
    EXPECT_EQ(props.type, GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_EQ(props.device_id, nullptr);
    EXPECT_GT(props.memory_total, 0u);
    EXPECT_FALSE(props.caps.async);
    EXPECT_FALSE(props.caps.host_buffer);
    EXPECT_TRUE(props.caps.buffer_from_host_ptr);
    EXPECT_FALSE(props.caps.events);
    EXPECT_TRUE(props.caps.mmap_support);
    EXPECT_EQ(ggml_backend_event_new(cpu_dev()), nullptr); // no events, no crash
}

TEST(CpuDevice, BufferTypesAndHostPointers) {
    ggml_backend_dev_t dev = cpu_dev();
    EXPECT_EQ(ggml_backend_dev_buffer_type(dev), ggml_backend_cpu_buffer_type());
    EXPECT_EQ(ggml_backend_dev_host_buffer_type(dev), nullptr);
    EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_buffer_type()));

    alignas(64) static float memory[64];
    ggml_backend_buffer_t buf = ggml_backend_dev_buffer_from_host_ptr(dev, memory, sizeof(memory), sizeof(memory));
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_base(buf), static_cast<void *>(memory));
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), sizeof(memory));
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    ggml_backend_buffer_free(buf); // the memory stays ours
}

TEST(CpuDevice, InitBackendWithParams) {
    TestKernels kernels;
    for (const auto & [params, threads] : std::map<std::string, int>{{"", 4}, {"n_threads=3", 3}, {"n_threads=1", 1}}) {
        ggml_backend_t backend = ggml_backend_dev_init(cpu_dev(), params.c_str());
        ASSERT_NE(backend, nullptr) << params;
        EXPECT_TRUE(ggml_backend_is_cpu(backend));
        HostContext   ctx;
        ggml_tensor * a = new_f32(ctx.get(), 8, 8, "a");
        fill(a, ramp(64, 1.0f));
        ggml_tensor * s = ggml_add(ctx.get(), a, a);
        ggml_cgraph * g = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(g, s);
        kernel_stats().reset();
        ASSERT_EQ(ggml_backend_graph_compute(backend, g), GGML_STATUS_SUCCESS);
        EXPECT_EQ(kernel_stats().max_nth.load(), threads) << params;
        EXPECT_EQ(ggml_get_f32_1d(s, 5), 2 * 5.5f);
        ggml_backend_free(backend);
    }
    ggml_backend_t null_params = ggml_backend_dev_init(cpu_dev(), nullptr);
    ASSERT_NE(null_params, nullptr);
    ggml_backend_free(null_params);
}

TEST(CpuDevice, BadOrUnknownParamsAreWarnedAbout) {
    CpuLogCapture  log;
    ggml_backend_t backend = ggml_backend_dev_init(cpu_dev(), "n_threads=zero, colour=blue");
    ASSERT_NE(backend, nullptr);
    EXPECT_TRUE(log.contains("ignoring n_threads=zero")) << log.text();
    EXPECT_TRUE(log.contains("ignoring unknown parameter 'colour=blue'")) << log.text();
    ggml_backend_free(backend);
}

// A buffer type whose memory is not host memory, for supports_op/supports_buft.
const char * dev_buft_name(ggml_backend_buffer_type_t) { return "FAKE_DEVICE"; }
size_t       dev_buft_alignment(ggml_backend_buffer_type_t) { return 64; }
void *       dev_buf_base(ggml_backend_buffer_t) { return reinterpret_cast<void *>(uintptr_t{0x1000}); }
void         dev_buf_set(ggml_backend_buffer_t, ggml_tensor *, const void *, size_t, size_t) {}
void         dev_buf_get(ggml_backend_buffer_t, const ggml_tensor *, void *, size_t, size_t) {}
void         dev_buf_clear(ggml_backend_buffer_t, uint8_t) {}

TEST(CpuDevice, SupportsOpRefusesSourcesInDeviceMemory) {
    TestKernels kernels;
    static ggml_backend_buffer_type fake_buft = {
        {dev_buft_name, nullptr, dev_buft_alignment, nullptr, nullptr, nullptr}, nullptr, nullptr};
    ggml_backend_buffer_i iface{};
    iface.get_base             = dev_buf_base;
    iface.set_tensor           = dev_buf_set;
    iface.get_tensor           = dev_buf_get;
    iface.clear                = dev_buf_clear;
    ggml_backend_buffer_t fake = ggml_backend_buffer_init(&fake_buft, iface, nullptr, 1024);
    ASSERT_NE(fake, nullptr);

    ggml_backend_dev_t dev = cpu_dev();
    EXPECT_FALSE(ggml_backend_dev_supports_buft(dev, &fake_buft));

    HostContext   ctx;
    ggml_tensor * a    = new_f32(ctx.get(), 4, 4, "a");
    ggml_tensor * b    = new_f32(ctx.get(), 4, 4, "b");
    ggml_tensor * sum  = ggml_add(ctx.get(), a, b);
    ggml_tensor * view = ggml_transpose(ctx.get(), b);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, sum));
    b->buffer = fake;
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, sum));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, view)); // views touch no memory
    b->buffer = nullptr;

    // types the kernel does not take
    ggml_tensor * i32 = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_I32, 4, 4);
    ggml_tensor * bad = ggml_add(ctx.get(), i32, i32);
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, bad));
    ggml_backend_buffer_free(fake);
}

TEST(CpuReg, NameDevicesAndApiVersion) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    ASSERT_NE(reg, nullptr);
    EXPECT_EQ(reg, ggml_backend_cpu_reg());
    EXPECT_EQ(reg->api_version, GGML_BACKEND_API_VERSION);
    EXPECT_STREQ(ggml_backend_reg_name(reg), "CPU");
    EXPECT_EQ(ggml_backend_reg_dev_count(reg), 1u);
    EXPECT_EQ(ggml_backend_reg_by_name("CPU"), reg);
}

TEST(CpuReg, ProcAddressesResolveToTheCpuFunctions) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    const std::map<std::string, void *> expected = {
        {"ggml_backend_set_n_threads", reinterpret_cast<void *>(&ggml_backend_cpu_set_n_threads)},
        {"ggml_backend_set_abort_callback", reinterpret_cast<void *>(&ggml_backend_cpu_set_abort_callback)},
        {"ggml_backend_cpu_set_use_ref", reinterpret_cast<void *>(&ggml_backend_cpu_set_use_ref)},
        {"ggml_threadpool_new", reinterpret_cast<void *>(&ggml_threadpool_new)},
        {"ggml_threadpool_free", reinterpret_cast<void *>(&ggml_threadpool_free)},
        {"ggml_backend_cpu_set_threadpool", reinterpret_cast<void *>(&ggml_backend_cpu_set_threadpool)},
    };
    for (const auto & [name, address] : expected) {
        EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, name.c_str()), address) << name;
    }
    EXPECT_NE(ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features"), nullptr);
    EXPECT_NE(ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"), nullptr);
    for (const char * comm : {"ggml_backend_comm_init", "ggml_backend_comm_free", "ggml_backend_comm_allreduce_tensor"}) {
        EXPECT_NE(ggml_backend_reg_get_proc_address(reg, comm), nullptr) << comm;
    }
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_no_such_function"), nullptr);
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, nullptr), nullptr);
}

// The list is NULL-terminated and holds at most CPU_REPACK (where the CPU has a repacked tile; the products are
// tested in tests/unit/cpu_kernels/repack_test.cpp), a non-host type of the CPU device that the device accepts.
TEST(CpuReg, ExtraBufferTypesListHoldsAtMostTheRepackType) {
    auto get = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
        ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_dev_get_extra_bufts"));
    ASSERT_NE(get, nullptr);
    ggml_backend_buffer_type_t * list = get(cpu_dev());
    ASSERT_NE(list, nullptr);
    if (list[0] != nullptr) {
        EXPECT_STREQ(ggml_backend_buft_name(list[0]), "CPU_REPACK");
        EXPECT_EQ(ggml_backend_buft_get_device(list[0]), cpu_dev());
        EXPECT_FALSE(ggml_backend_buft_is_host(list[0]));
        EXPECT_TRUE(ggml_backend_dev_supports_buft(cpu_dev(), list[0]));
        EXPECT_EQ(list[1], nullptr);
    }
}

TEST(CpuReg, FeatureListMatchesTheProbes) {
    auto get = reinterpret_cast<ggml_backend_get_features_t>(
        ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_get_features"));
    ASSERT_NE(get, nullptr);
    std::map<std::string, std::string> listed;
    for (ggml_backend_feature * f = get(ggml_backend_cpu_reg()); f->name != nullptr; ++f) {
        ASSERT_NE(f->value, nullptr);
        listed[f->name] = f->value;
    }
    const std::map<std::string, int> probes = {
        {"SSE3", ggml_cpu_has_sse3()},       {"SSSE3", ggml_cpu_has_ssse3()},
        {"AVX", ggml_cpu_has_avx()},         {"AVX_VNNI", ggml_cpu_has_avx_vnni()},
        {"AVX2", ggml_cpu_has_avx2()},       {"F16C", ggml_cpu_has_f16c()},
        {"FMA", ggml_cpu_has_fma()},         {"BMI2", ggml_cpu_has_bmi2()},
        {"AVX512", ggml_cpu_has_avx512()},   {"AVX512_VBMI", ggml_cpu_has_avx512_vbmi()},
        {"AVX512_VNNI", ggml_cpu_has_avx512_vnni()}, {"AVX512_BF16", ggml_cpu_has_avx512_bf16()},
        {"AMX_INT8", ggml_cpu_has_amx_int8()}, {"NEON", ggml_cpu_has_neon()},
        {"DOTPROD", ggml_cpu_has_dotprod()},
    };
    size_t present = 0;
    for (const auto & [name, has] : probes) {
        EXPECT_EQ(listed.count(name), static_cast<size_t>(has != 0)) << name;
        if (has) {
            EXPECT_EQ(listed[name], "1") << name;
            ++present;
        }
    }
    EXPECT_EQ(listed.size(), present); // nothing listed that no probe reports
}

TEST(CpuProbes, FeaturesOfOtherArchitecturesAreAbsent) {
#if defined(__aarch64__)
    EXPECT_EQ(ggml_cpu_has_neon(), switchyard::cpu_features().neon ? 1 : 0);
    EXPECT_EQ(ggml_cpu_has_avx2(), 0);
#else
    EXPECT_EQ(ggml_cpu_has_neon(), 0);
#endif
    EXPECT_EQ(ggml_cpu_has_sve(), 0);
    EXPECT_EQ(ggml_cpu_get_sve_cnt(), 0);
    EXPECT_EQ(ggml_cpu_has_riscv_v(), 0);
    EXPECT_EQ(ggml_cpu_get_rvv_vlen(), 0);
    EXPECT_EQ(ggml_cpu_has_wasm_simd(), 0);
    EXPECT_EQ(ggml_cpu_has_llamafile(), 0);
#if defined(__x86_64__)
    const char * cap = std::getenv("SWITCHYARD_CPU_ISA");
    if (cap == nullptr || std::strcmp(cap, "scalar") != 0) {
        EXPECT_EQ(ggml_cpu_has_sse3(), 1); // every x86-64 CPU since 2005
    }
#endif
}

TEST(CpuProbes, InitAndNumaAreHarmless) {
    ggml_cpu_init();
    ggml_cpu_init();
    ggml_numa_init(GGML_NUMA_STRATEGY_DISTRIBUTE);
    EXPECT_FALSE(ggml_is_numa());
}

} // namespace
