// The per-format entry points: reference dequantize (to_float) and quantize (from_float_ref) as
// ggml_get_type_traits reports them, the row quantizer behind ggml_quantize_chunk (which honours an importance
// matrix where the format can use one) and where the block scales sit, for ggml_validate_row_data.
//
// Every function here is pure and thread-safe; element counts must be multiples of the block size (the public
// wrappers check that before calling).
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::quant {

// Reference dequantize (blocks -> floats) for `type`, or nullptr if the format has none.
ggml_to_float_t to_float_fn(ggml_type type);

// Reference quantize (floats -> blocks) for `type`, or nullptr if the format has none.
ggml_from_float_t from_float_ref_fn(ggml_type type);

// Quantizes nrows rows of n_per_row floats into dst (rows back to back) and returns the bytes written.
// imatrix, when not null, holds n_per_row importance weights (one per column, the same for every row): the
// quantizer then minimises the error weighted by them. Without it the result is the reference quantization
// (or a better search where the format file says so).
using QuantizeRowsFn = size_t (*)(const float * src, void * dst, int64_t nrows, int64_t n_per_row,
                                  const float * imatrix);

// A scale field of a block that must be finite (or, for E8M0 exponents, not 0xff) in valid data.
enum class ScaleKind : uint8_t { kNone, kHalf, kFloat, kE8M0 };

struct ScaleField {
    ScaleKind    kind   = ScaleKind::kNone;
    uint16_t     offset = 0; // byte offset inside the block
    const char * name   = nullptr;
};

struct Format {
    ggml_type         type;
    ggml_to_float_t   to_float;
    ggml_from_float_t from_float_ref;
    QuantizeRowsFn    quantize_rows;
    bool              uses_imatrix;  // quantize_rows changes its result when given an importance matrix
    ScaleField        scales[2];     // fields validated per block (kind kNone: unused slot)
};

// The format table entry for `type`, or nullptr for types without conversions (the IQ2 / IQ3 / IQ1 grid formats
// convert to floats but have no quantizer).
const Format * find_format(ggml_type type);

// Runs quantize_one(x, y, n_per_row, imatrix) on each row; y advances by row_bytes. Returns nrows * row_bytes.
template <typename RowFn>
size_t quantize_each_row(const float * src, void * dst, int64_t nrows, int64_t n_per_row, size_t row_bytes,
                         const float * imatrix, RowFn quantize_one) {
    char * out = static_cast<char *>(dst);
    for (int64_t r = 0; r < nrows; ++r) {
        quantize_one(src + r * n_per_row, out + static_cast<size_t>(r) * row_bytes, n_per_row, imatrix);
    }
    return static_cast<size_t>(nrows) * row_bytes;
}

// The row quantizer of a format whose quantization has no choice to weigh: the reference quantizer on all nrows
// rows at once (rows are whole blocks of kBlock elements, Block's bytes each), the importance matrix unused.
template <typename Block, ggml_from_float_t kRef, int64_t kBlock>
size_t quantize_rows_by_ref(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float *) {
    kRef(src, dst, nrows * n_per_row);
    return static_cast<size_t>(nrows) * static_cast<size_t>(n_per_row / kBlock) * sizeof(Block);
}

// The formats, one object per type, defined in the family files (plain.cpp, q4_q5_q8.cpp, kquants_*.cpp,
// iq4.cpp, mxfp4.cpp, nvfp4.cpp, q1_q2.cpp, tq1_0.cpp, tq2_0.cpp, iq_grid_formats.cpp).
extern const Format kFormatF32, kFormatF16, kFormatBF16, kFormatF64, kFormatI8, kFormatI16, kFormatI32, kFormatI64;
extern const Format kFormatQ4_0, kFormatQ4_1, kFormatQ5_0, kFormatQ5_1, kFormatQ8_0, kFormatQ8_1;
extern const Format kFormatQ2_K, kFormatQ3_K, kFormatQ4_K, kFormatQ5_K, kFormatQ6_K, kFormatQ8_K;
extern const Format kFormatIQ4_NL, kFormatIQ4_XS, kFormatMXFP4, kFormatNVFP4, kFormatQ1_0, kFormatQ2_0;
extern const Format kFormatTQ1_0, kFormatTQ2_0;
extern const Format kFormatIQ2_XXS, kFormatIQ2_XS, kFormatIQ2_S, kFormatIQ3_XXS, kFormatIQ3_S, kFormatIQ1_S, kFormatIQ1_M;

} // namespace switchyard::quant
