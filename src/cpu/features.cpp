#include "cpu/features.h"

#include <cpuid.h>
#include <cstdlib>
#include <cstring>

namespace switchyard::cpu {

namespace {

bool os_saves_avx512_state() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!(ecx & (1u << 27))) { // OSXSAVE
        return false;
    }
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6u) == 0xe6u; // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM
}

bool os_saves_avx_state() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!(ecx & (1u << 27))) {
        return false;
    }
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0x6u) == 0x6u;
}

Features detect() {
    Features f;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const unsigned max_leaf = __get_cpuid_max(0, nullptr);
    if (max_leaf < 1) {
        return f;
    }
    __cpuid(1, eax, ebx, ecx, edx);
    const bool avx_os = os_saves_avx_state();
    f.sse3  = ecx & (1u << 0);
    f.ssse3 = ecx & (1u << 9);
    f.fma   = avx_os && (ecx & (1u << 12));
    f.avx   = avx_os && (ecx & (1u << 28));
    f.f16c  = avx_os && (ecx & (1u << 29));
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        const bool avx512_os = os_saves_avx512_state();
        f.avx2        = avx_os && (ebx & (1u << 5));
        f.bmi2        = ebx & (1u << 8);
        f.avx512f     = avx512_os && (ebx & (1u << 16));
        f.avx512dq    = avx512_os && (ebx & (1u << 17));
        f.avx512bw    = avx512_os && (ebx & (1u << 30));
        f.avx512vl    = avx512_os && (ebx & (1u << 31));
        f.avx512_vbmi = avx512_os && (ecx & (1u << 1));
        f.avx512_vnni = avx512_os && (ecx & (1u << 11));
        f.amx_int8    = edx & (1u << 25);
        __cpuid_count(7, 1, eax, ebx, ecx, edx);
        f.avx_vnni    = avx_os && (eax & (1u << 4));
        f.avx512_bf16 = avx512_os && (eax & (1u << 5));
    }
    if (const char * cap = std::getenv("SWITCHYARD_CPU_ISA")) {
        if (std::strcmp(cap, "scalar") == 0) {
            f = Features{};
        } else if (std::strcmp(cap, "avx2") == 0) {
            f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = f.avx512_vbmi = false;
            f.avx512_vnni = f.avx512_bf16 = f.amx_int8 = false;
        }
    }
    return f;
}

} // namespace

const Features & features() {
    static const Features f = detect();
    return f;
}

} // namespace switchyard::cpu
