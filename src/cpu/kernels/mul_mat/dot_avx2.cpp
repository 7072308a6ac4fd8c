// The AVX2 + FMA dot products (dot.h): dot_lanes.h over eight-float lanes; AVX2 has too few registers for the
// 4 x 4 tile, so dot4x4 is four dot4 calls. Compiled with -mavx2 -mfma; called only when the CPU has them.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dot_lanes.h"
#include "cpu/simd/vec_avx2.h"

namespace switchyard::cpu::kernels {

const DotKernels & dot_kernels_avx2() {
    static constexpr DotKernels k = dot_table<simd::VecAvx2, false>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
