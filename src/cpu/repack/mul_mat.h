// MUL_MAT whose src0 is stored repacked (a CPU_REPACK buffer, buffer_type.h): the integer GEMM's products
// (src/cpu/quants/gemm.h) straight from the stored panels (format.h), for every number of src1 columns; a 3-D
// src0 (experts, integer forms only) gives each src1 slice its own expert's panels. MUL_MAT_ID of repacked experts
// below.
//
// Phase 1, all threads: src1's rows quantized to the type's activation format (upstream's vec_dot_type, the same
// bytes) as GEMM columns, eight to a chunk, in the shared work memory; barrier. Phase 2: threads take contiguous
// runs of 16-row panels (a thread writes whole 64-byte column pieces of dst: no false sharing inside a run) and
// multiply each pass of panels (about 512 KiB, kept in L2) with every chunk, eight columns per tile call. One
// column (decode) streams each panel once. With more than kMulMatExpandAbove columns (and the GEMM's fast tile on
// this CPU) a thread first expands its pass of panels into the integer GEMM's byte panels (format.h: expand_panel,
// about 1 MiB) and runs the GEMM's tile on them for every chunk: the nibbles (and iq4_nl's table) are unpacked once
// per pass instead of once per chunk. Both give the same floats (the tiles are the same arithmetic).
//
// Work memory: the chunks, then per thread the activation bytes of one row (the conversion's scratch) and, when
// expanding, one pass of expanded panels.
//
// The float form (f32, f16, bf16; format.h) takes the float GEMM's chunks instead (twelve columns, or eight bf16
// pairs) and its tile (float_tile) for every column count: with one chunk a tile call takes the thread's panels 16
// at a time (independent sums in flight for decode), with more a pass of about 512 KiB of panels.
#pragma once

#include "cpu/kernel.h"

#include <cstddef>

namespace switchyard::cpu::repack {

// More src1 columns than this: passes are expanded (above). Measured on 4096 x 4096 q4_0 / q4_K / iq4_nl (one and
// two threads, AVX-512 VNNI): expanding loses up to 30 % at 8 - 17 columns, is even at 20 - 24, and wins from 25
// columns on (4 chunks: 5 - 25 % at 25 - 32, 5 - 30 % at 512). The rows form's iq2_xxs (format.h) breaks even at
// 22 - 24 columns too.
constexpr int64_t kMulMatExpandAbove = 24;

// The node is supported with a repacked src0: src1 F32 with contiguous rows elements, dst F32 with float
// strides. (The caller checks that src0 is repacked.)
bool mul_mat_supports(const ggml_tensor * dst);
void mul_mat_compute(const ComputeParams & p, ggml_tensor * dst);
size_t mul_mat_work_size(const ggml_tensor * dst, int n_threads);

// MUL_MAT_ID (as [k, m, n_expert] repacked, b [k, n_b, n_tokens], ids [n_used, n_tokens]): the (slot, token) pairs
// grouped by expert (kernels/mul_mat/expert_pairs.h), each expert's pairs converted as the GEMM's columns into chunks
// of their own and multiplied with the expert's panels as MUL_MAT multiplies its columns (stored tiles, or expanded
// passes for an expert with more than kMulMatExpandAbove pairs): a pair's output is the bits MUL_MAT of the
// expert alone gives its column, whatever pairs share the node. Supported for the integer forms, with src1 and ids
// as MUL_MAT_ID has them (src1 F32 with contiguous rows, ids I32), dst F32 with float strides.
// Work memory: the chunks (shared), then per thread the groups, a row's activation bytes, a pass of expanded
// panels (where an expert may expand) and the output block of a pass.
bool   mul_mat_id_supports(const ggml_tensor * dst);
void   mul_mat_id_compute(const ComputeParams & p, ggml_tensor * dst);
size_t mul_mat_id_work_size(const ggml_tensor * dst, int n_threads);

} // namespace switchyard::cpu::repack
