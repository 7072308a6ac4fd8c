// The element-per-block types: F32 (copies), F16 and BF16 (the exact conversions of base/fp16.h, with their
// fast row paths), F64 (float <-> double), and the integers I8/I16/I32/I64. An integer becomes the nearest
// float (exact up to 2^24 in magnitude); a float becomes the nearest integer (ties to even), saturated to the
// type's range, with NaN as 0, so a conversion never has undefined behaviour whatever the data.
#include "quant/formats.h"

#include "base/fp16.h"

#include <cmath>
#include <cstring>
#include <limits>

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

template <typename Int>
void int_to_float(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
        Int v;
        std::memcpy(&v, static_cast<const char *>(x) + i * static_cast<int64_t>(sizeof(Int)), sizeof(v));
        y[i] = static_cast<float>(v);
    }
}

template <typename Int>
Int saturate(float v) {
    if (std::isnan(v)) {
        return 0;
    }
    const double r  = std::nearbyint(static_cast<double>(v)); // ties to even in the default rounding mode
    const double lo = static_cast<double>(std::numeric_limits<Int>::min());
    const double hi = static_cast<double>(std::numeric_limits<Int>::max()); // 2^63 - 1 rounds up to 2^63
    if (r <= lo) {
        return std::numeric_limits<Int>::min();
    }
    if (r >= hi) {
        return std::numeric_limits<Int>::max();
    }
    return static_cast<Int>(r);
}

template <typename Int>
void int_from_float(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
        const Int v = saturate<Int>(x[i]);
        std::memcpy(static_cast<char *>(y) + i * static_cast<int64_t>(sizeof(Int)), &v, sizeof(v));
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
const Format kFormatI8{GGML_TYPE_I8, int_to_float<int8_t>, int_from_float<int8_t>,
                       convert_rows<int_from_float<int8_t>, 1>, false, {}};
const Format kFormatI16{GGML_TYPE_I16, int_to_float<int16_t>, int_from_float<int16_t>,
                        convert_rows<int_from_float<int16_t>, 2>, false, {}};
const Format kFormatI32{GGML_TYPE_I32, int_to_float<int32_t>, int_from_float<int32_t>,
                        convert_rows<int_from_float<int32_t>, 4>, false, {}};
const Format kFormatI64{GGML_TYPE_I64, int_to_float<int64_t>, int_from_float<int64_t>,
                        convert_rows<int_from_float<int64_t>, 8>, false, {}};

} // namespace switchyard::quant
