// CPU feature probes (ggml_cpu_has_*), one-time initialisation and the NUMA entry points.
//
// The x86 probes report what the kernels may use on this machine: detected at run time, after the
// SWITCHYARD_CPU_ISA cap (base/cpuid.h). Other architectures' features are never present in this build.
// NUMA placement is not implemented: ggml_numa_init accepts any strategy and changes nothing.
#include "cpu/kernel.h"

#include "ggml-cpu.h"

#include "base/cpuid.h"
#include "base/log.h"

using switchyard::cpu_features;

extern "C" {

void ggml_cpu_init(void) {
    // both are function-local statics: initialised once, thread-safe
    (void) cpu_features();
    (void) switchyard::cpu::kernel_for(GGML_OP_NONE);
}

void ggml_numa_init(enum ggml_numa_strategy numa) {
    if (numa != GGML_NUMA_STRATEGY_DISABLED) {
        switchyard::log_debug("[ggml_numa_init] NUMA strategies are not implemented; threads are not placed\n");
    }
}

bool ggml_is_numa(void) { return false; }

int ggml_cpu_has_sse3(void) { return cpu_features().sse3; }
int ggml_cpu_has_ssse3(void) { return cpu_features().ssse3; }
int ggml_cpu_has_avx(void) { return cpu_features().avx; }
int ggml_cpu_has_avx_vnni(void) { return cpu_features().avx_vnni; }
int ggml_cpu_has_avx2(void) { return cpu_features().avx2; }
int ggml_cpu_has_bmi2(void) { return cpu_features().bmi2; }
int ggml_cpu_has_f16c(void) { return cpu_features().f16c; }
int ggml_cpu_has_fma(void) { return cpu_features().fma; }
int ggml_cpu_has_avx512(void) { return cpu_features().avx512f; }
int ggml_cpu_has_avx512_vbmi(void) { return cpu_features().avx512_vbmi; }
int ggml_cpu_has_avx512_vnni(void) { return cpu_features().avx512_vnni; }
int ggml_cpu_has_avx512_bf16(void) { return cpu_features().avx512_bf16; }
int ggml_cpu_has_amx_int8(void) { return cpu_features().amx_int8; }

int ggml_cpu_has_neon(void) { return cpu_features().neon; }
int ggml_cpu_has_arm_fma(void) {
#if defined(__ARM_FEATURE_FMA)
    return 1; // as upstream's: the build's, aarch64's baseline
#else
    return 0;
#endif
}
int ggml_cpu_has_fp16_va(void) { return 0; }
int ggml_cpu_has_dotprod(void) { return cpu_features().dotprod; }
int ggml_cpu_has_matmul_int8(void) { return 0; }
int ggml_cpu_has_sve(void) { return 0; }
int ggml_cpu_get_sve_cnt(void) { return 0; }
int ggml_cpu_has_sme(void) { return 0; }
int ggml_cpu_has_sme2(void) { return 0; }

int ggml_cpu_has_riscv_v(void) { return 0; }
int ggml_cpu_get_rvv_vlen(void) { return 0; }
int ggml_cpu_has_vsx(void) { return 0; }
int ggml_cpu_has_vxe(void) { return 0; }
int ggml_cpu_has_wasm_simd(void) { return 0; }
int ggml_cpu_has_llamafile(void) { return 0; }

} // extern "C"
