#include "cpu/simd/isa.h"

#include "base/cpuid.h"

namespace switchyard::cpu::simd {

bool isa_supported(Isa isa) {
    const CpuFeatures & f = cpu_features();
    switch (isa) {
        case Isa::kScalar:     return true;
        case Isa::kAvx2:       return f.avx2 && f.fma && f.f16c;
        case Isa::kAvx512:     return isa_supported(Isa::kAvx2) && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq;
        case Isa::kAvx512Vnni: return isa_supported(Isa::kAvx512) && f.avx512_vnni && f.avx512_vbmi;
        case Isa::kAvx512Bf16: return isa_supported(Isa::kAvx512Vnni) && f.avx512_bf16;
        case Isa::kAmx:        return isa_supported(Isa::kAvx512Bf16) && f.amx_tile && f.amx_bf16 && f.amx_int8;
        case Isa::kNeon:       return f.neon;
        default:               return false;
    }
}

Isa best_isa() {
    static const Isa best = [] {
        Isa b = Isa::kScalar;
        for (int i = 1; i < static_cast<int>(Isa::kCount); ++i) {
            if (isa_supported(static_cast<Isa>(i))) {
                b = static_cast<Isa>(i);
            }
        }
        return b;
    }();
    return best;
}

} // namespace switchyard::cpu::simd
