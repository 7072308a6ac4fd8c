// The element-wise row functions instantiated for AVX-512 (16 float lanes). Compiled with the AVX-512 flags;
// called only through row_kernels(), which takes it from the kernel registry (cpu/kernel_registry.h) where the
// CPU has the level.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/simd/vec_avx512.h"

#include "cpu/kernels/common.h"

namespace switchyard::cpu::kernels {

using simd::VecAvx512;

const RowKernels & row_kernels_avx512() {
    static const RowKernels k = make_row_kernels<VecAvx512>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
