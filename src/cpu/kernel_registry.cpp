// The table of columns (kernel_registry.h).
#include "cpu/kernel_registry.h"

#include <iterator>

namespace switchyard::cpu {

namespace {

// Column i is level i's. No #if here: a level this architecture lacks has an empty column.
constexpr IsaColumn (*kColumns[])() = {scalar_column,     avx2_column,       avx512_column, avx512vnni_column,
                                       avx512bf16_column, amx_column,        neon_column};
static_assert(std::size(kColumns) == kIsaLevelCount, "one column per ISA level (base/cpuid.h: IsaLevel)");

} // namespace

const IsaColumn & isa_column(IsaLevel level) {
    static const auto columns = [] {
        std::array<IsaColumn, kIsaLevelCount> c{};
        for (size_t i = 0; i < kIsaLevelCount; ++i) {
            c[i] = kColumns[i]();
        }
        return c;
    }();
    return columns[static_cast<size_t>(level)];
}

} // namespace switchyard::cpu
