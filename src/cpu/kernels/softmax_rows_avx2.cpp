// The softmax row functions instantiated for AVX2 + FMA (8 float lanes). Compiled with -mavx2 -mfma; called only
// through softmax_row_kernels(), which checks features() first.
#include "cpu/kernels/softmax_rows_impl.h"

namespace switchyard::cpu::kernels {

const SoftmaxRowKernels & softmax_row_kernels_avx2() {
    static const SoftmaxRowKernels k = make_softmax_row_kernels<VecAvx2, 2>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels
