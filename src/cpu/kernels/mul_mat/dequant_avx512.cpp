// The AVX-512 row dequantizers (dequant.h): dequant_lanes.h over sixteen-float lanes. Compiled with the AVX-512
// flags; called only through dequant_kernels() when the CPU has AVX-512F.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant_lanes.h"
#include "cpu/simd/vec_avx512.h"

namespace switchyard::cpu::kernels {

const DequantKernels & dequant_kernels_avx512() {
    static const DequantKernels k = dequant_table<simd::VecAvx512>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
