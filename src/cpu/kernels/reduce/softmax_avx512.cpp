// The SOFT_MAX row steps instantiated for AVX512 (VecAvx512). Compiled with the flags of its name; called only through
// softmax_rows(), which takes it from the kernel registry (cpu/kernel_registry.h) where the CPU has the level.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/simd/vec_avx512.h"

#include "cpu/kernels/reduce/softmax_rows.h"

namespace switchyard::cpu::kernels {

const SoftmaxRows & softmax_rows_avx512() {
    static const SoftmaxRows k = make_softmax_rows<simd::VecAvx512>();
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
