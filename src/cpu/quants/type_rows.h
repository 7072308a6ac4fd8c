// One row per weight type the CPU's kernels know: its activation format (the q8 bytes upstream pairs it with,
// its vec_dot_type) and its integer GEMM form (gemm.h: group, bias, min term, super-block form). With the storage table
// (quant/types.h: block bytes and elements) this is everything the kernels of every level need to know about a
// type; they read it rather than repeat it. Each level's per-type code is a struct deriving from TypeRow<T>
// (kType, kBytes, kActBytes, kActQs, kHasMin from the rows), and the level's kernel for a type is found by
// kernel_for<Formats...> (matvec_driver.h): no per-level switch over types.
//
// Adding a type with CPU kernels: its row here, then its struct in the levels that have a kernel for it.
// type_rows_test checks every type with a CPU matrix-vector kernel has a row.
#pragma once

#include "quant/types.h"

#include "ggml.h"

#include <cstddef>

namespace switchyard::cpu::quants {

struct CpuTypeRow {
    ggml_type type             = GGML_TYPE_COUNT;
    ggml_type act              = GGML_TYPE_COUNT; // activation format (upstream's vec_dot_type)
    int       gemm_group       = 0;     // integer GEMM: elements per group (32, or 16 where scales are per 16); 0: none
    int       gemm_bias        = 0;     // subtracted from the unsigned levels (gemm.h)
    bool      has_min          = false; // the format has a min term (q4_1, q5_1, q2_K, q4_K, q5_K)
    bool      gemm_superblocks = false; // the AMX tile sums whole super-blocks (integer sub-block scales, gemm.h)
};

inline constexpr CpuTypeRow kCpuTypeRows[] = {
    // type              activation        GEMM group, bias, min, super-blocks
    {GGML_TYPE_F32, GGML_TYPE_F32},
    {GGML_TYPE_F16, GGML_TYPE_F16},
    {GGML_TYPE_BF16, GGML_TYPE_BF16},
    {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, 32, 8, false},
    {GGML_TYPE_Q4_1, GGML_TYPE_Q8_1, 32, 0, true},
    {GGML_TYPE_Q5_0, GGML_TYPE_Q8_0, 32, 16, false},
    {GGML_TYPE_Q5_1, GGML_TYPE_Q8_1, 32, 0, true},
    {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0, 32, 128, false},
    {GGML_TYPE_Q8_1, GGML_TYPE_Q8_1},
    {GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0, 32, 128, false},
    {GGML_TYPE_MXFP4, GGML_TYPE_Q8_0, 32, 12, false},
    {GGML_TYPE_NVFP4, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q1_0, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q2_0, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q2_K, GGML_TYPE_Q8_K, 16, 0, true},
    {GGML_TYPE_Q3_K, GGML_TYPE_Q8_K, 16, 4, false},
    {GGML_TYPE_Q4_K, GGML_TYPE_Q8_K, 32, 0, true, true},
    {GGML_TYPE_Q5_K, GGML_TYPE_Q8_K, 32, 0, true, true},
    {GGML_TYPE_Q6_K, GGML_TYPE_Q8_K, 16, 32, false, true},
    {GGML_TYPE_Q8_K, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ2_XXS, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ2_XS, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ2_S, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ3_XXS, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ3_S, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ1_S, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ1_M, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ4_XS, GGML_TYPE_Q8_K},
    {GGML_TYPE_TQ1_0, GGML_TYPE_Q8_K},
    {GGML_TYPE_TQ2_0, GGML_TYPE_Q8_K},
};

// The row of type t (type GGML_TYPE_COUNT when it has none).
constexpr CpuTypeRow cpu_type_row(ggml_type t) {
    for (const CpuTypeRow & r : kCpuTypeRows) {
        if (r.type == t) {
            return r;
        }
    }
    return {};
}

// The facts of type T every level's struct for it starts from.
template <ggml_type T>
struct TypeRow {
    static constexpr CpuTypeRow kRow = cpu_type_row(T);
    static_assert(kRow.type == T, "every type with a kernel has a row in kCpuTypeRows");

    static constexpr ggml_type kType     = T;
    static constexpr size_t    kBytes    = kTypeTable[T].type_size;           // one weight block
    static constexpr size_t    kActBytes = kTypeTable[kRow.act].type_size;    // one activation block
    static constexpr size_t    kActQs    = kRow.act == GGML_TYPE_Q8_0 ? 2 : 4; // where its levels start (after d, s)
    static constexpr bool      kHasMin   = kRow.has_min;
};

} // namespace switchyard::cpu::quants
