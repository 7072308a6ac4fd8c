// The AVX-512 level's column of the kernel registry (cpu/kernel_registry.h): AVX-512 F, BW, VL, DQ, the kernels of
// the files ending in _avx512 (x86-64 only; elsewhere the column is empty). This file only takes their addresses,
// so it is compiled without the level's flags.
#include "cpu/kernel_registry.h"

#include "cpu/kernels/flash_attn/tile.h"
#include "cpu/kernels/mul_mat/dequant.h"
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/kernels/reduce/softmax_rows.h"
#include "cpu/kernels/rope/rope_rows.h"
#include "cpu/kernels/row_kernels.h"
#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu {

namespace {

#if defined(__x86_64__)
// The float GEMM of F32 and F16 weights (F16 converted to f32 at packing).
const quants::FloatGemmKernels * gemm_float_avx512(ggml_type weight) {
    static constexpr quants::FloatGemmKernels kFloat{quants::gemm_float_pack_avx512, quants::gemm_float_tile_avx512};
    return weight == GGML_TYPE_F32 || weight == GGML_TYPE_F16 ? &kFloat : nullptr;
}

// The repacked float form's tile of F32 and F16 weights.
repack::FloatTileFn repack_float_tile_avx512(ggml_type weight) {
    return weight == GGML_TYPE_F32 || weight == GGML_TYPE_F16 ? repack::float_tile_avx512 : nullptr;
}
#endif

} // namespace

IsaColumn avx512_column() {
#if defined(__x86_64__)
    return {
        .row_kernels       = kernels::row_kernels_avx512,
        .softmax_rows      = kernels::softmax_rows_avx512,
        .rope_rows         = kernels::rope_rows_avx512,
        .attn_tiles        = kernels::attn_tile_kernels_avx512,
        .dots              = kernels::dot_kernels_avx512,
        .dequant           = kernels::dequant_kernels_avx512,
        .matvec            = quants::matvec_avx512,
        .gemm_float        = gemm_float_avx512,
        .act_q8_K          = quants::act_quantize_q8_K_avx512,
        .repack_float_tile = repack_float_tile_avx512,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
