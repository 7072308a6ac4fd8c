// The CPU reg's NUMA entry points, as an application reaches them when the CPU backend is loaded as a module:
// ggml_backend_cpu_numa_init (ggml_numa_init) and ggml_backend_cpu_is_numa (ggml_is_numa), looked up through
// ggml_backend_reg_get_proc_address and called.
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

namespace {

using NumaInitFn = void (*)(enum ggml_numa_strategy);
using IsNumaFn   = bool (*)(void);

TEST(CpuReg, NumaProcsResolveToTheCpuFunctions) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_numa_init"),
              reinterpret_cast<void *>(&ggml_numa_init));
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_is_numa"),
              reinterpret_cast<void *>(&ggml_is_numa));
}

TEST(CpuReg, NumaProcsCanBeCalled) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    auto numa_init = reinterpret_cast<NumaInitFn>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_numa_init"));
    auto is_numa   = reinterpret_cast<IsNumaFn>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_is_numa"));
    ASSERT_NE(numa_init, nullptr);
    ASSERT_NE(is_numa, nullptr);

    // every strategy is accepted; placement is not implemented, so the CPU never reports more than one node
    for (ggml_numa_strategy s : {GGML_NUMA_STRATEGY_DISABLED, GGML_NUMA_STRATEGY_DISTRIBUTE, GGML_NUMA_STRATEGY_ISOLATE,
                                 GGML_NUMA_STRATEGY_NUMACTL, GGML_NUMA_STRATEGY_MIRROR}) {
        numa_init(s);
        EXPECT_EQ(is_numa(), ggml_is_numa()) << s;
        EXPECT_FALSE(is_numa()) << s;
    }
}

} // namespace
