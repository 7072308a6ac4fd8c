// Dot products used by the matrix kernels, chosen once by CPU features (scalar, AVX2+FMA, AVX-512).
#pragma once

#include <cstdint>

namespace switchyard::cpu::kernels {

// dot(x, y) over n floats
using DotF32Fn = float (*)(const float * x, const float * y, int64_t n);

// dot of x with 4 rows y0..y3 (same length n), results in out[0..3]
using Dot4F32Fn = void (*)(const float * x, const float * y0, const float * y1, const float * y2, const float * y3,
                           int64_t n, float * out);

// 4x4 tile: out[4 * r + c] = dot(a + r * lda, b[c], n) for r, c in 0..3 (rows of a lda floats apart)
using Dot4x4F32Fn = void (*)(const float * a, int64_t lda, const float * const * b, int64_t n, float * out);

struct DotKernels {
    DotF32Fn    dot;
    Dot4F32Fn   dot4;
    Dot4x4F32Fn dot4x4;
    const char * isa;
};

// The table this CPU runs (the kernel registry's choice: kernel_registry.h, dots), and the levels' tables the
// registry's columns hold (dot.cpp, dot_avx2.cpp, dot_avx512.cpp; call a level's only where the CPU runs it).
const DotKernels & dot_kernels();
const DotKernels & dot_kernels_scalar();
const DotKernels & dot_kernels_avx2();
const DotKernels & dot_kernels_avx512();

// dot4x4 through a level's dot4, one row of a at a time (the levels without a 4x4 tile of their own)
template <Dot4F32Fn kDot4>
void dot4x4_via_dot4(const float * a, int64_t lda, const float * const * b, int64_t n, float * out) {
    for (int r = 0; r < 4; ++r) {
        kDot4(a + r * lda, b[0], b[1], b[2], b[3], n, out + 4 * r);
    }
}

// The scalar level (dot.cpp); the x86 levels are dot_lanes.h instantiated in dot_avx2.cpp / dot_avx512.cpp.
float dot_f32_scalar(const float * x, const float * y, int64_t n);
void  dot4_f32_scalar(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                      float * out);
void  dot4x4_f32_generic(const float * a, int64_t lda, const float * const * b, int64_t n, float * out);

} // namespace switchyard::cpu::kernels
