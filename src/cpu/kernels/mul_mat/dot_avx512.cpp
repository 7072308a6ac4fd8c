// The AVX-512 dot products (dot.h): dot_lanes.h over sixteen-float lanes, with the 4 x 4 tile (32 registers).
// Compiled with the AVX-512 flags; called only when the CPU has AVX-512F.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dot_lanes.h"
#include "cpu/simd/vec_avx512.h"

namespace switchyard::cpu::kernels {

const DotKernels & dot_kernels_avx512() {
    static constexpr DotKernels k = dot_table<simd::VecAvx512, true>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
