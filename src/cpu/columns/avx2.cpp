// The AVX2 level's column of the kernel registry (cpu/kernel_registry.h): AVX2 + FMA + F16C, the kernels of the
// files ending in _avx2 (x86-64 only; elsewhere the column is empty). This file only takes their addresses, so it
// is compiled without the level's flags.
#include "cpu/kernel_registry.h"

#include "cpu/kernels/flash_attn/tile.h"
#include "cpu/kernels/mul_mat/dequant.h"
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/kernels/reduce/softmax_rows.h"
#include "cpu/kernels/rope/rope_rows.h"
#include "cpu/kernels/row_kernels.h"
#include "cpu/quants/matvec_isa.h"

namespace switchyard::cpu {

IsaColumn avx2_column() {
#if defined(__x86_64__)
    return {
        .row_kernels  = kernels::row_kernels_avx2,
        .softmax_rows = kernels::softmax_rows_avx2,
        .rope_rows    = kernels::rope_rows_avx2,
        .attn_tiles   = kernels::attn_tile_kernels_avx2,
        .dots         = kernels::dot_kernels_avx2,
        .dequant      = kernels::dequant_kernels_avx2,
        .matvec       = quants::matvec_avx2,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
