// The AVX2 row dequantizers (dequant.h): dequant_lanes.h over eight-float lanes. Compiled with -mavx2 -mfma;
// called only through dequant_kernels() when the CPU has AVX2.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant_lanes.h"
#include "cpu/simd/vec_avx2.h"

namespace switchyard::cpu::kernels {

const DequantKernels & dequant_kernels_avx2() {
    static const DequantKernels k = dequant_table<simd::VecAvx2>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
