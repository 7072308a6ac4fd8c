// The few CPU features the base library's own fast paths need (fp16/bf16 row conversion). The CPU backend has
// its own, fuller detection (src/cpu/features.h); base cannot use it because base must not depend on cpu.
#pragma once

namespace switchyard {

struct BaseIsa {
    bool f16c        = false; // vcvtph2ps / vcvtps2ph, with the OS saving AVX state
    bool avx512_bf16 = false; // vcvtneps2bf16 plus AVX-512 F/BW/VL, with the OS saving AVX-512 state
};

// Detected once, on first use (thread-safe). Honours SWITCHYARD_CPU_ISA like the CPU backend: "scalar" turns
// both off, "avx2" turns AVX-512 off, so the scalar paths can be exercised on any machine.
const BaseIsa & base_isa();

} // namespace switchyard
