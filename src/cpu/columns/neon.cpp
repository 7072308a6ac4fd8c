// The NEON level's column of the kernel registry (cpu/kernel_registry.h): aarch64's Advanced SIMD (aarch64 only;
// elsewhere the column is empty): the matrix-vector kernels (quants/matvec_neon.cpp: f32, f16, q4_0, q8_0 and the
// K-quants), the float GEMM of f32 and f16 weights (quants/gemm_float_neon.cpp) and the integer GEMM's tile (every
// quantized type with a GEMM form, gemm.h): vdotq_s32's (quants/gemm_neon_dotprod.cpp) where the CPU has the int8
// dot product, else the widening one (quants/gemm_neon.cpp). The families it leaves empty (the packers, the
// repacked layout) run the scalar column's kernels.
#include "cpu/kernel_registry.h"

#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu {

namespace {

#if defined(__aarch64__)
// The float GEMM of F32 and F16 weights (F16 converted to f32 at packing).
const quants::FloatGemmKernels * gemm_float_neon(ggml_type weight) {
    static constexpr quants::FloatGemmKernels kFloat{quants::gemm_float_pack_neon, quants::gemm_float_tile_neon};
    return weight == GGML_TYPE_F32 || weight == GGML_TYPE_F16 ? &kFloat : nullptr;
}
#endif

} // namespace

IsaColumn neon_column() {
#if defined(__aarch64__)
    return {
        .matvec     = quants::matvec_neon,
        .gemm_float = gemm_float_neon,
        // dotprod is a feature within the level (ARMv8.2-A and later), detected with it (base/cpuid.h)
        .gemm_tile  = cpu_features().dotprod ? quants::gemm_tile_neon_dotprod : quants::gemm_tile_neon,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
