// The matrix-vector table: activation formats per weight type and the kernels of every level, chosen once.
#include "cpu/quants/matvec.h"

#include "cpu/quants/act_quant.h"
#include "cpu/quants/matvec_isa.h"

#include <array>

namespace switchyard::cpu::quants {

namespace {

using simd::Isa;

MatVecFn level_kernel(ggml_type weight, Isa isa) {
    switch (isa) {
        case Isa::kScalar: return matvec_scalar(weight);
#if defined(__x86_64__)
        case Isa::kAvx2:       return matvec_avx2(weight);
        case Isa::kAvx512:     return matvec_avx512(weight);
        case Isa::kAvx512Vnni: return matvec_avx512vnni(weight);
        case Isa::kAvx512Bf16: return matvec_avx512bf16(weight);
#endif
        default: return nullptr;
    }
}

} // namespace

ggml_type act_type_for(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:   return weight;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_MXFP4:  return GGML_TYPE_Q8_0;
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_1:   return GGML_TYPE_Q8_1;
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
        case GGML_TYPE_Q6_K:   return GGML_TYPE_Q8_K;
        default:               return GGML_TYPE_COUNT;
    }
}

MatVecKernel matvec_entry(ggml_type weight, simd::Isa isa) {
    const ggml_type act = act_type_for(weight);
    if (act == GGML_TYPE_COUNT) {
        return MatVecKernel{};
    }
    return MatVecKernel{act, level_kernel(weight, isa), act_converter(act)};
}

const MatVecKernel & matvec_kernel(ggml_type weight) {
    static const auto table = [] {
        std::array<MatVecKernel, GGML_TYPE_COUNT> t{};
        for (int type = 0; type < GGML_TYPE_COUNT; ++type) {
            simd::PerIsa<MatVecKernel> levels;
            for (size_t i = 0; i < simd::kIsaCount; ++i) {
                levels[i] = matvec_entry(static_cast<ggml_type>(type), static_cast<Isa>(i));
            }
            t[static_cast<size_t>(type)] = simd::pick(levels, [](const MatVecKernel & k) { return k.fn != nullptr; });
        }
        return t;
    }();
    static const MatVecKernel none{};
    return weight >= 0 && weight < GGML_TYPE_COUNT ? table[static_cast<size_t>(weight)] : none;
}

} // namespace switchyard::cpu::quants
