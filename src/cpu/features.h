// CPU features detected at run time; kernels are chosen by these so one build runs on any x86-64.
#pragma once

namespace switchyard::cpu {

struct Features {
    bool sse3 = false, ssse3 = false, avx = false, avx2 = false, fma = false, f16c = false, bmi2 = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512_vbmi = false;
    bool avx512_vnni = false, avx512_bf16 = false, avx_vnni = false, amx_int8 = false;
};

// Detected once, on first use (thread-safe). Honours SWITCHYARD_CPU_ISA=scalar|avx2|avx512 to cap the ISA
// used, so every kernel path can be exercised on one machine.
const Features & features();

} // namespace switchyard::cpu
