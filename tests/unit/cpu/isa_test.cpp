// The CPU feature detector (base/cpuid.h) and the levels it grants (cpu/simd/isa.h): SWITCHYARD_CPU_ISA caps clear
// exactly the features above their level, the levels nest, no level above the cap is supported, and the
// ggml_cpu_has_* probes report the capped features. The kernel registry's choices: kernel_registry_test.cpp.
#include "base/cpuid.h"
#include "cpu/simd/isa.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iterator>

namespace {

using switchyard::CpuFeatures;
using switchyard::IsaLevel;
using switchyard::cpu::simd::Isa;
using switchyard::cpu::simd::isa_supported;

CpuFeatures everything() {
    CpuFeatures f;
    f.sse3 = f.ssse3 = f.avx = f.avx2 = f.fma = f.f16c = f.bmi2 = true;
    f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = f.avx512_vbmi = true;
    f.avx512_vnni = f.avx512_bf16 = f.avx_vnni = f.amx_int8 = true;
    f.amx_tile = f.amx_bf16 = true;
    f.neon = f.dotprod = true; // never with the x86 flags on a real CPU; the caps clear by level all the same
    return f;
}

TEST(CpuFeatures, CapsClearWhatIsAboveTheirLevel) {
    const CpuFeatures scalar = switchyard::cap_features(everything(), IsaLevel::kScalar);
    EXPECT_FALSE(scalar.sse3 || scalar.avx2 || scalar.f16c || scalar.avx512f || scalar.avx512_bf16);

    const CpuFeatures avx2 = switchyard::cap_features(everything(), IsaLevel::kAvx2);
    EXPECT_TRUE(avx2.avx2 && avx2.fma && avx2.f16c && avx2.avx_vnni);
    EXPECT_FALSE(avx2.avx512f || avx2.avx512bw || avx2.avx512_vnni || avx2.avx512_vbmi || avx2.avx512_bf16);

    const CpuFeatures avx512 = switchyard::cap_features(everything(), IsaLevel::kAvx512);
    EXPECT_TRUE(avx512.avx512f && avx512.avx512bw && avx512.avx512vl && avx512.avx512dq);
    EXPECT_FALSE(avx512.avx512_vnni || avx512.avx512_vbmi || avx512.avx512_bf16 || avx512.amx_int8);

    const CpuFeatures vnni = switchyard::cap_features(everything(), IsaLevel::kAvx512Vnni);
    EXPECT_TRUE(vnni.avx512_vnni && vnni.avx512_vbmi);
    EXPECT_FALSE(vnni.avx512_bf16 || vnni.amx_int8);

    const CpuFeatures bf16 = switchyard::cap_features(everything(), IsaLevel::kAvx512Bf16);
    EXPECT_TRUE(bf16.avx512_bf16 && bf16.avx512_vnni);
    EXPECT_FALSE(bf16.amx_tile || bf16.amx_bf16 || bf16.amx_int8);

    const CpuFeatures amx = switchyard::cap_features(everything(), IsaLevel::kAmx);
    EXPECT_TRUE(amx.avx512_bf16 && amx.amx_tile && amx.amx_bf16 && amx.amx_int8);
    EXPECT_FALSE(amx.neon || amx.dotprod);

    const CpuFeatures all = switchyard::cap_features(everything(), IsaLevel::kNeon);
    EXPECT_TRUE(all.amx_int8 && all.neon && all.dotprod);
    EXPECT_FALSE(scalar.neon || avx2.neon);
}

TEST(CpuFeatures, LevelNamesAreTheCapSpellings) {
    static constexpr struct {
        const char * name;
        IsaLevel     level;
    } kSpellings[] = {{"scalar", IsaLevel::kScalar},         {"avx2", IsaLevel::kAvx2},
                      {"avx512", IsaLevel::kAvx512},         {"avx512vnni", IsaLevel::kAvx512Vnni},
                      {"avx512bf16", IsaLevel::kAvx512Bf16}, {"amx", IsaLevel::kAmx},
                      {"neon", IsaLevel::kNeon}};
    static_assert(std::size(kSpellings) == switchyard::kIsaLevelCount, "a spelling per level");
    IsaLevel level = IsaLevel::kAmx;
    for (const auto & s : kSpellings) {
        EXPECT_STREQ(switchyard::isa_level_name(s.level), s.name);
        ASSERT_TRUE(switchyard::parse_isa_level(s.name, &level)) << s.name;
        EXPECT_EQ(level, s.level) << s.name;
    }
    EXPECT_FALSE(switchyard::parse_isa_level("sse9", &level));
    EXPECT_FALSE(switchyard::parse_isa_level("", &level));
    EXPECT_FALSE(switchyard::parse_isa_level("kCount", &level));
}

TEST(CpuFeatures, CappedNeverExceedsDetected) {
    const CpuFeatures detected = switchyard::detect_cpu_features();
    const CpuFeatures used     = switchyard::cpu_features();
    EXPECT_LE(used.avx2, detected.avx2);
    EXPECT_LE(used.avx512f, detected.avx512f);
    EXPECT_LE(used.avx512_vnni, detected.avx512_vnni);
    EXPECT_LE(used.avx512_bf16, detected.avx512_bf16);
    EXPECT_LE(used.amx_tile, detected.amx_tile);
    EXPECT_LE(used.amx_bf16, detected.amx_bf16);
    // the probes report what the kernels may use
    EXPECT_EQ(ggml_cpu_has_avx2(), used.avx2 ? 1 : 0);
    EXPECT_EQ(ggml_cpu_has_avx512(), used.avx512f ? 1 : 0);
    EXPECT_EQ(ggml_cpu_has_avx512_vnni(), used.avx512_vnni ? 1 : 0);
    EXPECT_EQ(ggml_cpu_has_avx512_bf16(), used.avx512_bf16 ? 1 : 0);
    EXPECT_EQ(ggml_cpu_has_amx_int8(), used.amx_int8 ? 1 : 0);
}

TEST(IsaSelector, LevelsNestAndRespectTheCap) {
    EXPECT_TRUE(isa_supported(Isa::kScalar));
    for (int i = 1; i < static_cast<int>(Isa::kCount); ++i) {
        // each level includes the one below it of its architecture (NEON's is scalar)
        const int below = static_cast<Isa>(i) == Isa::kNeon ? 0 : i - 1;
        if (isa_supported(static_cast<Isa>(i))) {
            EXPECT_TRUE(isa_supported(static_cast<Isa>(below))) << "level " << i << " without level " << below;
        }
    }
    EXPECT_TRUE(isa_supported(switchyard::cpu::simd::best_isa()));
    const char * cap = std::getenv("SWITCHYARD_CPU_ISA");
    IsaLevel     c   = IsaLevel::kNeon;
    if (cap != nullptr && switchyard::parse_isa_level(cap, &c)) {
        EXPECT_LE(static_cast<int>(switchyard::cpu::simd::best_isa()), static_cast<int>(c)) << cap;
    }
}

// Off x86-64 no x86 level is supported: aarch64 runs its NEON level (where the CPU reports Advanced SIMD and no
// cap is below it), any other architecture the scalar one.
TEST(IsaSelector, OtherArchitecturesRunTheirOwnLevels) {
#if defined(__x86_64__)
    GTEST_SKIP() << "x86-64 has levels above scalar (the other IsaSelector tests cover them)";
#else
#if defined(__aarch64__)
    const Isa own = switchyard::cpu_features().neon ? Isa::kNeon : Isa::kScalar;
#else
    const Isa own = Isa::kScalar;
#endif
    EXPECT_EQ(switchyard::cpu::simd::best_isa(), own);
    for (int i = 1; i < static_cast<int>(Isa::kCount); ++i) {
        EXPECT_EQ(isa_supported(static_cast<Isa>(i)), static_cast<Isa>(i) == own)
            << switchyard::isa_level_name(static_cast<Isa>(i));
    }
#endif
}

} // namespace
