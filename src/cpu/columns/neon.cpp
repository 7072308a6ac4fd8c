// The NEON level's column of the kernel registry (cpu/kernel_registry.h): aarch64's Advanced SIMD (aarch64 only;
// elsewhere the column is empty). So far the matrix-vector kernels (quants/matvec_neon.cpp: f32, f16, q4_0, q8_0
// and the K-quants); the families it leaves empty (the GEMM tiles among them) run the scalar column's kernels.
#include "cpu/kernel_registry.h"

#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu {

IsaColumn neon_column() {
#if defined(__aarch64__)
    return {.matvec = quants::matvec_neon};
#else
    return {};
#endif
}

} // namespace switchyard::cpu
