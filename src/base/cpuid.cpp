#include "base/cpuid.h"

#include <cstdlib>
#include <cstring>

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace switchyard {

namespace {

#if defined(__x86_64__) || defined(__i386__)

// XCR0 bits the OS must save for a register file to be usable.
constexpr unsigned kXcrAvx    = 0x6u;  // XMM, YMM
constexpr unsigned kXcrAvx512 = 0xe6u; // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM
constexpr unsigned kXcrAmx    = 0x60000u; // XTILECFG, XTILEDATA

unsigned read_xcr0() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}

bool bit(unsigned reg, int i) { return (reg >> i) & 1u; }

CpuFeatures detect_x86() {
    CpuFeatures    f;
    const unsigned max_leaf = __get_cpuid_max(0, nullptr);
    if (max_leaf < 1) {
        return f;
    }
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid(1, eax, ebx, ecx, edx);
    const unsigned xcr0      = bit(ecx, 27) ? read_xcr0() : 0u; // OSXSAVE
    const bool     avx_os    = (xcr0 & kXcrAvx) == kXcrAvx;
    const bool     avx512_os = (xcr0 & kXcrAvx512) == kXcrAvx512;
    const bool     amx_os    = (xcr0 & kXcrAmx) == kXcrAmx;
    f.sse3                   = bit(ecx, 0);
    f.ssse3                  = bit(ecx, 9);
    f.fma                    = avx_os && bit(ecx, 12);
    f.avx                    = avx_os && bit(ecx, 28);
    f.f16c                   = f.avx && bit(ecx, 29);
    if (max_leaf < 7) {
        return f;
    }
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    f.avx2        = avx_os && bit(ebx, 5);
    f.bmi2        = bit(ebx, 8);
    f.avx512f     = avx512_os && bit(ebx, 16);
    f.avx512dq    = f.avx512f && bit(ebx, 17);
    f.avx512bw    = f.avx512f && bit(ebx, 30);
    f.avx512vl    = f.avx512f && bit(ebx, 31);
    f.avx512_vbmi = f.avx512f && bit(ecx, 1);
    f.avx512_vnni = f.avx512f && bit(ecx, 11);
    f.amx_tile    = amx_os && bit(edx, 24);
    f.amx_bf16    = f.amx_tile && bit(edx, 22);
    f.amx_int8    = f.amx_tile && bit(edx, 25);
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    f.avx_vnni    = avx_os && bit(eax, 4);
    f.avx512_bf16 = f.avx512f && bit(eax, 5);
    return f;
}

#endif

// Linux hands a process the AMX tile data state only on request (once per process, for all its threads); other
// systems are not asked, and AMX stays off there.
bool os_grants_amx() {
#if defined(__linux__) && defined(__x86_64__)
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
}

CpuFeatures detect_capped() {
    CpuFeatures  f   = detect_cpu_features();
    IsaLevel     cap = static_cast<IsaLevel>(kIsaLevelCount - 1); // no cap
    const char * env = std::getenv("SWITCHYARD_CPU_ISA");
    if (env && parse_isa_level(env, &cap)) {
        f = cap_features(f, cap);
    }
    if (f.amx_tile && !os_grants_amx()) {
        f.amx_tile = f.amx_bf16 = f.amx_int8 = false;
    }
    return f;
}

} // namespace

CpuFeatures cap_features(CpuFeatures f, IsaLevel cap) {
    if (cap < IsaLevel::kNeon) {
        f.neon = f.dotprod = false;
    }
    if (cap < IsaLevel::kAmx) {
        f.amx_tile = f.amx_bf16 = f.amx_int8 = false;
    }
    if (cap < IsaLevel::kAvx512Bf16) {
        f.avx512_bf16 = false;
    }
    if (cap < IsaLevel::kAvx512Vnni) {
        f.avx512_vnni = f.avx512_vbmi = false;
    }
    if (cap < IsaLevel::kAvx512) {
        f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = false;
    }
    if (cap < IsaLevel::kAvx2) {
        f = CpuFeatures{};
    }
    return f;
}

const char * isa_level_name(IsaLevel level) {
    switch (level) {
        case IsaLevel::kScalar:     return "scalar";
        case IsaLevel::kAvx2:       return "avx2";
        case IsaLevel::kAvx512:     return "avx512";
        case IsaLevel::kAvx512Vnni: return "avx512vnni";
        case IsaLevel::kAvx512Bf16: return "avx512bf16";
        case IsaLevel::kAmx:        return "amx";
        case IsaLevel::kNeon:       return "neon";
        default:                    return "?";
    }
}

bool parse_isa_level(const char * text, IsaLevel * level) {
    for (size_t i = 0; i < kIsaLevelCount; ++i) {
        if (std::strcmp(text, isa_level_name(static_cast<IsaLevel>(i))) == 0) {
            *level = static_cast<IsaLevel>(i);
            return true;
        }
    }
    return false;
}

CpuFeatures detect_cpu_features() {
#if defined(__x86_64__) || defined(__i386__)
    return detect_x86();
#elif defined(__aarch64__) && defined(__linux__)
    CpuFeatures     f;
    const unsigned long hwcap = getauxval(AT_HWCAP);
    f.neon    = (hwcap & HWCAP_ASIMD) != 0;
    f.dotprod = (hwcap & HWCAP_ASIMDDP) != 0;
    return f;
#else
    return CpuFeatures{};
#endif
}

const CpuFeatures & cpu_features() {
    static const CpuFeatures f = detect_capped();
    return f;
}

const BaseIsa & base_isa() {
    static const BaseIsa isa = [] {
        const CpuFeatures & f = cpu_features();
        return BaseIsa{f.f16c, f.avx512_bf16 && f.avx512bw && f.avx512vl};
    }();
    return isa;
}

} // namespace switchyard
