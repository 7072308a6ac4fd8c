// Row converters of ggml-cpu.h: (src, dst, n). The fp16/bf16 ones use the base library's row converters, which
// pick F16C / AVX-512 BF16 at run time and agree bit for bit with the scalar conversions.
#include "ggml-cpu.h"

#include "base/fp16.h"

#include <cstdint>
#include <cstring>

namespace {

// Truncation toward zero as C's float-to-int conversion, defined for every input: NaN and values outside the
// int32 range give INT32_MIN, as the x86 conversion instruction does.
int32_t truncate_to_i32(float x) {
    if (!(x > -2147483904.0f && x < 2147483648.0f)) {
        return INT32_MIN;
    }
    return static_cast<int32_t>(x);
}

} // namespace

extern "C" {

void ggml_cpu_fp32_to_fp32(const float * x, float * y, int64_t n) {
    if (n > 0) {
        std::memmove(y, x, static_cast<size_t>(n) * sizeof(float));
    }
}

void ggml_cpu_fp32_to_i32(const float * x, int32_t * y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        y[i] = truncate_to_i32(x[i]);
    }
}

void ggml_cpu_fp32_to_fp16(const float * x, ggml_fp16_t * y, int64_t n) { switchyard::fp32_to_fp16_row(x, y, n); }

void ggml_cpu_fp16_to_fp32(const ggml_fp16_t * x, float * y, int64_t n) { switchyard::fp16_to_fp32_row(x, y, n); }

void ggml_cpu_fp32_to_bf16(const float * x, ggml_bf16_t * y, int64_t n) {
    switchyard::fp32_to_bf16_row(x, reinterpret_cast<uint16_t *>(y), n);
}

void ggml_cpu_bf16_to_fp32(const ggml_bf16_t * x, float * y, int64_t n) {
    switchyard::bf16_to_fp32_row(reinterpret_cast<const uint16_t *>(x), y, n);
}

} // extern "C"
