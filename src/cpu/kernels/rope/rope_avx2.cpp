// The ROPE rotation instantiated for AVX2 (VecAvx2). Compiled with the flags of its name; called only through
// rope_rows(), which takes it from the kernel registry (cpu/kernel_registry.h) where the CPU has the level.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/simd/vec_avx2.h"

#include "cpu/kernels/rope/rope_rows.h"

namespace switchyard::cpu::kernels {

const RopeRows & rope_rows_avx2() {
    static const RopeRows k = make_rope_rows<simd::VecAvx2>();
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
