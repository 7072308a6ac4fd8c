// The AMX level's column of the kernel registry (cpu/kernel_registry.h): AMX tiles with AMX-BF16 and AMX-INT8, the
// kernels of the files ending in _amx (x86-64 only; elsewhere the column is empty): the integer GEMM's AMX tile (and
// its packer) and
// the float GEMM's AMX tiles (BF16, and F16 split into bf16 hi and lo parts). This file only takes their addresses,
// so it is compiled without the level's flags.
#include "cpu/kernel_registry.h"

#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"

namespace switchyard::cpu {

namespace {

#if defined(__x86_64__)
// BF16 panels are the vdpbf16ps tile's (their 16 pair steps are one AMX B tile); F16 ones hold hi / lo tiles.
void pack_bf16(ggml_type, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    quants::gemm_float_pack_avx512bf16(w, w_row, rows, k, panel);
}

void pack_f16(ggml_type, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    quants::gemm_float_pack_amx_f16(w, w_row, rows, k, panel);
}

const quants::FloatGemmKernels * gemm_float_amx(ggml_type weight) {
    static constexpr quants::FloatGemmKernels kBf16{pack_bf16, quants::gemm_float_tile_amx};
    static constexpr quants::FloatGemmKernels kF16{pack_f16, quants::gemm_float_tile_amx_f16};
    switch (weight) {
        case GGML_TYPE_BF16: return &kBf16;
        case GGML_TYPE_F16:  return &kF16;
        default:             return nullptr;
    }
}
#endif

} // namespace

IsaColumn amx_column() {
#if defined(__x86_64__)
    return {
        .gemm_float_amx = gemm_float_amx,
        .gemm_tile_amx  = quants::gemm_tile_amx_int,
        .gemm_pack_amx  = quants::gemm_pack_amx_int,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
