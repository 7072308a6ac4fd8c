// Matrix-vector products of the CPU backend: rows of weights (any supported storage type) times a few activation
// columns that were converted once to the format the weight type pairs with (upstream's vec_dot_type):
//
//   weights                                    activations
//   f32                                        f32
//   f16 / bf16                                 f16 / bf16 (rounded to nearest even)
//   q4_0, q5_0, q8_0, iq4_nl, mxfp4            q8_0
//   q4_1, q5_1                                 q8_1 (its s = d * sum(qs) carries the weights' min term)
//   q2_K, q3_K, q4_K, q5_K, q6_K               q8_K (its bsums carry the min / offset terms)
//   iq4_xs, iq2_xxs, iq2_xs, iq2_s, iq3_xxs,   q8_K
//   iq3_s, iq1_s, iq1_m, tq1_0, tq2_0
//
// The quantized products are integer dot products of the weights' levels with the activations' levels, scaled per
// block, so each result equals the float dot product of the dequantized weights with the dequantized activations
// up to float rounding: what upstream's vec_dot computes, and so what programs written for ggml expect.
//
// The kernels are held per weight type and ISA level by the kernel registry's columns (cpu/kernel_registry.h:
// matvec): the scalar reference entry exists for every type; AVX2, AVX-512, AVX-512 VNNI and BF16 entries where
// written. matvec_kernel() gives the registry's choice for the running CPU, with the type's activation format;
// matvec_entry() gives one level's entry (tests and benchmarks run each directly).
#pragma once

#include "ggml.h"

#include "cpu/simd/isa.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::cpu::quants {

// Activation columns one kernel call multiplies at most (the weights are read once for all of them).
constexpr int kMaxCols = 4;

// rows x cols products: out[r * out_row + c * out_col] = dot(weight row r, activation column c).
struct MatVecArgs {
    int64_t      k;       // elements per row: a whole number of blocks of the weight and the activation format
    const void * w;       // weight row 0
    size_t       w_row;   // bytes between weight rows
    int64_t      rows;    // weight rows, >= 0
    const void * act;     // activation column 0, k elements of the activation format
    size_t       act_col; // bytes between activation columns
    int          cols;    // 1..kMaxCols
    float *      out;
    int64_t      out_row; // floats between the results of consecutive weight rows
    int64_t      out_col; // floats between the results of consecutive columns
};

// Computes the products of `a`. Reads only the bytes of the rows and columns named (never past a row's end),
// writes only the rows x cols results; no allocation, thread-safe on disjoint outputs.
using MatVecFn = void (*)(const MatVecArgs & a);

// Converts k floats (a whole number of blocks) to the activation format: the bytes upstream's CPU backend
// writes on x86 (see act_quant.h).
using ActConvertFn = void (*)(const float * x, void * y, int64_t k);

// The activations reach fn in act_layout: act_type's own bytes, or f32 holding act_type's values where the
// level's kernel reads several weight rows per activation vector and would convert it for each (f16 on the
// AVX-512 levels: act_layout_for). The values, and so the products, are act_type's either way.
struct MatVecKernel {
    ggml_type    act_type   = GGML_TYPE_COUNT; // the activation format; GGML_TYPE_COUNT: no kernel for this type
    MatVecFn     fn         = nullptr;         // nullptr: none at this level (the selector falls back to a lower one)
    ActConvertFn convert    = nullptr;         // floats -> act_type's values in act_layout
    ggml_type    act_layout = GGML_TYPE_COUNT; // the bytes fn reads (above)

    size_t act_row_bytes(int64_t k) const { return ggml_row_size(act_layout, k); }
};

// The layout the matrix-vector kernel of `level` reads activations of format `act` in (MatVecKernel::act_layout):
// f32 for f16 on the AVX-512 levels, whose float kernels take three rows per activation vector
// (matvec_float.h: FloatShape::Act), act itself elsewhere (one row per activation vector: widening would only
// double the bytes read).
ggml_type act_layout_for(ggml_type act, simd::Isa level);

// The entry for `weight` at exactly level `isa` (fn nullptr when that level has no kernel of its own).
MatVecKernel matvec_entry(ggml_type weight, simd::Isa isa);

// The kernel this CPU runs for `weight`: the highest supported level with an entry. act_type GGML_TYPE_COUNT when
// the type has no matrix-vector kernel at all (the matrix kernels then convert it to floats).
const MatVecKernel & matvec_kernel(ggml_type weight);

// Upstream's vec_dot_type of `weight` (ggml-cpu.c's type_traits_cpu), for every type: the format its activations
// are rounded through. The one mapping of weight type to activation format.
ggml_type vec_dot_type(ggml_type weight);

// The activation format of the matrix-vector kernel of `weight` (matvec_kernel's act_type): vec_dot_type where the
// type has a kernel, GGML_TYPE_COUNT otherwise.
ggml_type act_type_for(ggml_type weight);

} // namespace switchyard::cpu::quants
