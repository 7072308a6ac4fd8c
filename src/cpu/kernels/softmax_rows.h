// Row functions shared by SOFT_MAX and FLASH_ATTN_EXT: the softmax steps (scale + mask + max, exp and sum, scale)
// and the weighted sum of value rows of the online softmax, written once over Vec (softmax_rows_impl.h) and
// instantiated for the scalar path (softmax_rows.cpp), AVX2 + FMA (softmax_rows_avx2.cpp) and AVX-512
// (softmax_rows_avx512.cpp).
//
// All functions are thread-safe and allocate nothing; softmax_row_kernels() picks the table once by features().
#pragma once

#include <cstdint>

namespace switchyard::cpu::kernels {

struct SoftmaxRowKernels {
    // y = a * s + slope * m (m may be null: y = a * s); returns max(y) (-inf when n == 0). y may equal a.
    float (*scale_mask_max)(const float * a, const float * m, float * y, int64_t n, float s, float slope) = nullptr;
    // y = m > -inf ? x * s + m : -inf (attention scores plus mask); returns max(y) (-inf when n == 0). y may equal x.
    float (*mask_scores)(const float * x, const float * m, float * y, int64_t n, float s) = nullptr;
    // returns max(x) (-inf when n == 0)
    float (*max)(const float * x, int64_t n) = nullptr;
    // y = exp(x - m) (exp(-inf) = 0); returns the sum of y. y may equal x.
    double (*exp_sum)(const float * x, float * y, int64_t n, float m) = nullptr;
    // y *= s
    void (*scale)(float * y, int64_t n, float s) = nullptr;
    // acc[0..dv) = acc * corr + sum_j w[j] * v[j * ldv + 0..dv) over j < nv (terms with w[j] == 0 skipped)
    void (*acc_rows)(float * acc, int64_t dv, float corr, const float * w, const float * v, int64_t nv, int64_t ldv) =
        nullptr;
    // out[i * ldo + j] = dot(q + i * ldq, k + j * ldk) over n floats, for i < nq, j < nk
    void (*dot_rows)(const float * q, int64_t nq, int64_t ldq, const float * k, int64_t nk, int64_t ldk, int64_t n,
                     float * out, int64_t ldo) = nullptr;
    const char * isa = "";
};

// The table for this CPU (AVX-512, else AVX2 + FMA, as available and not capped by SWITCHYARD_CPU_ISA; else
// scalar).
const SoftmaxRowKernels & softmax_row_kernels();
const SoftmaxRowKernels & softmax_row_kernels_scalar();
// Call only when features() has avx2 and fma.
const SoftmaxRowKernels & softmax_row_kernels_avx2();
// Call only when features() has avx512f (and fma).
const SoftmaxRowKernels & softmax_row_kernels_avx512();

} // namespace switchyard::cpu::kernels
