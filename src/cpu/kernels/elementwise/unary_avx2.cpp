// The element-wise row functions instantiated for AVX2 + FMA (8 float lanes). Compiled with -mavx2 -mfma; called
// only through row_kernels(), which takes it from the kernel registry (cpu/kernel_registry.h) where the CPU has
// the level.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/common.h"

namespace switchyard::cpu::kernels {

const RowKernels & row_kernels_avx2() {
    static const RowKernels k = make_row_kernels<VecAvx2>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
