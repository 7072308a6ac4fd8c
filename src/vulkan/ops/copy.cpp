// CPY, CONT, DUP: element-order copies with type conversion between f32, f16 and bf16 (shaders/unary.comp,
// the identity), and from f32 / f16 into Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL (quantize.cpp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

namespace switchyard::vulkan::ops {

bool supports_copy(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if (is_quantized_write(node)) {
        return supports_quantize(node);
    }
    return is_float_type(src->type) && is_float_type(node->type) && ggml_nelements(src) == ggml_nelements(node) &&
           fits_u32(src) && fits_u32(node);
}

bool record_copy(Recorder & rec, const ggml_tensor * node) {
    if (is_quantized_write(node)) {
        return record_quantize(rec, node);
    }
    const float none[4] = {};
    return record_elementwise(rec, node->src[0], node, 0, none);
}

} // namespace switchyard::vulkan::ops
