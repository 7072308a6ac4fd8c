// One row per weight type the CPU's kernels know: its activation format (the q8 bytes upstream pairs it with,
// its vec_dot_type) and its integer GEMM form (gemm.h: group, bias, min term, super-block form). With the storage table
// (quant/types.h: block bytes and elements) this is everything the kernels of every level need to know about a
// type; they read it rather than repeat it. Each level's per-type code is a struct deriving from TypeRow<T>
// (kType, kBytes, kActBytes, kActQs, kHasMin, kPairs from the rows), and the level's kernel for a type is found by
// kernel_for<Formats...> (matvec_driver.h): no per-level switch over types.
//
// Code that treats every type of a form alike (the portable GEMM packer, the scalar matrix-vector level, the
// repacked layouts) visits the rows (with_type_row) and names no type.
//
// Adding a type with CPU kernels: its row here, then its struct in the levels that have a kernel for it.
// type_rows_test checks every type with a CPU matrix-vector kernel has a row.
#pragma once

#include "quant/blocks.h"
#include "quant/types.h"

#include "ggml.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

namespace switchyard::cpu::quants {

// How CPU_REPACK stores a type's weights, 16 rows interleaved per panel (repack/pack.h), or kNone: not repacked.
enum class RepackForm : uint8_t {
    kNone,
    kNibbles,  // 4-bit levels of 32-element blocks (q4_0, q4_1, q5_0, q5_1, iq4_nl, mxfp4) with their scales
    kBytes,    // 8-bit levels of 32-element blocks (q8_0)
    kQ2KBlocks, // whole q2_K super-blocks: 2-bit levels, 4-bit scales and mins per 16
    kQ3KBlocks, // whole q3_K super-blocks: 2-bit levels and their third bits, scales per 16
    kQ4KBlocks, // whole q4_K super-blocks: levels, 6-bit scales and mins
    kQ5KBlocks, // whole q5_K super-blocks: q4_K's, plus the levels' fifth bits
    kQ6KBlocks, // whole q6_K super-blocks: 6-bit levels as nibbles and 2-bit highs, int8 scales per 16
    kIQ4XSBlocks, // whole iq4_xs super-blocks: table nibbles as iq4_nl's, signed 6-bit scales per 32
    kTQ2Blocks, // tq2_0: the 2-bit trits of all super-blocks, then their d (one per row and 256 elements)
    kTQ1Blocks, // tq1_0: its base-3 bytes (five trits a byte) of all super-blocks, then their d
    kRows,      // iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m: the 16 rows' own bytes, expanded per product
    kFloats     // f32, f16, bf16: the values as they are, 16 rows interleaved (bf16 in pairs)
};

struct CpuTypeRow {
    ggml_type  type             = GGML_TYPE_COUNT;
    ggml_type  act              = GGML_TYPE_COUNT; // activation format (upstream's vec_dot_type)
    int        gemm_group       = 0;     // integer GEMM: elements per group (32, or 16 where scales are per 16); 0: none
    int        gemm_bias        = 0;     // subtracted from the unsigned levels (gemm.h)
    bool       has_min          = false; // the format has a min term (q4_1, q5_1, q2_K, q4_K, q5_K)
    bool       gemm_superblocks = false; // the AMX tile sums whole super-blocks (integer sub-block scales, gemm.h)
    bool       upstream_pairs   = false; // upstream's matrix-vector sums alternate two sets of lanes per block pair
    RepackForm repack           = RepackForm::kNone;
};

inline constexpr CpuTypeRow kCpuTypeRows[] = {
    // type, activation; GEMM group, bias, min term, super-blocks; upstream's pairs, repacked form
    {GGML_TYPE_F32, GGML_TYPE_F32, 0, 0, false, false, false, RepackForm::kFloats},
    {GGML_TYPE_F16, GGML_TYPE_F16, 0, 0, false, false, false, RepackForm::kFloats},
    {GGML_TYPE_BF16, GGML_TYPE_BF16, 0, 0, false, false, false, RepackForm::kFloats},
    {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, 32, 8, false, false, false, RepackForm::kNibbles},
    {GGML_TYPE_Q4_1, GGML_TYPE_Q8_1, 32, 0, true, false, false, RepackForm::kNibbles},
    {GGML_TYPE_Q5_0, GGML_TYPE_Q8_0, 32, 16, false, false, false, RepackForm::kNibbles},
    {GGML_TYPE_Q5_1, GGML_TYPE_Q8_1, 32, 0, true, false, false, RepackForm::kNibbles},
    {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0, 32, 128, false, false, false, RepackForm::kBytes},
    {GGML_TYPE_Q8_1, GGML_TYPE_Q8_1},
    {GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0, 32, 128, false, false, true, RepackForm::kNibbles},
    {GGML_TYPE_MXFP4, GGML_TYPE_Q8_0, 32, 12, false, false, true, RepackForm::kNibbles},
    {GGML_TYPE_NVFP4, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q1_0, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q2_0, GGML_TYPE_Q8_0},
    {GGML_TYPE_Q2_K, GGML_TYPE_Q8_K, 16, 0, true, false, false, RepackForm::kQ2KBlocks},
    {GGML_TYPE_Q3_K, GGML_TYPE_Q8_K, 16, 4, false, false, false, RepackForm::kQ3KBlocks},
    {GGML_TYPE_Q4_K, GGML_TYPE_Q8_K, 32, 0, true, true, false, RepackForm::kQ4KBlocks},
    {GGML_TYPE_Q5_K, GGML_TYPE_Q8_K, 32, 0, true, true, false, RepackForm::kQ5KBlocks},
    {GGML_TYPE_Q6_K, GGML_TYPE_Q8_K, 16, 32, false, true, false, RepackForm::kQ6KBlocks},
    {GGML_TYPE_Q8_K, GGML_TYPE_Q8_K},
    {GGML_TYPE_IQ2_XXS, GGML_TYPE_Q8_K, 32, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ2_XS, GGML_TYPE_Q8_K, 16, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ2_S, GGML_TYPE_Q8_K, 16, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ3_XXS, GGML_TYPE_Q8_K, 32, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ3_S, GGML_TYPE_Q8_K, 32, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ1_S, GGML_TYPE_Q8_K, 32, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ1_M, GGML_TYPE_Q8_K, 16, 128, false, false, false, RepackForm::kRows},
    {GGML_TYPE_IQ4_XS, GGML_TYPE_Q8_K, 32, 128, false, false, false, RepackForm::kIQ4XSBlocks},
    {GGML_TYPE_TQ1_0, GGML_TYPE_Q8_K, 32, 1, false, false, false, RepackForm::kTQ1Blocks},
    {GGML_TYPE_TQ2_0, GGML_TYPE_Q8_K, 32, 1, false, false, false, RepackForm::kTQ2Blocks},
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
    static constexpr bool      kPairs    = kRow.upstream_pairs;
};

// Code generic over the rows: calls f.template operator()<T>() with T = t when t has a row, and says whether it
// has one. The body sees its type's row (cpu_type_row(T)) and block struct (quant::BlockOf<T>) at compile time
// and takes the branch its facts choose (if constexpr), so a site that treats every type of a form alike names
// none of them: a new type with a row reaches it without an edit there.
template <class F>
constexpr bool with_type_row(ggml_type t, F && f) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
        return ((kCpuTypeRows[I].type == t ? (f.template operator()<kCpuTypeRows[I].type>(), true) : false) || ...);
    }(std::make_index_sequence<std::size(kCpuTypeRows)>{});
}

} // namespace switchyard::cpu::quants
