// The AVX-512 VNNI level of the matrix-vector table: the integer kernels of the quantized formats (the 32-element
// ones in legacy_avx512vnni.cpp, the K-quants in kquants_avx512vnni.cpp); the float formats come from the
// AVX-512 level.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu::quants {

MatVecFn matvec_avx512vnni(ggml_type weight) {
    if (MatVecFn f = legacy_avx512vnni(weight)) {
        return f;
    }
    return kquants_avx512vnni(weight);
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
