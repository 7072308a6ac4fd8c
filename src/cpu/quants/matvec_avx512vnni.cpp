// The AVX-512 VNNI level of the matrix-vector table: the integer kernels of the K-quants (kquants_avx512vnni.cpp);
// the float formats come from the AVX-512 level, the 32-element formats (q4_0 .. iq4_nl, mxfp4) from the AVX2 one,
// whose eight float lanes per block are upstream's own (upstream_order.h): a 512-bit kernel would have to run the
// same chain of one FMA per block and lane, so it would gain only on the integer side.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu::quants {

MatVecFn matvec_avx512vnni(ggml_type weight) { return kquants_avx512vnni(weight); }

} // namespace switchyard::cpu::quants

#endif // __x86_64__
