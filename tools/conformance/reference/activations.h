// How upstream's CPU backend feeds activations (src1 of MUL_MAT / MUL_MAT_ID) into its dot products, written here
// from upstream's definitions (ggml-cpu.c type_traits_cpu, ggml-cpu/arch/x86/quants.c), independently of our
// kernels: for a weight type with a vec_dot_type, each activation row is first converted to that format, and the
// product is the dot product of the dequantized weights with the dequantized converted activations (q4_1 / q5_1
// add their min term through the q8_1 blocks' s = fp16(d * sum q), not through the exact sum).
//
//   f16 / bf16 weights      activations rounded to f16 / bf16 (nearest even)
//   q4_0 q5_0 q8_0 iq4_nl mxfp4   q8_0: per 32, d = amax / 127 (fp16), q = nearbyint(x * (127 / amax))
//   q4_1 q5_1               q8_1: q8_0's d and q, s = fp16(d * sum q)
//   q2_K .. q6_K, iq4_xs    q8_K: upstream's reference quantize_row_q8_K_ref
//   f32 and all others      the activations as they are
#pragma once

#include "ggml.h"

#include <cstdint>
#include <vector>

namespace switchyard::testing::reference {

// The format activations are converted to for `weight` (GGML_TYPE_F32: none).
ggml_type activation_type(ggml_type weight);

// k floats (a whole number of blocks) converted to `act` (one of the formats above) as upstream's x86 CPU
// backend writes them.
std::vector<uint8_t> convert_activations(ggml_type act, const float * x, int64_t k);

// The values of k elements of q8_0 / q8_1 / q8_K bytes (d * level per block): ggml_get_type_traits gives q8_1 and
// q8_K no to_float, as upstream's does.
void decode_q8(ggml_type act, const uint8_t * bytes, float * out, int64_t k);

// The product of one weight row (k elements of `weight`, blocks adjacent) with k activations, as upstream defines
// it (see above), accumulated in double.
double upstream_product(ggml_type weight, const void * w_row, const float * x, int64_t k);

// The activations after the conversion for `weight`, as floats (x itself for F32 and the types without one), and
// for q4_1 / q5_1 the per-block amount s - d * sum(q) that the min term adds (empty for the other types).
struct ConvertedActivations {
    std::vector<float> values;
    std::vector<float> min_term_excess;
};
ConvertedActivations converted_activations(ggml_type weight, const float * x, int64_t k);

} // namespace switchyard::testing::reference
