// Integer GEMM of the CPU backend for quantized weights times many activation columns (prompt processing,
// batches): upstream's products (the weights' integer levels times the activations' q8 levels, scaled per block),
// computed as int8 tiles on AVX-512 VNNI, AMX or NEON.
//
// Every supported weight format is brought to one form, a group of G elements (32, or 16 for the K-quants whose
// scales are per 16: q2_K, q3_K, q6_K) being
//
//     element = s * (u - bias) + m        u: unsigned level 0..255, s: scale, m: min term (0 without a min)
//
// where bias is a constant of the format (8 for q4_0, 128 for q8_0, 32 for q6_K, ...) that makes the format's
// signed levels unsigned: vpdpbusd multiplies unsigned by signed bytes. Weights are packed sixteen rows at a time
// into panels: per group, the levels as [G / 4 quads][16 rows][4 bytes] (one zmm per quad: lane r = row r), then
// the 16 scales and the 16 min terms as floats. Activations are the q8 levels of the format upstream pairs with
// the weight type (act_quant.h: q8_0, q8_1 or q8_K, the same bytes), eight columns interleaved the same way: per
// group, [G / 4 quads][8 columns][4 bytes], then per column the float scale da and one auxiliary word: -bias *
// sum(q) as an int32 for the formats without a min (the accumulator starts there, so the biased product is exact
// in integers, as upstream's), or for the formats with a min the float that multiplies the min term: sum(q) with
// q8_K activations (q2_K, q4_K, q5_K), q8_1's fp16 s = da * sum(q) for q4_1 / q5_1, as upstream uses it.
//
// Per (row, column, group): dot += s * da * (sum(u * q) - bias * sum(q)) + m * da * sum(q): the product of the
// dequantized weights and the dequantized activations up to float rounding.
//
// The float order. With q8_0 / q8_1 activations (one da per group) each group is scaled into the output:
// out += float(sum) * (s * da), then out += m * min_sum. With q8_K activations (one da per 256 elements: the
// K-quants, the i-quants, the ternary types; gemm_scales_per_superblock) the groups of a super-block are summed
// first, t += float(sum) * s, then t += m * float(sum(q)) (the min_sum word holds the plain sum(q) there), and the
// super-block once: out += t * da, with da the super-block's first group's. That saves the per-group product s * da
// of every column: on a Zen 5 core the tile alone ran 1.1 (q4_K), 1.2 (iq4_xs) and 1.5 (q6_K, groups of 16) x faster.
// Every tile of a format (the GEMM's, the repacked layout's, portable and vector) computes one order, so a product is
// the same bits in any batch; the vector tiles fuse each multiply-add where the portable tile rounds twice (x86-64's
// baseline has no FMA), the NEON tiles round as the portable one.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::cpu::quants {

constexpr int kGemmRows    = 16; // weight rows per panel (one zmm of int32 / float lanes)
constexpr int kGemmMaxCols = 8;  // activation columns per tile call

struct GemmFormat {
    ggml_type act_type = GGML_TYPE_COUNT; // q8_0 / q8_1 / q8_K; GGML_TYPE_COUNT: not supported
    int       group    = 0;               // G: 32 or 16
    int       bias     = 0;               // subtracted from u
    bool      has_min  = false;           // the min term m is used (q4_1, q5_1, q2_K, q4_K, q5_K)
    // integer group scales under one d per 256 whose products with the levels fit in 13 bits (q4_K, q5_K, q6_K):
    // the AMX tile's super-block form (below)
    bool superblocks = false;
};

// The form of `weight` (act_type GGML_TYPE_COUNT when the type has none).
GemmFormat gemm_format(ggml_type weight);

// Whether the tiles scale the format's groups per super-block (the float order above): its activations are q8_K.
constexpr bool gemm_scales_per_superblock(const GemmFormat & f) { return f.act_type == GGML_TYPE_Q8_K; }
constexpr int  kGemmSuperblock = 256; // elements of one q8_K scale

// Bytes of one packed group of 16 rows, of one panel for k elements, and of one chunk of 8 activation columns (of
// chunk_cols: a narrow chunk, below).
size_t gemm_group_bytes(const GemmFormat & f);
size_t gemm_panel_bytes(const GemmFormat & f, int64_t k);
size_t gemm_chunk_bytes(const GemmFormat & f, int64_t k, int chunk_cols = kGemmMaxCols);

// Packs `rows` (1..16) weight rows of k elements (w: row 0, w_row bytes apart) into a panel; missing rows are
// zero. k is a whole number of the type's blocks. gemm_pack takes the vector packer where the CPU has one for the
// type, gemm_pack_portable never: both write the same bytes.
void gemm_pack(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_pack_portable(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);

// Converts one activation row of k floats to column `col` (0..7) of a chunk (through act_type's bytes,
// act_quant.h). scratch: ggml_row_size(act_type, k) bytes. chunk_cols: the columns the chunk interleaves, 8, or 1..7
// for a narrow chunk of that many columns (col < chunk_cols; per group [G / 4][chunk_cols][4] levels and chunk_cols
// pairs): what the repacked layout's tiles read for fewer than 8 columns (decoding: 1/8 of the bytes,
// repack/format.h); the GEMM's own tiles read chunks of 8.
void gemm_activation(const GemmFormat & f, const float * x, int64_t k, void * scratch, void * chunk, int col,
                     int chunk_cols = kGemmMaxCols);

// out[r + c * out_col] = dot(panel row r, column c of the chunk) for r < rows, c < n_cols (1..kGemmMaxCols; the
// f32 / f16 tiles 1..kGemmFloatCols, the AMX bf16 tile 1..kGemmAmxCols, gemm_float.h). The
// tile function of one ISA level (nullptr where the level has none).
struct GemmTileArgs {
    const void * panel;
    int64_t      k;
    const void * chunk;
    int          n_cols;
    int          rows;
    float *      out;
    int64_t      out_col;
    // a second panel (the next 16 rows, rows2 of them, results at out + 16) multiplied in the same pass, so that
    // each broadcast activation feeds two FMAs (float tiles) or two vpdpbusd (the AVX-512 VNNI integer tile); the
    // other integer tiles take it as a second one-panel call (gemm_second_panel). nullptr for one panel. Not read
    // by the repacked layout's tiles (repack/format.h)
    const void * panel2 = nullptr;
    int          rows2  = 0;
    // the columns the chunk interleaves (gemm_activation): 8, or for the repacked layout's tiles 1..7 (a narrow
    // chunk; n_cols is then chunk_cols); the GEMM's tiles take 8 only
    int chunk_cols = kGemmMaxCols;
};
using GemmTileFn = void (*)(const GemmFormat & f, const GemmTileArgs & a);

// Bytes of packed panels a GEMM pass keeps per thread (the panels then meet every chunk of columns): half this
// core's L2 (sysconf), 256 KiB .. 1 MiB; 1 MiB where the size is unknown.
size_t gemm_pass_bytes();

// Makes `a` a two-panel call: panel2 the next 16 rows' panel, of which rows_left (the rows of the matrix after a's
// panel) are weights.
inline void gemm_set_second_panel(GemmTileArgs & a, const void * panel2, int64_t rows_left) {
    a.panel2 = panel2;
    a.rows2  = static_cast<int>(rows_left < kGemmRows ? rows_left : kGemmRows);
}

// The second panel of a two-panel call as a one-panel call (its rows at out + 16).
inline GemmTileArgs gemm_second_panel(const GemmTileArgs & a) {
    GemmTileArgs b = a;
    b.panel        = a.panel2;
    b.rows         = a.rows2;
    b.out          = a.out + kGemmRows;
    b.panel2       = nullptr;
    b.rows2        = 0;
    return b;
}

// The portable tile (the reference the vector tiles are tested against) and the one this CPU runs (nullptr when
// no level faster than the matrix-vector kernels exists: the GEMM is then not used). Chosen by the kernel registry
// (kernel_registry.h: gemm_tile).
void gemm_tile_scalar(const GemmFormat & f, const GemmTileArgs & a);
GemmTileFn gemm_tile_fast();

// A column's pair of one group as the vector tiles read it: da, then the int32 -bias * sum(q) or the float min_sum
// (by bits; above) (gemm.cpp's ColumnAux, the same 8 bytes).
struct GemmColumnAux {
    float   da;
    int32_t word;
};

// AMX (gemm_amx.cpp): the same panels as AMX B tiles (a group's G / 4 quads of 16 rows x 4 bytes), but with
// signed levels u - bias (gemm_pack_amx), times activation chunks of 32 columns laid out as two A tiles: per
// group, 32 columns x G int8 levels, then the 32 columns' (da, aux word) pairs as above (the int32 word unused: the
// bias is out of the levels; the min term's word is da * sum(q) for every format). A tile call takes up to two
// panels (GemmTileArgs::panel2) and up to 32 columns; per group one tdpbssd per (panel, 16 columns), their 16 x 16
// int32 sums scaled into float accumulators group by group (the q8_0 / q8_1 order above, for every format: past 32
// columns on AMX the products are not the VNNI tiles' bits, as the super-block form's are not either).
constexpr int kGemmAmxIntCols = 32;

// The AMX tile's panel (gemm_amx_panel_bytes): as gemm_pack, then each level made signed (u - bias, two's
// complement); the super-block form below for the formats it covers. The AMX column's packer (kernel_registry.h:
// gemm_pack_amx): call only where gemm_int_amx().
void gemm_pack_amx(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
size_t gemm_amx_panel_bytes(const GemmFormat & f, int64_t k);

// The super-block form (gemm_superblocks_amx.cpp), for the formats with GemmFormat::superblocks: the tile sums a
// whole super-block in integers (the levels multiplied by their scales at packing, split into a low and a high
// byte) and scales it once. Per super-block, a panel holds the low-byte B tiles [4 steps of 64][16 quads][16 rows][4
// bytes], the high-byte ones likewise, d (16 floats) and the min terms -dmin * min ([8 groups of 32][16 rows]
// floats, zero without a min); a chunk the 32 columns' q8_K levels ([32][256] bytes: A tiles of stride 256), their
// da (32 floats) and da * sum(q) per group of 32 ([8][32 columns] floats).
constexpr size_t kGemmAmxSbPanelBytes = 2 * 4 * 64 * kGemmRows + kGemmRows * sizeof(float) * 9;
constexpr size_t kGemmAmxSbChunkBytes = kGemmAmxIntCols * 256 + kGemmAmxIntCols * sizeof(float) * 9;
// (gemm_pack_amx_int's and gemm_tile_amx_int's part for these formats)
void gemm_pack_amx_superblocks(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_tile_amx_superblocks(const GemmFormat & f, const GemmTileArgs & a);

// The AMX tile this CPU runs (nullptr without the AMX level; kernel_registry.h: gemm_tile_amx), and whether it has one.
GemmTileFn gemm_tile_amx();
bool       gemm_int_amx();
size_t gemm_amx_chunk_bytes(const GemmFormat & f, int64_t k);
// As gemm_activation, into column col (0..31) of an AMX chunk.
void gemm_activation_amx(const GemmFormat & f, const float * x, int64_t k, void * scratch, void * chunk, int col);

// The levels' tiles and packer, which the registry's columns hold (x86-64 only).
void gemm_tile_amx_int(const GemmFormat & f, const GemmTileArgs & a); // gemm_amx.cpp: call only where gemm_int_amx()
// gemm_amx.cpp: the AMX tile's packer (gemm_pack_amx's bytes; always true)
bool gemm_pack_amx_int(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void gemm_tile_avx512vnni(const GemmFormat & f, const GemmTileArgs & a); // gemm_avx512vnni.cpp
// gemm_pack_avx512vnni.cpp: false (nothing written) for the types it does not pack and k not a multiple of 256
bool gemm_pack_avx512vnni(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel);

// The NEON level's tiles (aarch64 only; gemm_tile_neon.h): the portable tile's results bit for bit. The column takes
// the dotprod one where the CPU has the int8 dot product (base/cpuid.h: CpuFeatures::dotprod); call it only there.
void gemm_tile_neon(const GemmFormat & f, const GemmTileArgs & a);         // gemm_neon.cpp
void gemm_tile_neon_dotprod(const GemmFormat & f, const GemmTileArgs & a); // gemm_neon_dotprod.cpp

} // namespace switchyard::cpu::quants
