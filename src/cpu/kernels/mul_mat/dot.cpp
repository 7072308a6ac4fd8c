// The scalar dot products and the run-time choice of the table (dot.h).
#include "cpu/kernels/mul_mat/dot.h"

#include "cpu/kernel_registry.h"

namespace switchyard::cpu::kernels {

float dot_f32_scalar(const float * x, const float * y, int64_t n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int k = 0; k < 8; ++k) {
            acc[k] += x[i + k] * y[i + k];
        }
    }
    float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) {
        sum += x[i] * y[i];
    }
    return sum;
}

void dot4_f32_scalar(const float * x, const float * y0, const float * y1, const float * y2, const float * y3, int64_t n,
                     float * out) {
    out[0] = dot_f32_scalar(x, y0, n);
    out[1] = dot_f32_scalar(x, y1, n);
    out[2] = dot_f32_scalar(x, y2, n);
    out[3] = dot_f32_scalar(x, y3, n);
}

void dot4x4_f32_generic(const float * a, int64_t lda, const float * const * b, int64_t n, float * out) {
    dot4x4_via_dot4<dot4_f32_scalar>(a, lda, b, n, out);
}

const DotKernels & dot_kernels_scalar() {
    static constexpr DotKernels k{dot_f32_scalar, dot4_f32_scalar, dot4x4_f32_generic, "scalar"};
    return k;
}

const DotKernels & dot_kernels() {
    static const DotKernels & k = select_kernel(&IsaColumn::dots)();
    return k;
}

} // namespace switchyard::cpu::kernels
