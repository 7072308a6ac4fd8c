// The AVX-512 VNNI level's column of the kernel registry (cpu/kernel_registry.h): AVX-512 plus VNNI and VBMI, the
// kernels of the files ending in _avx512vnni (x86-64 only; elsewhere the column is empty): the K-quant
// matrix-vector kernels, the integer GEMM's packer and tile, the repacked layout's expander and tile. This file
// only takes their addresses, so it is compiled without the level's flags.
#include "cpu/kernel_registry.h"

#include "cpu/quants/gemm.h"
#include "cpu/quants/matvec_isa.h"
#include "cpu/repack/format.h"

namespace switchyard::cpu {

IsaColumn avx512vnni_column() {
#if defined(__x86_64__)
    return {
        .matvec        = quants::matvec_avx512vnni,
        .gemm_pack     = quants::gemm_pack_avx512vnni,
        .gemm_tile     = quants::gemm_tile_avx512vnni,
        .repack_expand = repack::expand_panel_avx512vnni,
        .repack_tile   = repack::tile_avx512vnni,
    };
#else
    return {};
#endif
}

} // namespace switchyard::cpu
