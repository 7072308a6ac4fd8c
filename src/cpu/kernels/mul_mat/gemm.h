// MUL_MAT of quantized weights by many activation columns (prompt processing, batches) through the integer GEMM
// of src/cpu/quants/gemm.h, on CPUs that have its tile (AVX-512 VNNI). Phase 1, all threads: the src1 rows are
// quantized once to the weight type's activation format (upstream's vec_dot_type, the same bytes) and laid out
// as GEMM columns in the shared work memory. Phase 2: threads take runs of 16-row panels of src0; each packs up
// to kGemmPanels panels at a time into its own slot (they stay in L2) and multiplies them with every column,
// eight columns per tile call (the columns stay in L1 while the panels pass over them).
//
// Work memory: the columns (gemm_column_bytes per src1 row), then per thread one float row of src1 and its
// activation bytes (for the conversion) and the packed panels.
#pragma once

#include "cpu/kernel.h"

#include <cstddef>

namespace switchyard::cpu::kernels {

// true when MUL_MAT dst takes this path: a GEMM tile exists on this CPU, src0's type has a GEMM form, src1 has
// more columns than the matrix-vector path takes, rows are whole activation blocks. A src0 stored repacked (a
// CPU_REPACK buffer, 2-D) takes it too where the integer GEMM runs on AMX: each pass unpacks its panels' rows
// (repack/format.h: unpack_panel, the stored bytes) before packing them for the AMX tile, which beats the
// repacked layout's VNNI tile there (bench/cpu_kernels: batch 512 CPU_REPACK).
bool mul_mat_gemm_applies(const ggml_tensor * dst);
void mul_mat_gemm_compute(const ComputeParams & p, ggml_tensor * dst);
size_t mul_mat_gemm_work_size(const ggml_tensor * dst, int n_threads);

} // namespace switchyard::cpu::kernels
