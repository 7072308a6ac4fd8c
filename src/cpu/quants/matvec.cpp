// The matrix-vector table: activation formats per weight type, and the kernel of each type chosen once by the
// kernel registry (its columns hold every level's kernels: cpu/kernel_registry.h, matvec).
#include "cpu/quants/matvec.h"

#include "cpu/kernel_registry.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/type_rows.h"

#include <array>

namespace switchyard::cpu::quants {

ggml_type vec_dot_type(ggml_type weight) {
    const CpuTypeRow row = cpu_type_row(weight);
    return row.type == weight ? row.act : GGML_TYPE_Q8_K;
}

ggml_type act_layout_for(ggml_type act, simd::Isa level) {
    const bool avx512 = level >= simd::Isa::kAvx512 && level <= simd::Isa::kAmx;
    return act == GGML_TYPE_F16 && avx512 ? GGML_TYPE_F32 : act;
}

namespace {

MatVecKernel make_kernel(ggml_type act, MatVecFn fn, simd::Isa level) {
    const ggml_type layout = act_layout_for(act, level);
    return MatVecKernel{act, fn, layout == act ? act_converter(act) : act_widen_f16, layout};
}

} // namespace

MatVecKernel matvec_entry(ggml_type weight, simd::Isa isa) {
    const ggml_type act = act_type_for(weight);
    if (act == GGML_TYPE_COUNT) {
        return MatVecKernel{};
    }
    const auto level_kernel = isa_column(isa).matvec;
    return make_kernel(act, level_kernel != nullptr ? level_kernel(weight) : nullptr, isa);
}

// Built once: the registry's kernel per type, with vec_dot_type as its activation format.
const MatVecKernel & matvec_kernel(ggml_type weight) {
    static const auto table = [] {
        const auto                                kernels = select_kernel_per_type(&IsaColumn::matvec);
        std::array<MatVecKernel, GGML_TYPE_COUNT> t{};
        for (int type = 0; type < GGML_TYPE_COUNT; ++type) {
            const size_t i = static_cast<size_t>(type);
            if (kernels[i] != nullptr) {
                t[i] = make_kernel(vec_dot_type(static_cast<ggml_type>(type)), kernels[i],
                                   selected_level(&IsaColumn::matvec, static_cast<ggml_type>(type)));
            }
        }
        return t;
    }();
    static const MatVecKernel none{};
    return weight >= 0 && weight < GGML_TYPE_COUNT ? table[static_cast<size_t>(weight)] : none;
}

ggml_type act_type_for(ggml_type weight) { return matvec_kernel(weight).act_type; }

} // namespace switchyard::cpu::quants
