// Activation conversion for the matrix-vector kernels (matvec.h): floats to the format each weight type pairs
// with, once per activation row. The bytes are upstream's, as its CPU backend writes them on x86:
//
//   q8_0  per 32: amax = max |x|; d = amax / 127 stored as fp16; q = x * (127 / amax) rounded to nearest, ties
//         to even (0 when amax is 0). This is upstream's quantize_row_q8_0 for AVX/AVX2/AVX-512 builds; its
//         reference quantize_row_q8_0_ref (and ours in src/quant) multiplies by 1 / d and rounds ties away from
//         zero instead, which gives a level one apart in about 2 of 10^6 elements (x * id within an ulp of a
//         half-integer).
//   q8_1  q8_0's d and q, plus s = fp16(d * sum(q)) (quantize_row_q8_1, the same way).
//   q8_K  the reference quantizer, byte for byte (upstream's x86 quantize_row_q8_K is its reference).
//   f16, bf16  round to nearest even; f32 copied.
//
// Every function is exact for finite inputs (the result does not depend on the ISA), pure and thread-safe; k is a
// whole number of blocks.
#pragma once

#include "ggml.h"

#include <cstdint>

namespace switchyard::cpu::quants {

void act_quantize_q8_0(const float * x, void * y, int64_t k);
void act_quantize_q8_1(const float * x, void * y, int64_t k);
void act_quantize_q8_K(const float * x, void * y, int64_t k); // the kernel registry's choice (act_q8_K)
void act_quantize_q8_K_ref(const float * x, void * y, int64_t k);    // the scalar column's: the reference
void act_quantize_q8_K_avx512(const float * x, void * y, int64_t k); // act_quant_avx512.cpp (x86-64 only)
void act_convert_f16(const float * x, void * y, int64_t k);
void act_convert_bf16(const float * x, void * y, int64_t k);
void act_convert_f32(const float * x, void * y, int64_t k);
// f32 holding the values of act_convert_f16 (f16 converts to f32 exactly): the f16 weights' matrix-vector kernels
// read their activations so, converting only each weight vector (matvec.h: MatVecKernel::act_layout)
void act_widen_f16(const float * x, void * y, int64_t k);

// The converter to `act_type` (one of the formats above), or nullptr.
using ActConvert = void (*)(const float * x, void * y, int64_t k);
ActConvert act_converter(ggml_type act_type);

// Replaces n floats (a whole number of act_type's blocks) with their values after the conversion to act_type:
// what the float matrix kernels multiply with, so that they give the products of the integer ones.
void act_round_trip(ggml_type act_type, float * x, int64_t n);

} // namespace switchyard::cpu::quants
