// The per-level halves of the matrix-vector table (matvec.h): each returns its level's kernel for a weight type,
// or nullptr where the level has none of its own. Defined in matvec_scalar.cpp and the files compiled for each
// level (matvec_avx2.cpp, kquants_avx2.cpp, ..._avx512vnni.cpp; x86-64 only) and held by the kernel registry's
// columns (kernel_registry.h: matvec); call a level's function only when simd::isa_supported says the CPU runs
// that level.
#pragma once

#include "cpu/quants/matvec.h"

namespace switchyard::cpu::quants {

MatVecFn matvec_scalar(ggml_type weight);

MatVecFn matvec_avx2(ggml_type weight);       // matvec_avx2.cpp: f32, f16, bf16, then the two below
MatVecFn legacy_avx2(ggml_type weight);       // legacy_avx2.cpp: q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl, mxfp4
MatVecFn lowbit_avx2(ggml_type weight);       // lowbit_avx2.cpp: q1_0, q2_0, nvfp4
MatVecFn kquants_avx2(ggml_type weight);      // kquants_avx2.cpp: q2_K .. q6_K, the IQ grid and -1/0/+1 formats
MatVecFn matvec_avx512(ggml_type weight);     // matvec_avx512.cpp: f32, f16
MatVecFn matvec_avx512vnni(ggml_type weight); // matvec_avx512vnni.cpp: the one below
MatVecFn kquants_avx512vnni(ggml_type weight); // kquants_avx512vnni.cpp
MatVecFn matvec_avx512bf16(ggml_type weight); // matvec_avx512bf16.cpp: bf16
MatVecFn matvec_neon(ggml_type weight);       // matvec_neon.cpp (aarch64): f32, f16, q4_0, q8_0, q2_K .. q6_K

} // namespace switchyard::cpu::quants
