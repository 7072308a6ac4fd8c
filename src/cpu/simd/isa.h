// The CPU kernels' one ISA selector. Kernels come in levels (scalar everywhere; AVX2, AVX-512, AVX-512 VNNI and
// AVX-512 BF16 and AMX on x86-64, each level including the ones below it); the tables of kernels hold one entry per level
// and the selector picks, per table, the highest level this CPU supports (after SWITCHYARD_CPU_ISA, see
// base/cpuid.h) that has an entry. Code for a level lives in translation units compiled with that level's flags
// (file names ending in _avx2, _avx512, _avx512vnni, _avx512bf16, _amx) and is only ever called through a table.
//
// An aarch64 level (NEON, dotprod) slots in as further enumerators with their own support test.
#pragma once

#include "base/cpuid.h"

#include <array>
#include <cstddef>

namespace switchyard::cpu::simd {

// The levels are base's (base/cpuid.h: IsaLevel, also what SWITCHYARD_CPU_ISA caps to); Isa is their name here.
using Isa = IsaLevel;

constexpr size_t kIsaCount = kIsaLevelCount;

// true when this CPU (after the cap) can run code of level isa. kScalar always.
bool isa_supported(Isa isa);

// The highest supported level.
Isa best_isa();

// Per-level table: entry i belongs to Isa i. pick() returns the entry of the highest supported level at or
// below `limit` whose entry is usable (`usable(entry)`), or the scalar entry.
template <class T>
using PerIsa = std::array<T, kIsaCount>;

template <class T, class Usable>
const T & pick(const PerIsa<T> & table, Usable usable, Isa limit = Isa::kCount) {
    for (int i = static_cast<int>(limit == Isa::kCount ? best_isa() : limit); i > 0; --i) {
        const auto isa = static_cast<Isa>(i);
        if (isa_supported(isa) && usable(table[static_cast<size_t>(i)])) {
            return table[static_cast<size_t>(i)];
        }
    }
    return table[0];
}

} // namespace switchyard::cpu::simd
