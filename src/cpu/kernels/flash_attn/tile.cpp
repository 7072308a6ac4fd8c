// The attention tile steps on the scalar path, and the run-time choice of the table (tile.h).
#include "cpu/kernels/flash_attn/tile_impl.h"

#include "cpu/simd/isa.h"

namespace switchyard::cpu::kernels {

const AttnTileKernels & attn_tile_kernels_scalar() {
    static const AttnTileKernels k = make_attn_tile_kernels<VecScalar, 2, 2, 4>("scalar");
    return k;
}

const AttnTileKernels & attn_tile_kernels() {
    using Getter = const AttnTileKernels & (*)();
#if defined(__x86_64__)
    static constexpr simd::PerIsa<Getter> kTables = {attn_tile_kernels_scalar, attn_tile_kernels_avx2, attn_tile_kernels_avx512};
#else
    static constexpr simd::PerIsa<Getter> kTables = {attn_tile_kernels_scalar};
#endif
    static const AttnTileKernels & k = simd::pick(kTables, [](Getter g) { return g != nullptr; })();
    return k;
}

} // namespace switchyard::cpu::kernels
