// The softmax row functions on the scalar path, and the run-time choice of the table.
#include "cpu/kernels/softmax_rows_impl.h"

#include "cpu/features.h"

namespace switchyard::cpu::kernels {

const SoftmaxRowKernels & softmax_row_kernels_scalar() {
    static const SoftmaxRowKernels k = make_softmax_row_kernels<VecScalar, 2>("scalar");
    return k;
}

const SoftmaxRowKernels & softmax_row_kernels() {
    static const SoftmaxRowKernels & k = []() -> const SoftmaxRowKernels & {
        const Features & f = features();
        if (f.avx512f && f.fma) {
            return softmax_row_kernels_avx512();
        }
        return f.avx2 && f.fma ? softmax_row_kernels_avx2() : softmax_row_kernels_scalar();
    }();
    return k;
}

} // namespace switchyard::cpu::kernels
