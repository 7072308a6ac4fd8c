// The vector steps of the FLASH_ATTN_EXT kernel (flash_attn.cpp), one table per ISA level: the two small GEMMs of a
// tile (scores = Q K^T, O += P V), the row steps of the online softmax, and the conversion of f16 tiles. Scores are
// dot products along the head dimension (K rows read as f32 or straight from f16), each reduced by the same tree
// whatever rows and keys share the call. Written once over the Vec types in tile_impl.h and instantiated in
// tile.cpp (scalar), flash_attn_avx2.cpp, flash_attn_avx512.cpp.
//
// Every result element is computed by the same sequence of operations whatever the number of rows or keys passed
// in one call (row and key tails use the same reduction tree as full blocks), so the kernel's output does not
// depend on how its work is split between threads.
#pragma once

#include <cstdint>

namespace switchyard::cpu::kernels {

struct AttnTileKernels {
    // s[r * lds + j] = dot(q + r * ldq, k + j * ldk) over n floats, for r < nr, j < nk.
    void (*scores)(const float * q, int64_t ldq, int64_t nr, const float * k, int64_t ldk, int64_t nk, int64_t n, float * s,
                   int64_t lds);
    // The same reading K rows of f16 (the results equal scores' on the converted rows).
    void (*scores_f16)(const float * q, int64_t ldq, int64_t nr, const uint16_t * k, int64_t ldk, int64_t nk, int64_t n,
                       float * s, int64_t lds);
    // dst[j * ldd + d] = float(src[j * lds + d]) for j < nk, d < n (f16 rows to float rows).
    void (*convert_f16)(const uint16_t * src, int64_t lds, int64_t nk, int64_t n, float * dst, int64_t ldd);
    // Finishes one row of n raw scores in place: softcap * tanh(s) when softcap != 0, then + mv where mv is given
    // (mv == -inf gives -inf whatever s is; a NaN in mv gives NaN). Returns the row's maximum, ignoring NaN.
    float (*finish_row)(float * s, const float * mv, int64_t n, float softcap);
    // s[j] = exp(s[j] - m) in place; returns the sum.
    float (*exp_row)(float * s, int64_t n, float m);
    // o[d] *= c for d < n.
    void (*scale_row)(float * o, int64_t n, float c);
    // o[r * ldo + d] += sum_j p[r * ldp + j] * v[j * ldv + d] for r < nr, d < n, j < nk (j in order).
    void (*accumulate)(float * o, int64_t ldo, int64_t nr, const float * p, int64_t ldp, const float * v, int64_t ldv,
                       int64_t nk, int64_t n);
    // The same reading V rows of f16.
    void (*accumulate_f16)(float * o, int64_t ldo, int64_t nr, const float * p, int64_t ldp, const uint16_t * v, int64_t ldv,
                           int64_t nk, int64_t n);
    const char * isa;
};

// The table for this CPU (after SWITCHYARD_CPU_ISA): the kernel registry's choice (cpu/kernel_registry.h).
const AttnTileKernels & attn_tile_kernels();

// The levels' tables, which the registry's columns hold (tile.cpp, flash_attn_avx2.cpp, flash_attn_avx512.cpp);
// call only when the CPU has the ISA.
const AttnTileKernels & attn_tile_kernels_scalar();
const AttnTileKernels & attn_tile_kernels_avx2();
const AttnTileKernels & attn_tile_kernels_avx512();

} // namespace switchyard::cpu::kernels
