#include "base/cpuid.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace switchyard {

namespace {

#if defined(__x86_64__) || defined(__i386__)

// XCR0 bits the OS must save for a register file to be usable.
constexpr unsigned kXcrAvx    = 0x6u;  // XMM, YMM
constexpr unsigned kXcrAvx512 = 0xe6u; // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM

unsigned read_xcr0() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}

BaseIsa detect() {
    BaseIsa isa;
    const unsigned max_leaf = __get_cpuid_max(0, nullptr);
    if (max_leaf < 1) {
        return isa;
    }
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid(1, eax, ebx, ecx, edx);
    const bool     osxsave = ecx & (1u << 27);
    const unsigned xcr0    = osxsave ? read_xcr0() : 0u;
    const bool     avx_os  = (xcr0 & kXcrAvx) == kXcrAvx;
    isa.f16c               = avx_os && (ecx & (1u << 28)) && (ecx & (1u << 29)); // AVX and F16C
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        const bool avx512_os = (xcr0 & kXcrAvx512) == kXcrAvx512;
        const bool f_bw_vl   = (ebx & (1u << 16)) && (ebx & (1u << 30)) && (ebx & (1u << 31));
        __cpuid_count(7, 1, eax, ebx, ecx, edx);
        isa.avx512_bf16 = avx512_os && f_bw_vl && (eax & (1u << 5));
    }
    return isa;
}

#else

BaseIsa detect() { return BaseIsa{}; }

#endif

BaseIsa detect_capped() {
    BaseIsa isa = detect();
    if (const char * cap = std::getenv("SWITCHYARD_CPU_ISA")) {
        if (std::strcmp(cap, "scalar") == 0) {
            isa = BaseIsa{};
        } else if (std::strcmp(cap, "avx2") == 0) {
            isa.avx512_bf16 = false;
        }
    }
    return isa;
}

} // namespace

const BaseIsa & base_isa() {
    static const BaseIsa isa = detect_capped();
    return isa;
}

} // namespace switchyard
