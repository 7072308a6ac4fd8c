// Row converters for fp16 and bf16 (run-time choice between the scalar code and the F16C / AVX-512 BF16 paths)
// and the fp16/bf16 part of ggml.h's C API.
#include "base/fp16.h"

#include "base/cpuid.h"
#include "base/fp16_isa.h"

#include "ggml.h"

namespace switchyard {

void fp16_to_fp32_row(const uint16_t * x, float * y, int64_t n) {
#if defined(SWITCHYARD_FP16_X86)
    if (base_isa().f16c) {
        fp16_isa::fp16_to_fp32_row_f16c(x, y, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; ++i) {
        y[i] = fp16_to_fp32(x[i]);
    }
}

void fp32_to_fp16_row(const float * x, uint16_t * y, int64_t n) {
#if defined(SWITCHYARD_FP16_X86)
    if (base_isa().f16c) {
        fp16_isa::fp32_to_fp16_row_f16c(x, y, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; ++i) {
        y[i] = fp32_to_fp16(x[i]);
    }
}

void bf16_to_fp32_row(const uint16_t * x, float * y, int64_t n) {
    // a shift per element; the compiler vectorises this loop on its own
    for (int64_t i = 0; i < n; ++i) {
        y[i] = bf16_to_fp32(x[i]);
    }
}

void fp32_to_bf16_row_scalar(const float * x, uint16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        y[i] = fp32_to_bf16(x[i]);
    }
}

void fp32_to_bf16_row(const float * x, uint16_t * y, int64_t n) {
#if defined(SWITCHYARD_FP16_X86)
    if (base_isa().avx512_bf16) {
        fp16_isa::fp32_to_bf16_row_avx512bf16(x, y, n);
        return;
    }
#endif
    fp32_to_bf16_row_scalar(x, y, n);
}

} // namespace switchyard

using namespace switchyard;

static_assert(sizeof(ggml_bf16_t) == sizeof(uint16_t));

extern "C" {

float ggml_fp16_to_fp32(ggml_fp16_t h) { return fp16_to_fp32(h); }
ggml_fp16_t ggml_fp32_to_fp16(float f) { return fp32_to_fp16(f); }

float ggml_bf16_to_fp32(ggml_bf16_t b) { return bf16_to_fp32(b.bits); }
ggml_bf16_t ggml_fp32_to_bf16(float f) { return ggml_bf16_t{fp32_to_bf16(f)}; }

void ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n) { fp16_to_fp32_row(x, y, n); }
void ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n) { fp32_to_fp16_row(x, y, n); }

void ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n) {
    bf16_to_fp32_row(reinterpret_cast<const uint16_t *>(x), y, n);
}

void ggml_fp32_to_bf16_row_ref(const float * x, ggml_bf16_t * y, int64_t n) {
    fp32_to_bf16_row_scalar(x, reinterpret_cast<uint16_t *>(y), n);
}

void ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n) {
    fp32_to_bf16_row(x, reinterpret_cast<uint16_t *>(y), n);
}

} // extern "C"
