// Fast row dequantizers for the matrix kernels: block formats to floats, chosen once by CPU features (AVX2,
// AVX-512). Each produces exactly the floats of the reference to_float in src/quant (same products, same order,
// no fused multiply-add), so results do not depend on the ISA. Formats without a fast path return nullptr and
// callers fall back to ggml_get_type_traits(type)->to_float.
#pragma once

#include "ggml.h"

#include <cstdint>

namespace switchyard::cpu::kernels {

// Converts n elements (a whole number of blocks) starting at x to floats in y.
using DequantRowFn = void (*)(const void * x, float * y, int64_t n);

// A level's fast dequantizers, by type (null where it has none).
struct DequantKernels {
    DequantRowFn by_type[GGML_TYPE_COUNT] = {};
    const char * isa                      = "scalar";
};

// The table for this CPU (capped by SWITCHYARD_CPU_ISA; the kernel registry's choice, kernel_registry.h);
// entries are null when the CPU has no fast path.
const DequantKernels & dequant_kernels();

// The fast dequantizer of type in table k, or nullptr.
DequantRowFn dequant_row(const DequantKernels & k, ggml_type type);

// Row conversion shared by the matrix and attention kernels: F32/F16/BF16 and every block format with a
// to_float. row_convertible says whether a type qualifies; row_to_float converts n elements of a row whose
// elements (or blocks) are adjacent, through the row converters and the fast dequantizers where they exist.
bool row_convertible(ggml_type type);
void row_to_float(ggml_type type, const void * src, float * dst, int64_t n);

// The n elements of such a row as floats: the row itself when type is F32 (no copy; buf may then be nullptr),
// else converted into buf (room for n floats).
inline const float * row_as_float(ggml_type type, const void * src, float * buf, int64_t n) {
    if (type == GGML_TYPE_F32) {
        return static_cast<const float *>(src);
    }
    row_to_float(type, src, buf, n);
    return buf;
}

// The levels' tables, which the kernel registry's columns hold (kernel_registry.h: dequant): the scalar one is
// empty (every format through to_float); dequant_avx2.cpp, dequant_avx512.cpp: call only when the CPU has the ISA.
const DequantKernels & dequant_kernels_scalar();
const DequantKernels & dequant_kernels_avx2();
const DequantKernels & dequant_kernels_avx512();

} // namespace switchyard::cpu::kernels
