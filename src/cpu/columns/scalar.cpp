// The scalar level's column of the kernel registry (cpu/kernel_registry.h): the portable kernels, on every
// architecture. It has every family that must always be there; the fast-path-only families stay empty.
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

// The portable packer writes every type it is given: it never declines.
bool gemm_pack_portable(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    quants::gemm_pack_portable(weight, w, w_row, rows, k, panel);
    return true;
}

} // namespace

IsaColumn scalar_column() {
    return {
        .row_kernels   = kernels::row_kernels_scalar,
        .softmax_rows  = kernels::softmax_rows_scalar,
        .rope_rows     = kernels::rope_rows_scalar,
        .attn_tiles    = kernels::attn_tile_kernels_scalar,
        .dots          = kernels::dot_kernels_scalar,
        .dequant       = kernels::dequant_kernels_scalar,
        .matvec        = quants::matvec_scalar,
        .gemm_pack     = gemm_pack_portable,
        .repack_expand = repack::expand_panel_portable,
        .act_q8_K      = quants::act_quantize_q8_K_ref,
    };
}

} // namespace switchyard::cpu
