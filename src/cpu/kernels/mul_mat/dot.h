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

const DotKernels & dot_kernels();

// ISA variants (defined in dot*.cpp)
float dot_f32_scalar(const float * x, const float * y, int64_t n);
void  dot4_f32_scalar(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                      float * out);
void  dot4x4_f32_generic(const float * a, int64_t lda, const float * const * b, int64_t n, float * out);
float dot_f32_avx2(const float * x, const float * y, int64_t n);
void  dot4_f32_avx2(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                    float * out);
float dot_f32_avx512(const float * x, const float * y, int64_t n);
void  dot4_f32_avx512(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                      float * out);
void  dot4x4_f32_avx512(const float * a, int64_t lda, const float * const * b, int64_t n, float * out);

} // namespace switchyard::cpu::kernels
