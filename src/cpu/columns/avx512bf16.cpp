// The AVX-512 BF16 level's column of the kernel registry (cpu/kernel_registry.h): AVX-512 VNNI plus BF16
// (vdpbf16ps), the kernels of the files ending in _avx512bf16 (x86-64 only; elsewhere the column is empty): the
// bf16 matrix-vector kernel, the bf16 float GEMM and the repacked bf16 tile. This file only takes their addresses, so it is compiled
// without the level's flags.
#include "cpu/kernel_registry.h"

#include "cpu/quants/gemm_float.h"
#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu {

namespace {

#if defined(__x86_64__)
void pack_bf16(ggml_type, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    quants::gemm_float_pack_avx512bf16(w, w_row, rows, k, panel);
}

// The float GEMM of BF16 weights.
const quants::FloatGemmKernels * gemm_float_avx512bf16(ggml_type weight) {
    static constexpr quants::FloatGemmKernels kBf16{pack_bf16, quants::gemm_float_tile_avx512bf16};
    return weight == GGML_TYPE_BF16 ? &kBf16 : nullptr;
}

// The repacked float form's tile of BF16 weights.
repack::FloatTileFn repack_float_tile_avx512bf16(ggml_type weight) {
    return weight == GGML_TYPE_BF16 ? repack::float_tile_avx512bf16 : nullptr;
}
#endif

} // namespace

IsaColumn avx512bf16_column() {
#if defined(__x86_64__)
    return {
        .matvec            = quants::matvec_avx512bf16,
        .gemm_float        = gemm_float_avx512bf16,
        .repack_float_tile = repack_float_tile_avx512bf16,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
