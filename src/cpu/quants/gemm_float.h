// Float GEMM of the CPU backend: f32, f16 and bf16 weights times many activation columns, on the same plan as the
// integer GEMM (gemm.h): weights packed sixteen rows at a time into panels, activations twelve (f32, f16), eight
// (bf16) or, on AMX, 32 (bf16) columns at a time into chunks, a tile of 16 or 32 rows x a chunk's columns. With
// FMA / vdpbf16ps the tile accumulates in zmm registers (an outer product per step: one load per panel, one
// broadcast per column; with twelve columns and two panels each panel load feeds 12 FMAs: measured on one core
// with the panels streamed from L2 (k = 4096), 32 x 12 reaches 228 GFLOP/s where 32 x 8 reaches 179); on AMX in
// four 16 x 16 tile accumulators (gemm_float_amx.cpp). On NEON (gemm_float_neon.cpp, f32 and f16) the same panels
// and chunks, the tile in passes of 16 rows x 4 columns (16 float32x4 accumulators of the 32 registers).
//
//   weights  panel per step                        chunk                                      tile (per step)
//   f32      k steps of 16 floats (lane r: row r)  k steps of 12 floats                       12 FMA per panel
//   f16      the same, converted to f32 at packing the activations rounded through f16, same   12 FMA per panel
//   bf16     k / 2 steps of 16 bf16 pairs          k / 2 steps of 8 bf16 pairs                8 vdpbf16ps
//   bf16 AMX the same (16 steps: one AMX B tile)   per 32 elements, 32 columns x 32 bf16      4 tdpbf16ps per 32
//   f16 AMX  per 32 elements a hi and a lo B tile  per 32 elements, 16 columns' hi, then lo    8 tdpbf16ps per 32
//
// The activations are rounded as upstream rounds them for the weight type (its vec_dot_type: f16 for f16 weights,
// bf16 for bf16 ones, none for f32), so the products are the matrix-vector path's to float rounding. k must be
// even for f16 and bf16 (pairs are packed together); AMX takes bf16 and f16 weights whose k is a multiple of 32
// (f16 split exactly into bf16 hi and lo parts: gemm_float_amx.cpp).
#pragma once

#include "cpu/quants/gemm.h"

#include <cstdint>

namespace switchyard::cpu::quants {

constexpr int kGemmFloatCols = 12; // activation columns per chunk of the f32 / f16 tiles
constexpr int kGemmAmxCols    = 32; // activation columns per chunk of the AMX bf16 tile
constexpr int kGemmAmxF16Cols = 16; // activation columns per chunk of the AMX f16 tile
constexpr int kGemmAmxBlock   = 32; // elements per k block of the AMX tiles

// true when this CPU has a float tile for `weight` (F32 / F16 at AVX-512 or NEON, BF16 at AVX-512 BF16: the kernel
// registry's gemm_float, cpu/kernel_registry.h).
bool gemm_float_available(ggml_type weight);

// true when `weight` rows of k elements run on an AMX tile (BF16 or F16, k a multiple of kGemmAmxBlock, the CPU at
// the AMX level: the registry's gemm_float_amx).
bool gemm_float_amx(ggml_type weight, int64_t k);

// Activation columns per chunk (and at most per tile call): kGemmFloatCols for f32 / f16, kGemmMaxCols for bf16,
// kGemmAmxCols for bf16 on AMX, kGemmAmxF16Cols for f16 on AMX.
int gemm_float_cols(ggml_type weight, int64_t k);

// Panels one tile call takes (GemmTileArgs::panel2): 2, or 1 for the vdpbf16ps tile.
int gemm_float_panels_per_tile(ggml_type weight, int64_t k);

size_t gemm_float_panel_bytes(ggml_type weight, int64_t k);
size_t gemm_float_chunk_bytes(ggml_type weight, int64_t k);

// The AMX f16 tile's split of an f16 value v (held in a float) into bf16 bits hi and lo: hi is v's top 16 bits (a
// NaN kept quiet), lo the exact rest v - hi, so that a product is hi*hi' + hi*lo' + lo*hi' + lo*lo'. Where that rest
// is zero but v is not (v has at most 8 significant bits), or v is infinite, lo is instead 2^-126 with v's sign:
// otherwise an infinity in the other operand would meet a zero lo and make a NaN where upstream's f16 product is
// an infinity; the extra terms are at most 2^-126 * 65504 and 2^-102 of the true term (hi*lo' and lo*hi' of the
// tiny part), far below float rounding. v = 0 keeps lo = 0 (0 * inf stays NaN, as upstream).
void gemm_float_split_f16(float v, uint16_t * hi, uint16_t * lo);

// As gemm_pack (rows 1..16, missing rows zero); the rows' elements adjacent, w_row a multiple of the element size.
void gemm_float_pack(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);

// Column `col` (0..gemm_float_cols(weight, k) - 1) of a chunk from k floats, rounded as the weight type's activations are.
void gemm_float_activation(ggml_type weight, const float * x, int64_t k, void * chunk, int col);

// As the integer tile (GemmTileArgs; panel and chunk in the float layouts above).
void gemm_float_tile(ggml_type weight, const GemmTileArgs & a);

// One level's float GEMM for a weight type, as the kernel registry holds it (kernel_registry.h: gemm_float,
// gemm_float_amx): the panel packer (as gemm_float_pack) and the tile (as gemm_float_tile).
struct FloatGemmKernels {
    void (*pack)(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
    void (*tile)(const GemmTileArgs & a);
};

// The levels' packers and tiles, which the registry's columns hold (x86-64, then aarch64).
// gemm_float_avx512.cpp (F32, F16) and gemm_float_avx512bf16.cpp (BF16); call only where the level is supported
void gemm_float_pack_avx512(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_float_tile_avx512(const GemmTileArgs & a);
void gemm_float_pack_avx512bf16(const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_float_tile_avx512bf16(const GemmTileArgs & a);
// gemm_float_amx.cpp: the AMX level (bf16; f16's panel of hi / lo tiles and its tile)
void gemm_float_tile_amx(const GemmTileArgs & a);
void gemm_float_pack_amx_f16(const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_float_tile_amx_f16(const GemmTileArgs & a);
// gemm_float_neon.cpp (aarch64 only): F32 and F16 (converted to f32 at packing); each output one chain of fused
// multiply-adds in k order
void gemm_float_pack_neon(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_float_tile_neon(const GemmTileArgs & a);

} // namespace switchyard::cpu::quants
