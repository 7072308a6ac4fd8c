// The attention tile steps on the scalar path, and the run-time choice of the table (tile.h).
#include "cpu/kernels/flash_attn/tile_impl.h"

#include "cpu/kernel_registry.h"

namespace switchyard::cpu::kernels {

const AttnTileKernels & attn_tile_kernels_scalar() {
    static const AttnTileKernels k = make_attn_tile_kernels<VecScalar, 2, 2>("scalar");
    return k;
}

const AttnTileKernels & attn_tile_kernels() {
    static const AttnTileKernels & k = select_kernel(&IsaColumn::attn_tiles)();
    return k;
}

} // namespace switchyard::cpu::kernels
