// The element-per-block float types: F32 (copies), F16 and BF16 (the exact conversions of base/fp16.h, with
// their fast row paths), F64 (float <-> double). The integer types have no float conversion here: ggml uses
// them for indices, and a rounding float -> int conversion would hide bugs rather than serve anyone.
#include "quant/formats.h"

#include "base/fp16.h"

#include <cstring>

namespace switchyard::quant {

namespace {

void f32_to_float(const void * x, float * y, int64_t k) {
    std::memcpy(y, x, static_cast<size_t>(k) * sizeof(float));
}

void f32_from_float(const float * x, void * y, int64_t k) {
    std::memcpy(y, x, static_cast<size_t>(k) * sizeof(float));
}

void f16_to_float(const void * x, float * y, int64_t k) {
    fp16_to_fp32_row(static_cast<const uint16_t *>(x), y, k);
}

void f16_from_float(const float * x, void * y, int64_t k) {
    fp32_to_fp16_row(x, static_cast<uint16_t *>(y), k);
}

void bf16_to_float(const void * x, float * y, int64_t k) {
    bf16_to_fp32_row(static_cast<const uint16_t *>(x), y, k);
}

void bf16_from_float(const float * x, void * y, int64_t k) {
    fp32_to_bf16_row_scalar(x, static_cast<uint16_t *>(y), k);
}

void f64_to_float(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
        double v;
        std::memcpy(&v, static_cast<const char *>(x) + i * 8, sizeof(v));
        y[i] = static_cast<float>(v);
    }
}

void f64_from_float(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
        const double v = x[i];
        std::memcpy(static_cast<char *>(y) + i * 8, &v, sizeof(v));
    }
}

// ggml_quantize_chunk on a plain type is a conversion of the whole range; no importance matrix applies.
template <ggml_from_float_t kConvert, size_t kElementSize>
size_t convert_rows(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float *) {
    kConvert(src, dst, nrows * n_per_row);
    return static_cast<size_t>(nrows * n_per_row) * kElementSize;
}

} // namespace

const Format kFormatF32{GGML_TYPE_F32, f32_to_float, f32_from_float, convert_rows<f32_from_float, 4>, false, {}};
const Format kFormatF16{GGML_TYPE_F16, f16_to_float, f16_from_float, convert_rows<f16_from_float, 2>, false, {}};
const Format kFormatBF16{GGML_TYPE_BF16, bf16_to_float, bf16_from_float, convert_rows<bf16_from_float, 2>, false,
                         {}};
const Format kFormatF64{GGML_TYPE_F64, f64_to_float, f64_from_float, convert_rows<f64_from_float, 8>, false, {}};

} // namespace switchyard::quant
