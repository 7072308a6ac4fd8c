// ISA-specific row converters behind the fp16/bf16 row functions of fp16.h. Each one gives exactly the scalar
// conversion of fp16.h for every input. Call one only when base_isa() (base/cpuid.h) reports its feature; the
// unit tests call them directly to compare them with the scalar code.
#pragma once

#include <cstdint>

namespace switchyard::fp16_isa {

#if defined(__x86_64__) || defined(__i386__)
#define SWITCHYARD_FP16_X86 1

// fp16_f16c.cpp (needs BaseIsa::f16c)
void fp16_to_fp32_row_f16c(const uint16_t * x, float * y, int64_t n);
void fp32_to_fp16_row_f16c(const float * x, uint16_t * y, int64_t n);

// fp16_avx512bf16.cpp (needs BaseIsa::avx512_bf16)
void fp32_to_bf16_row_avx512bf16(const float * x, uint16_t * y, int64_t n);
#endif

} // namespace switchyard::fp16_isa
