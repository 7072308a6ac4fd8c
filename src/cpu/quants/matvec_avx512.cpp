// The AVX-512 level (F, BW, VL, DQ) of the matrix-vector table: the float formats f32, f16 and bf16
// (matvec_float.h over sixteen-float lanes: six rows at a time, one accumulator per output, masked tails). The quantized formats fall back
// to the AVX2 level here; the AVX-512 VNNI level has their integer kernels.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_float.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/simd/vec_avx512.h"

namespace switchyard::cpu::quants {

MatVecFn matvec_avx512(ggml_type weight) { return float_matvec<simd::VecAvx512>(weight); }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
