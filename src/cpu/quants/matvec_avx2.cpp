// The AVX2 level of the matrix-vector table: the float formats (matvec_float.h over eight-float lanes: f32, f16
// through F16C, bf16 by shifting; 16 elements per step, the tail with partial loads), the 32-element formats in
// legacy_avx2.cpp, ggml 0.25.1's q1_0 / q2_0 / nvfp4 in lowbit_avx2.cpp, the K-quants in kquants_avx2.cpp.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_float.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/simd/vec_avx2.h"

namespace switchyard::cpu::quants {

MatVecFn matvec_avx2(ggml_type weight) {
    if (MatVecFn f = float_matvec<simd::VecAvx2>(weight)) {
        return f;
    }
    if (MatVecFn f = legacy_avx2(weight)) {
        return f;
    }
    if (MatVecFn f = lowbit_avx2(weight)) {
        return f;
    }
    return kquants_avx2(weight);
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
