// The dequantizer table this CPU runs (the kernel registry's choice) and the row conversions; see dequant.h.
#include "cpu/kernels/mul_mat/dequant.h"

#include "cpu/kernel_registry.h"

#include "base/fp16.h"
#include "quant/formats.h"

#include <cstring>

namespace switchyard::cpu::kernels {

const DequantKernels & dequant_kernels_scalar() {
    static const DequantKernels none{};
    return none;
}

const DequantKernels & dequant_kernels() {
    static const DequantKernels & k = select_kernel(&IsaColumn::dequant)();
    return k;
}

DequantRowFn dequant_row(const DequantKernels & k, ggml_type type) {
    return type >= 0 && type < GGML_TYPE_COUNT ? k.by_type[type] : nullptr;
}

bool row_convertible(ggml_type type) {
    if (type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16) {
        return true;
    }
    return ggml_is_quantized(type) && quant::to_float_fn(type) != nullptr;
}

void row_to_float(ggml_type type, const void * src, float * dst, int64_t n) {
    switch (type) {
        case GGML_TYPE_F32:  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float)); return;
        case GGML_TYPE_F16:  fp16_to_fp32_row(static_cast<const uint16_t *>(src), dst, n); return;
        case GGML_TYPE_BF16: bf16_to_fp32_row(static_cast<const uint16_t *>(src), dst, n); return;
        default:             break;
    }
    if (const DequantRowFn fast = dequant_row(dequant_kernels(), type)) {
        fast(src, dst, n);
        return;
    }
    quant::to_float_fn(type)(src, dst, n);
}

} // namespace switchyard::cpu::kernels
