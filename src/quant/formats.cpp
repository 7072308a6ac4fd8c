// Placeholder until the block formats land: plain float types only.
#include "quant/formats.h"

#include "base/fp16.h"

namespace switchyard::quant {

namespace {

void f16_to_float(const void * x, float * y, int64_t k) {
    const auto * h = static_cast<const uint16_t *>(x);
    for (int64_t i = 0; i < k; ++i) {
        y[i] = fp16_to_fp32(h[i]);
    }
}

void float_to_f16(const float * x, void * y, int64_t k) {
    auto * h = static_cast<uint16_t *>(y);
    for (int64_t i = 0; i < k; ++i) {
        h[i] = fp32_to_fp16(x[i]);
    }
}

} // namespace

ggml_to_float_t to_float_fn(ggml_type type) {
    return type == GGML_TYPE_F16 ? f16_to_float : nullptr;
}

ggml_from_float_t from_float_ref_fn(ggml_type type) {
    return type == GGML_TYPE_F16 ? float_to_f16 : nullptr;
}

} // namespace switchyard::quant
