// The CPU kernels' ISA levels as this CPU supports them. Kernels come in levels (scalar everywhere; AVX2, AVX-512,
// AVX-512 VNNI, AVX-512 BF16 and AMX on x86-64, each level including the ones below it); isa_supported says which
// levels this CPU runs (after SWITCHYARD_CPU_ISA, see base/cpuid.h). Kernels are chosen by the kernel registry
// (cpu/kernel_registry.h), which holds one column of entries per level and takes, per family, the highest supported
// level that has one; isa_supported is its test, and kernel files do not call it themselves. Code for a level
// lives in translation units compiled with that level's flags (file names ending in _avx2, _avx512, _avx512vnni,
// _avx512bf16, _amx) and is only ever called through the registry.
//
// An aarch64 level (NEON, dotprod) slots in as further enumerators of IsaLevel with their own support test here.
#pragma once

#include "base/cpuid.h"

#include <cstddef>

namespace switchyard::cpu::simd {

// The levels are base's (base/cpuid.h: IsaLevel, also what SWITCHYARD_CPU_ISA caps to); Isa is their name here.
using Isa = IsaLevel;

constexpr size_t kIsaCount = kIsaLevelCount;

// true when this CPU (after the cap) can run code of level isa. kScalar always.
bool isa_supported(Isa isa);

// The highest supported level.
Isa best_isa();

} // namespace switchyard::cpu::simd
