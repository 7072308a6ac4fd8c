// The one CPU feature detector of the library: what the processor and the operating system let the fast paths
// use, detected once at run time (so one build runs on any x86-64), then capped by SWITCHYARD_CPU_ISA so that
// every fallback can be exercised on a machine that has more.
//
// The CPU backend (src/cpu/simd/isa.h: isa_supported) turns these features into the levels below, by which its
// kernel registry chooses kernels; base's own fast paths (fp16/bf16 row conversion) read base_isa(). Other
// architectures other than x86-64 and aarch64 detect nothing: every flag stays false and the scalar code runs.
#pragma once

#include <cstddef>

namespace switchyard {

struct CpuFeatures {
    // x86: the vector registers are usable only when the OS saves their state (XCR0), which every AVX flag includes
    bool sse3 = false, ssse3 = false, avx = false, avx2 = false, fma = false, f16c = false, bmi2 = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512_vbmi = false;
    bool avx512_vnni = false, avx512_bf16 = false, avx_vnni = false, amx_int8 = false;
    // AMX: the tile registers (with their XCR0 state) and the bf16 tile product; cpu_features() keeps them only
    // where the OS also grants the process the tile data state (Linux: arch_prctl ARCH_REQ_XCOMP_PERM)
    bool amx_tile = false, amx_bf16 = false;
    // aarch64: Advanced SIMD (NEON) and its int8 dot product (sdot), as the kernel reports them (HWCAP)
    bool neon = false, dotprod = false;
};

// The ISA levels, lowest first; each includes the ones below it. They are what SWITCHYARD_CPU_ISA caps to, and the
// CPU backend's kernel levels (src/cpu/kernel_registry.h: one column of kernels per level). The features of each:
//   scalar      nothing (the portable code everywhere)
//   avx2        up to AVX2, FMA, F16C, BMI2, AVX-VNNI (Haswell and later)
//   avx512      plus AVX-512 F/BW/VL/DQ (Skylake-X)
//   avx512vnni  plus AVX-512 VNNI and VBMI (Ice Lake)
//   avx512bf16  plus AVX-512 BF16 (Cooper Lake, Zen 4)
//   amx         plus AMX tiles, AMX-BF16 and AMX-INT8 (Sapphire Rapids)
//   neon        aarch64's Advanced SIMD (every ARMv8-A core): everything, as no cap
// The aarch64 level sits above the x86 ones: a CPU has the levels of one architecture only, so the order between
// them never matters, and capping below neon leaves an aarch64 CPU the scalar code.
enum class IsaLevel : int { kScalar, kAvx2, kAvx512, kAvx512Vnni, kAvx512Bf16, kAmx, kNeon, kCount };

constexpr size_t kIsaLevelCount = static_cast<size_t>(IsaLevel::kCount);

// The level's SWITCHYARD_CPU_ISA spelling ("scalar", "avx2", "avx512", "avx512vnni", "avx512bf16", "amx",
// "neon"); "?" for anything else.
const char * isa_level_name(IsaLevel level);

// `features` with everything above `cap` cleared. Pure; the tests use it to check the levels.
CpuFeatures cap_features(CpuFeatures features, IsaLevel cap);

// Parses a SWITCHYARD_CPU_ISA value (a level's name); false for anything else (the variable is then ignored).
bool parse_isa_level(const char * text, IsaLevel * level);

// The features of this machine as detected, without the cap (AMX as the CPU and XCR0 report it, before the OS's
// per-process permission, which only cpu_features() asks for).
CpuFeatures detect_cpu_features();

// The features the fast paths may use: detected once, on first use (thread-safe), then capped by
// SWITCHYARD_CPU_ISA when it names one of the caps above.
const CpuFeatures & cpu_features();

// The two features base's own fast paths need (fp16/bf16 row conversion), from cpu_features().
struct BaseIsa {
    bool f16c        = false; // vcvtph2ps / vcvtps2ph
    bool avx512_bf16 = false; // vcvtneps2bf16 with AVX-512 F/BW/VL
};

const BaseIsa & base_isa();

} // namespace switchyard
