// The CPU kernel registry: every kernel family's entry per ISA level, and the one selector that chooses among them.
// (Not reg.cpp, which is the backend's ggml_backend_reg.)
//
// The registry is a table of columns, one per ISA level (base/cpuid.h: IsaLevel). A column (IsaColumn) holds that
// level's entry of every family: the row-function tables of the element-wise ops, softmax, rope and the attention
// tile, the float dot products, the fast dequantizers, per weight type the matrix-vector kernel and the float GEMM,
// the integer GEMM's packer and tiles, the repacked layout's expander and tiles. An entry is null where the level
// has none of its own. Each level's column is one function in one file, src/cpu/columns/<level>.cpp; on an
// architecture without that level the function returns an empty column (its #if is inside it, never around the
// table), so adding a level (aarch64's NEON) is one enumerator and one column.
//
// The selector takes, for a family (and a weight type where the family is keyed by one), the entry of the highest
// level this CPU supports (after SWITCHYARD_CPU_ISA) whose column has one. Families differ only in what the scalar
// column holds:
//   - always there (row_kernels, softmax_rows, rope_rows, attn_tiles, dots, dequant, matvec for every type that has
//     an activation format, gemm_pack, repack_expand, act_q8_K): the selection never comes back empty;
//   - fast paths only (gemm_tile, gemm_tile_amx and its packer gemm_pack_amx, gemm_float, gemm_float_amx,
//     repack_tile, repack_float_tile): the scalar column has none, and an empty selection means "this CPU has no such path" (the
//     caller then takes another route).
// Selecting loops over the columns: callers keep the result in a static, so the hot paths pay nothing.
//
// Calling an entry runs its level's code (getters included: they build their tables there), so an entry is only
// called where its level is supported; the selector checks that before it calls a type-keyed column function.
// Thread-safe: the columns are built once, on first use.
#pragma once

#include "base/cpuid.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/quants/matvec.h"
#include "cpu/repack/format.h"
#include "cpu/simd/isa.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace switchyard::cpu {

namespace kernels {
struct RowKernels;
struct SoftmaxRows;
struct RopeRows;
struct AttnTileKernels;
struct DotKernels;
struct DequantKernels;
} // namespace kernels

// The integer GEMM's packer of one level (quants/gemm.h: gemm_pack): false, with nothing written, where it declines
// the type or k; the next lower level's packer is then tried.
using GemmPackFn = bool (*)(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);

// The repacked layout's expander of one level (repack/format.h: expand_panel).
using ExpandPanelFn = void (*)(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel);

// One ISA level's kernels, family by family; nullptr where the level has none of its own.
struct IsaColumn {
    // Tables of row functions (kernels/): getters, each building its level's table on first call.
    const kernels::RowKernels & (*row_kernels)()       = nullptr; // element-wise rows (row_kernels.h)
    const kernels::SoftmaxRows & (*softmax_rows)()     = nullptr; // reduce/softmax_rows.h
    const kernels::RopeRows & (*rope_rows)()           = nullptr; // rope/rope_rows.h
    const kernels::AttnTileKernels & (*attn_tiles)()   = nullptr; // flash_attn/tile.h
    const kernels::DotKernels & (*dots)()              = nullptr; // float dots of mul_mat (mul_mat/dot.h)
    const kernels::DequantKernels & (*dequant)()       = nullptr; // mul_mat/dequant.h; scalar: the empty table

    // Keyed by weight type: the level's kernel for `weight`, nullptr where it has none.
    quants::MatVecFn (*matvec)(ggml_type weight)                        = nullptr; // quants/matvec.h
    const quants::FloatGemmKernels * (*gemm_float)(ggml_type weight)     = nullptr; // quants/gemm_float.h
    // the AMX float tiles, which take rows of k a multiple of quants::kGemmAmxBlock only (else gemm_float's)
    const quants::FloatGemmKernels * (*gemm_float_amx)(ggml_type weight) = nullptr;

    // The integer GEMM (quants/gemm.h) and the repacked weights (repack/format.h).
    GemmPackFn         gemm_pack     = nullptr; // may decline a call (above); scalar: the portable packer
    quants::GemmTileFn gemm_tile     = nullptr; // int8 tile on 8-column chunks
    quants::GemmTileFn gemm_tile_amx = nullptr; // int8 tile on AMX (32-column chunks, two panels)
    GemmPackFn         gemm_pack_amx = nullptr; // its panels (quants/gemm.h: gemm_pack_amx); never declines
    ExpandPanelFn      repack_expand = nullptr; // scalar: the portable expander
    quants::ActConvert act_q8_K      = nullptr; // q8_K activations (quants/act_quant.h); scalar: the reference
    repack::TileFn     repack_tile   = nullptr;
    // keyed by weight type: the repacked float form's tile (repack/format.h: float_tile)
    repack::FloatTileFn (*repack_float_tile)(ggml_type weight) = nullptr;
};

// The columns, one function per level (src/cpu/columns/<level>.cpp); each returns an empty column where this
// architecture has no such level.
IsaColumn scalar_column();
IsaColumn avx2_column();
IsaColumn avx512_column();
IsaColumn avx512vnni_column();
IsaColumn avx512bf16_column();
IsaColumn amx_column();
IsaColumn neon_column();

// The column of `level` (< IsaLevel::kCount), built once.
const IsaColumn & isa_column(IsaLevel level);

constexpr IsaLevel kTopIsaLevel = static_cast<IsaLevel>(kIsaLevelCount - 1);

// The level the selector takes for `family`: the highest level at or below `limit` that this CPU supports and whose
// column has an entry; IsaLevel::kCount when none does.
template <class Entry>
IsaLevel selected_level(Entry IsaColumn::*family, IsaLevel limit = kTopIsaLevel) {
    for (int i = static_cast<int>(limit); i >= 0; --i) {
        const auto level = static_cast<IsaLevel>(i);
        if (simd::isa_supported(level) && isa_column(level).*family != nullptr) {
            return level;
        }
    }
    return IsaLevel::kCount;
}

// The same for a family keyed by weight type: the column's function gives an entry for `weight`.
template <class Entry>
IsaLevel selected_level(Entry (*IsaColumn::*family)(ggml_type), ggml_type weight, IsaLevel limit = kTopIsaLevel) {
    for (int i = static_cast<int>(limit); i >= 0; --i) {
        const auto level = static_cast<IsaLevel>(i);
        if (!simd::isa_supported(level)) {
            continue; // the column's function runs its level's code
        }
        const auto per_type = isa_column(level).*family;
        if (per_type != nullptr && per_type(weight) != nullptr) {
            return level;
        }
    }
    return IsaLevel::kCount;
}

// The selected entry (nullptr when no level has one).
template <class Entry>
Entry select_kernel(Entry IsaColumn::*family, IsaLevel limit = kTopIsaLevel) {
    const IsaLevel level = selected_level(family, limit);
    return level == IsaLevel::kCount ? nullptr : isa_column(level).*family;
}

template <class Entry>
Entry select_kernel(Entry (*IsaColumn::*family)(ggml_type), ggml_type weight, IsaLevel limit = kTopIsaLevel) {
    const IsaLevel level = selected_level(family, weight, limit);
    return level == IsaLevel::kCount ? nullptr : (isa_column(level).*family)(weight);
}

// select_kernel for every weight type, indexed by ggml_type.
template <class Entry>
std::array<Entry, GGML_TYPE_COUNT> select_kernel_per_type(Entry (*IsaColumn::*family)(ggml_type)) {
    std::array<Entry, GGML_TYPE_COUNT> table{};
    for (int type = 0; type < GGML_TYPE_COUNT; ++type) {
        table[static_cast<size_t>(type)] = select_kernel(family, static_cast<ggml_type>(type));
    }
    return table;
}

// For a family whose entries may decline a call (gemm_pack): the entries of every supported level that has one,
// highest first, then nullptr. The caller tries them in order.
template <class Entry>
std::array<Entry, kIsaLevelCount> select_kernel_chain(Entry IsaColumn::*family) {
    std::array<Entry, kIsaLevelCount> chain{};
    size_t                            n = 0;
    for (int i = static_cast<int>(kTopIsaLevel); i >= 0; --i) {
        const auto level = static_cast<IsaLevel>(i);
        if (simd::isa_supported(level) && isa_column(level).*family != nullptr) {
            chain[n++] = isa_column(level).*family;
        }
    }
    return chain;
}

} // namespace switchyard::cpu
