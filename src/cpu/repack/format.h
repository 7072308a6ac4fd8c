// Weights repacked at load time (the CPU_REPACK buffer type, buffer_type.h): 2-D q4_0, q8_0, iq4_nl, mxfp4, q2_K,
// q3_K, q4_K, q5_K, q6_K, iq4_xs, tq1_0, tq2_0 (and f32, f16, bf16, and the rows form's i-quants, below) weights
// stored as 16-row panels that the integer GEMM's tiles (src/cpu/quants/gemm.h) read directly, without packing per
// call, and nearly as small as the original type (4-bit levels stay nibbles).
//
// A panel holds rows 16p .. 16p + 15 of the matrix (missing rows of the last panel are zero) for all k columns.
// Levels are those of the GEMM's form (gemm.h: u unsigned, element = s * (u - bias) + m) and are laid out so that
// one 64-byte load holds a quad (four consecutive elements) of all 16 rows: byte 4r + b is row r, element b of
// the quad; lane r of a zmm is row r.
//
//   q4_0, iq4_nl   per group of 32 elements, 4 nibble vectors of 64 bytes: vector j holds quad j (elements 4j ..
//                  4j + 3) in its low nibbles and quad j + 4 (elements 16 + 4j ..) in its high ones -- for q4_0
//                  this is byte qs[4j + b] of the row's block unchanged; iq4_nl keeps its 4-bit indices (u =
//                  kIq4nlValues[index] + 128, mapped in registers). The panel is all groups' levels (256 bytes a
//                  group), then all groups' 16 f16 scales (32 bytes a group): 4.5 bits a weight, as the original.
//   mxfp4          as iq4_nl (u = kMxfp4Values[index] + 12, the GEMM's bias), its scales the 16 rows' E8M0 bytes
//                  (16 bytes a group: 4.25 bits a weight, as the original); the tiles take s = 2^(e - 128) (the
//                  table holds twice the E2M1 values), as gemm.cpp's packer computes it.
//   q4_1, q5_0,    as q4_0, q5_0 / q5_1 with one more vector per group after the nibbles: the fifth bits, quad q
//   q5_1           (0..7) in bit q of each byte (320 bytes a group), q4_1 / q5_1 with the 16 f16 mins after each
//                  group's 16 f16 scales (64 bytes a group): each type's own size (5, 5.5, 6 bits a weight).
//   q8_0           per group, 8 vectors of biased bytes u = v + 128 (vector q = quad q), then the f16 scales as
//                  above: 8.5 bits a weight, as the original.
//   q4_K           per super-block of 256 elements (8 groups of 32): the 16 rows' f16 d, their f16 dmin, the 6-bit
//                  sub-block scales as bytes [8 groups][16 rows], the mins likewise, then per group 4 nibble
//                  vectors as q4_0 (2368 bytes for 16 x 256 weights: 4.625 bits a weight, 2.8 % over q4_K's 4.5).
//                  The tiles compute s = d * scale and m = -dmin * min in float, as gemm.cpp's packer does.
//   q5_K           q4_K's block of the levels' low 4 bits, then per group one vector of their fifth bits: quad q
//                  (0..7) of the group in bit q of each byte (2880 bytes for 16 x 256 weights: 5.625 bits a weight,
//                  2.3 % over q5_K's 5.5). The same float math as q4_K.
//   q2_K           per super-block of 256 elements: the 16 rows' f16 d, their f16 dmin (32 bytes each), the scale
//                  bytes as q2_K stores them (scale in the low nibble, min in the high) [16 groups of 16][16 rows],
//                  then per group of 16 one vector of the 2-bit levels, quad i (0..3) in bits 2i, 2i + 1 of each
//                  byte (1344 bytes for 16 x 256 weights: q2_K's size). s = d * scale, m = -dmin * min in float.
//   q3_K           per super-block: the f16 d (32 bytes, 32 of padding), the scales as int8 (q3_K's stored 6 bits
//                  - 32) [16 groups][16 rows], then per 32 elements the two groups' 2-bit vectors as q2_K's and one
//                  vector of the levels' third bits, quad q (0..7) in bit q (1856 bytes: 3.625 bits a weight, 5.5 %
//                  over q3_K's 3.4375). u = low bits | third bit << 2 (0..7, bias 4); s = d * scale.
//   q6_K           per super-block of 256 elements: the 16 rows' f16 d (32 bytes, then 32 of padding), the int8
//                  scales as bytes [16 groups of 16][16 rows], then per 32 elements (two groups of 16) 4 nibble
//                  vectors as q4_0 holding the low 4 bits of the levels u = v + 32 (0..63), and 2 vectors of their
//                  high 2 bits: vector h holds group 2j + h, quad i (0..3) of it in bits 2i, 2i + 1 of each byte
//                  (3392 bytes for 16 x 256 weights: 6.625 bits a weight, 1 % over q6_K's 6.5625). The GEMM's
//                  groups of 16 elements: s = d * scale in float, as gemm.cpp's packer computes it.
//   iq4_xs         per super-block of 256 elements: the 16 rows' f16 d (32 bytes, then 32 of padding), the scales
//                  ls - 32 as int8 [8 groups of 32][16 rows], then per group 4 nibble vectors as iq4_nl's (2240
//                  bytes for 16 x 256 weights: 4.375 bits a weight, 2.9 % over iq4_xs's 4.25). u = kIq4nlValues[
//                  index] + 128; s = d * scale in float, as gemm.cpp's packer computes it.
//   tq2_0          per super-block of 256 elements, per group of 32 two vectors of the 2-bit trits t as stored
//                  (0..3): vector h holds quads 4h .. 4h + 3 of the group, quad i in bits 2i, 2i + 1 of each byte
//                  (1024 bytes for 16 x 256 weights); after all super-blocks' levels their 16 rows' f16 d (32 bytes
//                  a super-block): 2.0625 bits a weight, tq2_0's own. The GEMM's groups of 32: u = t, bias 1, s = d.
//   tq1_0          per super-block of 256 elements, its 52 base-3 bytes per row (five trits a byte, four in qh) as
//                  13 vectors of 16 rows x 4 bytes: vector q (0..7) holds qs[4q .. 4q + 3], vector 8 + p (0..3)
//                  qs[32 + 4p ..], vector 12 qh[0 .. 3] (832 bytes for 16 x 256 weights); after all super-blocks'
//                  levels their 16 rows' f16 d (32 bytes a super-block): 1.6875 bits a weight, tq1_0's own. Trit n
//                  of a byte (the top base-3 digit of byte * 3^n, mod 256) is the level of element 32n + m (qs[m],
//                  m < 32), 160 + 16n + m (qs[32 + m]) or 240 + 4n + m (qh[m]), so trit n of one vector is a quad of
//                  every row: group j < 5 is trit j of vectors 0..7; groups 5 and 6 trits 2(j - 5) and 2(j - 5) + 1
//                  of vectors 8..11; group 7 trit 4 of vectors 8..11, then trits 0..3 of vector 12. The GEMM's
//                  groups of 32: u = t, bias 1, s = d.
//   iq2_xxs,       (the rows form) the 16 rows' own blocks, super-block by super-block (rows_block_at: one stream
//   iq2_xs, iq2_s, to read; 16 rows apart, decoding streamed 0.7 x as fast from DRAM): the weight's size. These
//   iq3_xxs, iq3_s i-quants take their levels from tables, by points of 8 (or 4) elements, which a layout of 16-row
//   iq1_s, iq1_m   quads would not make cheaper. The tile decodes each row's super-block as the GEMM's packer does
//                  and transposes the levels into the GEMM's quads in registers (tile_rows_avx512vnni.cpp); the
//                  expander is the GEMM's packer, a super-block at a time. The products are the GEMM's in every batch
//                  (the plain path's matrix-vector kernels give upstream's bits instead).
//   f32, f16       (the float form) per element, the 16 rows' values in the weight's own type: [k][16], the
//                  weight's size.
//   bf16           per pair of elements, the 16 rows' pairs: [k / 2][16][2] (the float GEMM's bf16 panel).
// Panels are padded to 64 bytes (a panel starts on a cache line when the tensor does).
//
// The float form's tiles (float_tile, below) take the float GEMM's activation chunks (quants/gemm_float.h: f32 values,
// for f16 weights rounded through f16, 12 columns a chunk; bf16 pairs, 8 columns) and sum each output with one
// accumulator over the steps in order, whatever the number of columns and panels of the call, so that a row's
// product is the same bits in every batch.
//
// Activations are the GEMM's chunks (gemm.h: gemm_activation, eight columns interleaved per group, the format's
// act_type); a tile multiplies one panel with up to 8 columns of a chunk, out[r + c * out_col], as the GEMM's
// tiles do, and gives the GEMM's products: the same integer sums, the same float scale math. Fewer than 8 columns
// (decoding: one) come as a narrow chunk of just those columns (GemmTileArgs::chunk_cols): the same sums from fewer
// bytes (1/8 for one column), which stay in L1 beside the streamed weights.
#pragma once

#include "cpu/quants/gemm.h"
#include "cpu/quants/type_rows.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::cpu::repack {

using quants::RepackForm;

constexpr int kPanelRows = quants::kGemmRows; // 16

// Byte sizes of the layout (see above).
constexpr size_t kNibbleGroupBytes = 256;   // 32 elements x 16 rows, 4 bits each
constexpr size_t kByteGroupBytes   = 512;   // 32 elements x 16 rows, 8 bits each
constexpr size_t kScaleGroupBytes  = 32;    // 16 f16 scales
constexpr size_t kQ4KHeaderBytes   = 320;   // d, dmin (32 bytes each), scales, mins (128 bytes each)
constexpr size_t kQ4KBlockBytes    = kQ4KHeaderBytes + 8 * kNibbleGroupBytes; // 2368
constexpr size_t kQ4KScalesAt      = 64;
constexpr size_t kQ4KMinsAt        = 192;
constexpr size_t kQ5KHighAt        = kQ4KBlockBytes; // 8 vectors of fifth bits
constexpr size_t kQ5KBlockBytes    = kQ5KHighAt + 8 * 64; // 2880
constexpr size_t kQ2KHeaderBytes   = 320;   // d, dmin (32 bytes each), scale bytes (256)
constexpr size_t kQ2KBlockBytes    = kQ2KHeaderBytes + 16 * 64; // 1344
constexpr size_t kQ3KHeaderBytes   = 320;   // d (32 bytes), padding (32), scales (256)
constexpr size_t kQ3KPairBytes     = 3 * 64; // 32 elements x 16 rows: two 2-bit vectors, one of third bits
constexpr size_t kQ3KBlockBytes    = kQ3KHeaderBytes + 8 * kQ3KPairBytes; // 1856
constexpr size_t kK16ScalesAt      = 64;    // q2_K, q3_K, q6_K: the scale bytes [16 groups][16 rows]
constexpr size_t kQ6KHeaderBytes   = 320;   // d (32 bytes), padding (32), scales (256)
constexpr size_t kQ6KPairBytes     = 4 * 64 + 2 * 64; // 32 elements x 16 rows: low nibbles, then high bits
constexpr size_t kQ6KBlockBytes    = kQ6KHeaderBytes + 8 * kQ6KPairBytes; // 3392
constexpr size_t kIQ4XSHeaderBytes = 192;   // d (32 bytes), padding (32), scales (128)
constexpr size_t kIQ4XSScalesAt    = 64;
constexpr size_t kIQ4XSBlockBytes  = kIQ4XSHeaderBytes + 8 * kNibbleGroupBytes; // 2240
constexpr size_t kTQ2GroupBytes    = 2 * 64; // 32 elements x 16 rows, 2 bits each
constexpr size_t kTQ2LevelBytes    = 8 * kTQ2GroupBytes; // a super-block's levels: 1024
constexpr size_t kTQ1LevelBytes    = 13 * 64; // a super-block's base-3 bytes: 832
template <ggml_type T> // the trit forms (tq1_0, tq2_0): a super-block's levels, before all super-blocks' d
inline constexpr size_t kTritLevelBytes = T == GGML_TYPE_TQ1_0 ? kTQ1LevelBytes : kTQ2LevelBytes;
static_assert(kQ2KHeaderBytes == kQ6KHeaderBytes && kQ3KHeaderBytes == kQ6KHeaderBytes,
              "the forms with groups of 16 share the header's size (their levels start at the same offset)");

// Bytes of one super-block of 16 rows in the K-quant forms (header and levels together), 0 for the others (tq2_0's
// d follow all its levels).
constexpr size_t superblock_bytes(RepackForm form) {
    switch (form) {
        case RepackForm::kQ2KBlocks: return kQ2KBlockBytes;
        case RepackForm::kQ3KBlocks: return kQ3KBlockBytes;
        case RepackForm::kQ4KBlocks: return kQ4KBlockBytes;
        case RepackForm::kQ5KBlocks: return kQ5KBlockBytes;
        case RepackForm::kQ6KBlocks: return kQ6KBlockBytes;
        case RepackForm::kIQ4XSBlocks: return kIQ4XSBlockBytes;
        default:                     return 0;
    }
}

// The rows form's block b of row r: its offset in the panel.
constexpr size_t rows_block_at(ggml_type type, int r, int64_t b) {
    return (static_cast<size_t>(b) * kPanelRows + static_cast<size_t>(r)) * kTypeTable[type].type_size;
}

// Whether the form is a trit one (tq1_0, tq2_0: all super-blocks' levels, then their d; kTritLevelBytes).
constexpr bool trit_form(RepackForm form) { return form == RepackForm::kTQ1Blocks || form == RepackForm::kTQ2Blocks; }

// A column's pair of one chunk group (gemm.cpp's ColumnAux): the q8 scale da, then -bias * sum(q) as an int32
// (formats without a min) or the float that multiplies the min term (q4_1, q5_1: q8_1's da * sum(q); q2_K, q4_K,
// q5_K: sum(q), quants/gemm.h).
struct ChunkAux {
    float   da;
    int32_t word;
};

// The 32-element formats (q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl): whether a group has a vector of fifth bits and a
// min per row, and the bytes of a group's levels and of its factors (f16 scales, then mins).
template <ggml_type T>
inline constexpr bool kLegacyFifthBits = T == GGML_TYPE_Q5_0 || T == GGML_TYPE_Q5_1;
template <ggml_type T>
inline constexpr bool kLegacyMin = quants::cpu_type_row(T).has_min;
template <ggml_type T>
inline constexpr size_t kLegacyLevelBytes = quants::cpu_type_row(T).repack == RepackForm::kBytes ? kByteGroupBytes
                                            : kLegacyFifthBits<T>                              ? kNibbleGroupBytes + 64
                                                                                                : kNibbleGroupBytes;
template <ggml_type T>
inline constexpr bool kE8M0Scales = T == GGML_TYPE_MXFP4; // one E8M0 byte per row, not an f16 scale
template <ggml_type T>
inline constexpr size_t kLegacyFactorBytes = kE8M0Scales<T> ? kPanelRows
                                             : kLegacyMin<T> ? 2 * kScaleGroupBytes
                                                             : kScaleGroupBytes;
size_t legacy_group_bytes(ggml_type type); // kLegacyLevelBytes + kLegacyFactorBytes of a type known at run time

// Bytes of one group of `group` elements (32, or 16: the GEMM's groups of q2_K, q3_K, q6_K) in an activation chunk
// of `cols` columns (8, or a narrow chunk's 1..7, gemm.h: gemm_activation): the interleaved levels, then the
// columns' ChunkAux.
constexpr size_t chunk_group_bytes(int group, int cols) {
    return static_cast<size_t>(group * cols) + static_cast<size_t>(cols) * sizeof(ChunkAux);
}


// The type's form in this layout (its CPU row, quants/type_rows.h: q4_0 and iq4_nl nibbles, q8_0 bytes, the
// K-quants' whole super-blocks), kNone for the types the layout does not have; repackable_type: not kNone.
RepackForm repack_form(ggml_type type);
bool       repackable_type(ggml_type type);

// Whether CPU_REPACK stores rows of k elements of `type` repacked on this CPU: the type has a form, k is a whole
// number of its blocks (repack_block), and for the float form this CPU has a float tile for the type and the
// float GEMM would not take the type's rows on AMX tiles (whose sums run in another order: those stay plain).
bool repacks(ggml_type type, int64_t k);

// What a kernel templated on a repacked type T reads of it: whether its levels are whole bytes (q8_0) rather than
// nibbles, and the value table its nibbles index (iq4_nl, iq4_xs, mxfp4; u = value + the GEMM's bias), nullptr where
// they are the levels.
template <ggml_type T>
inline constexpr bool kByteLevels = quants::cpu_type_row(T).repack == RepackForm::kBytes;
template <ggml_type T>
inline constexpr const int8_t * kLevelTable = quant::value_table<quant::BlockOf<T>>();
const int8_t *                  level_table(ggml_type type); // kLevelTable of a type known at run time

// Elements per block of the type's scales in the layout: 256 for the K-quants, 32 for the 32-element formats, 2 for
// the float form (pairs).
int64_t repack_block(ggml_type type);

// Bytes of one panel for rows of k elements (k: a whole number of the type's blocks), and of a whole matrix of
// `rows` rows (whole panels).
size_t panel_bytes(ggml_type type, int64_t k);
size_t repacked_bytes(ggml_type type, int64_t k, int64_t rows);

// Packs `rows` (1..16) rows of the original blocks (w: row 0, w_row bytes apart) into a panel; rows past `rows`
// become zero. unpack_panel writes the first `rows` rows back as the original bytes (every byte the same).
void pack_panel(ggml_type type, const void * w, size_t w_row, int rows, int64_t k, void * panel);
void unpack_panel(ggml_type type, const void * panel, int rows, int64_t k, void * w, size_t w_row);
// Rows first .. end - 1 of a panel (0 <= first < end <= 16) as their original bytes, row `first` at w: one row for
// GET_ROWS reading a repacked tensor.
void unpack_panel_rows(ggml_type type, const void * panel, int first, int end, int64_t k, void * w, size_t w_row);

// A tile: out[r + c * out_col] = dot(panel row r, column c of the chunk), r < a.rows, c < a.n_cols (1..8);
// a.panel2 is not used. tile_scalar is the portable one (the reference of the tests); tile_fast the one this CPU
// runs (nullptr where none is faster than the portable one: the buffer type is then not offered), chosen by the
// kernel registry (kernel_registry.h: repack_tile).
using TileFn = void (*)(ggml_type type, const quants::GemmTileArgs & a);
void   tile_scalar(ggml_type type, const quants::GemmTileArgs & a);
TileFn tile_fast();

// Expands a panel (whose first `rows` rows are weights) into the integer GEMM's byte panel of the same rows
// (gemm.h's layout, quants::gemm_panel_bytes(gemm_format(type), k) bytes): exactly the bytes quants::gemm_pack
// writes from the original weights, so quants::gemm_tile_fast() on it gives what the tiles above give. For many
// columns, where one expansion serves every chunk. expand_panel takes the expander the kernel registry chooses
// (repack_expand: the vector one where the CPU has it), expand_panel_portable (tile_scalar.cpp) never.
void expand_panel(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel);
void expand_panel_portable(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel);

// A float tile call: panels [0, n_panels) of a pass (panel p at panel + p * panel_stride bytes; every panel has 16
// rows but the last, which has last_rows) times columns [0, n_cols) of a float GEMM chunk (n_cols at most
// quants::gemm_float_cols of the type); panel p, row r, column c at out[16 p + r + c * out_col].
struct FloatTileArgs {
    ggml_type    type;
    const void * panel;
    size_t       panel_stride;
    int          n_panels;
    int          last_rows;
    int64_t      k;
    const void * chunk;
    int          n_cols;
    float *      out;
    int64_t      out_col;
};
using FloatTileFn = void (*)(const FloatTileArgs & a);

// The float tile this CPU runs for `type` (the kernel registry's repack_float_tile: F32 and F16 at AVX-512, BF16 at
// AVX-512 BF16), nullptr where it has none.
FloatTileFn float_tile(ggml_type type);
void        float_tile_avx512(const FloatTileArgs & a);     // float_tile_avx512.cpp: F32, F16
void        float_tile_avx512bf16(const FloatTileArgs & a); // float_tile_avx512bf16.cpp: BF16

// The AVX-512 VNNI level's tile and expander, which the registry's column holds (x86-64 only).
void tile_avx512vnni(ggml_type type, const quants::GemmTileArgs & a);      // tile_avx512vnni.cpp
void tile_rows_avx512vnni(ggml_type type, const quants::GemmTileArgs & a); // its rows form: tile_rows_avx512vnni.cpp
// expand_avx512vnni.cpp
void expand_panel_avx512vnni(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel);

} // namespace switchyard::cpu::repack
