// The attention tile steps for AVX2 + FMA (8 float lanes; compiled with the AVX2 flags, called only through
// attn_tile_kernels() once the CPU has AVX2). Two query rows per register block: 8 score or 8 O accumulators.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/simd/vec_avx2.h"

#include "cpu/kernels/flash_attn/tile_impl.h"

namespace switchyard::cpu::kernels {

const AttnTileKernels & attn_tile_kernels_avx2() {
    static const AttnTileKernels k = make_attn_tile_kernels<simd::VecAvx2, 2, 2>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif
