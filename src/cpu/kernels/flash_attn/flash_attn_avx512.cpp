// The attention tile steps for AVX-512 (16 float lanes; compiled with the AVX-512 flags, called only through
// attn_tile_kernels() once the CPU has AVX-512). Dot-product scores in blocks of 4 rows x 4 keys (16
// accumulators of the 32 registers); O in blocks of 6 rows x 64 columns (24 accumulators).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/simd/vec_avx512.h"
#include "cpu/simd/vec_avx2.h" // hsum4 ends in the 256-bit tree

#include "cpu/kernels/flash_attn/tile_impl.h"

namespace switchyard::cpu::kernels {

const AttnTileKernels & attn_tile_kernels_avx512() {
    static const AttnTileKernels k = make_attn_tile_kernels<simd::VecAvx512, 4, 6>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif
