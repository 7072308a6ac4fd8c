// MUL_MAT with few src1 columns (token generation) and MUL_MAT_ID, through the matrix-vector kernels of
// src/cpu/quants/matvec.h: src1 rows are converted once into work memory to the format the weight type pairs with
// (q8_0 / q8_1 / q8_K / f16 / bf16, as upstream's vec_dot_type; F32 and rows already in that format are used in
// place), then each thread multiplies a run of src0 rows with every column. The weights are read once per four
// columns, at DRAM speed for matrices larger than the caches.
//
// Work memory: one activation row per src1 row in the kernel's layout (MatVecKernel::act_row_bytes: upstream's
// ggml_row_size(vec_dot_type, ne10), twice that for f16 weights); none when src1 is used in place.
#pragma once

#include "cpu/kernel.h"

#include <cstddef>

namespace switchyard::cpu::kernels {

// src1 columns up to which MUL_MAT takes this path (above it, the blocked float path of mul_mat.cpp, which rounds
// src1 through the same activation format). Measured on 4096 x 4096 q4_0 / q4_K, 2 threads: this path is 1.5 to
// 3 times faster at 8 to 32 columns, although it reads the weights once per four columns.
constexpr int64_t kMatVecMaxCols = 32;

// true when MUL_MAT dst goes through the matrix-vector kernels: src0's type has one, src1 has at most
// kMatVecMaxCols columns (any number for q4_1 / q5_1, whose min term only this path computes as upstream), and
// the layouts are the plain ones (supports() of MUL_MAT already holds).
bool mul_mat_vec_applies(const ggml_tensor * dst);
void mul_mat_vec_compute(const ComputeParams & p, ggml_tensor * dst);
size_t mul_mat_vec_work_size(const ggml_tensor * dst);

// MUL_MAT_ID through the same kernels: one column per (expert slot, token) pair, the pairs of each expert
// multiplied together (its rows read once per node). Work memory: the converted src1 rows as above, then per
// thread the pairs grouped by expert, 32 gathered activation rows and an output block of 256 rows x 32 columns.
bool mul_mat_id_vec_applies(const ggml_tensor * dst);
void mul_mat_id_vec_compute(const ComputeParams & p, ggml_tensor * dst);
size_t mul_mat_id_vec_work_size(const ggml_tensor * dst, int n_threads);

} // namespace switchyard::cpu::kernels
