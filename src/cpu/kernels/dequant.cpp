// Picks the dequantizer table by CPU features; see dequant.h.
#include "cpu/kernels/dequant.h"

#include "cpu/features.h"

namespace switchyard::cpu::kernels {

const DequantKernels & dequant_kernels() {
    static const DequantKernels & k = []() -> const DequantKernels & {
        const Features & f = features();
        if (f.avx512f) {
            return dequant_kernels_avx512();
        }
        if (f.avx2) {
            return dequant_kernels_avx2();
        }
        static const DequantKernels none{};
        return none;
    }();
    return k;
}

DequantRowFn dequant_row(const DequantKernels & k, ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q4_0: return k.q4_0;
        case GGML_TYPE_Q8_0: return k.q8_0;
        case GGML_TYPE_Q4_K: return k.q4_k;
        case GGML_TYPE_Q6_K: return k.q6_k;
        default:             return nullptr;
    }
}

} // namespace switchyard::cpu::kernels
