// Matrix kernels: MUL_MAT, MUL_MAT_ID, OUT_PROD.
//
// MUL_MAT: dst[n, m] = dot(src0 row n, src1 row m) for every (i2, i3), with src0 broadcast over dims 2 and 3.
// src0 may be F32, F16, BF16 or any block format with a to_float; src1 is F32 (or F16/BF16, converted first).
// With few src1 columns (token generation) and a weight type that has a matrix-vector kernel, the product goes
// through vec.cpp: src1 quantized once to the weight type's activation format, integer dot products, as
// upstream computes it; with more columns, quantized weights go through the integer GEMM of gemm.cpp where
// the CPU has its tile. Weights stored repacked (a CPU_REPACK buffer) always go through src/cpu/repack/mul_mat.h,
// for every column count; no other kernel reads them. MUL_MAT_ID of repacked experts goes there too; otherwise it
// takes the matrix-vector path when the type has a kernel (vec.h: each expert's pairs together). Otherwise, below:
// Threads split the rows of src0. Each thread converts a block of src0 rows (block_rows: about 256 KiB of floats,
// so it stays in L2) into its scratch (F32 rows are used in place), then multiplies the block with src1 four
// columns at a time in 4x4 tiles. Every src1 column is read once per block instead of once per row; conversion
// costs O(N*K), products O(N*M*K).
//
// Scratch (work_size), all of it conversion: src1 as F32 when it is not F32 with adjacent elements (shared), then
// per thread the converted src0 block (none for F32 src0). An F32 x F32 product needs none; MUL_MAT_ID needs a
// row per thread only for non-F32 experts; OUT_PROD none (it converts on the stack, a chunk at a time).
#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/dequant.h"
#include "cpu/kernels/families.h"
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/kernels/mul_mat/gemm.h"
#include "cpu/kernels/mul_mat/vec.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/matvec.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/mul_mat.h"

#include "base/fp16.h"
#include "quant/types.h"

#include <algorithm>
#include <cstring>

namespace switchyard::cpu::kernels {

namespace {

// The format upstream rounds src1 through for src0's type (its vec_dot_type: q8_0 / q8_1 / q8_K levels, f16 /
// bf16), or GGML_TYPE_COUNT for none (F32 weights and the types without a matrix-vector kernel). The float path
// applies the same rounding as the matrix-vector path, so a product does not depend on the number of columns.
ggml_type src1_rounding(const ggml_tensor * src0) {
    const ggml_type act = quants::act_type_for(src0->type);
    return act == GGML_TYPE_F32 ? GGML_TYPE_COUNT : act;
}

// src1 can be used in place when it is F32 with contiguous rows and needs no rounding
bool src1_direct(const ggml_tensor * src0, const ggml_tensor * src1) {
    return src1->type == GGML_TYPE_F32 && src1->nb[0] == sizeof(float) && src1_rounding(src0) == GGML_TYPE_COUNT;
}

size_t src1_converted_bytes(const ggml_tensor * src0, const ggml_tensor * src1) {
    return src1_direct(src0, src1) ? 0 : scratch_floats(ggml_nelements(src1));
}

const float * src1_row(const ggml_tensor * src1, const float * converted, int64_t i1, int64_t i2, int64_t i3) {
    if (!converted) {
        return reinterpret_cast<const float *>(static_cast<const char *>(src1->data) + i1 * src1->nb[1] +
                                               i2 * src1->nb[2] + i3 * src1->nb[3]);
    }
    return converted + ((i3 * src1->ne[2] + i2) * src1->ne[1] + i1) * src1->ne[0];
}

// Phase 1 (all threads): src1 to contiguous F32 in the shared scratch, split by rows, rounded through src0's
// activation format where it has one.
const float * convert_src1(const ComputeParams & p, const ggml_tensor * src0, const ggml_tensor * src1) {
    if (src1_direct(src0, src1)) {
        return nullptr;
    }
    auto *          out   = static_cast<float *>(p.wdata);
    const int64_t   nrows = ggml_nrows(src1);
    const int64_t   ne0   = src1->ne[0];
    const ggml_type round = src1_rounding(src0);
    for (int64_t r = p.ith; r < nrows; r += p.nth) {
        const char * row = row_ptr(src1, row_coords(src1, r));
        float *      dst = out + r * ne0;
        load_row(src1->type, row, src1->nb[0], dst, ne0);
        if (round != GGML_TYPE_COUNT) {
            quants::act_round_trip(round, dst, ne0);
        }
    }
    barrier(p);
    return out;
}

// src0 rows per block for row length k: about 256 KiB of floats, a multiple of 4 between 4 and 32
int64_t block_rows(int64_t k) {
    const int64_t fit = static_cast<int64_t>((size_t{256} << 10) / scratch_floats(std::max<int64_t>(k, 1)));
    return std::clamp<int64_t>(fit / 4 * 4, 4, 32);
}

// floats between converted rows in the scratch (keeps every row 64-byte aligned)
int64_t block_stride(int64_t k) { return static_cast<int64_t>(scratch_floats(k) / sizeof(float)); }

// src0 is used in place: F32 rows at float-aligned strides
bool src0_direct(const ggml_tensor * src0) {
    return src0->type == GGML_TYPE_F32 && src0->nb[1] % sizeof(float) == 0;
}

// Work items of MUL_MAT: (src0 row, i02, i03), split between the threads in contiguous runs.
int64_t mul_mat_items(const ggml_tensor * src0) { return src0->ne[1] * src0->ne[2] * src0->ne[3]; }

// src0 rows converted at once, at most: a block (one row when src1 has too few columns for a tile: nothing would
// reuse the block, and a single row stays in L1), never more than a slice has
int64_t block_limit(const ggml_tensor * src0, const ggml_tensor * src1) {
    return src1->ne[1] < 4 ? 1 : std::min(block_rows(src0->ne[0]), src0->ne[1]);
}

// ... nor more than a thread's share of the items: the rows of each thread's scratch slot
int64_t converted_rows(const ggml_tensor * src0, const ggml_tensor * src1, int nth) {
    return std::min(block_limit(src0, src1), (mul_mat_items(src0) + nth - 1) / nth);
}

// Each thread's scratch for its converted src0 block (0 when src0 is used in place).
size_t src0_slot_bytes(const ggml_tensor * src0, const ggml_tensor * src1, int nth) {
    return src0_direct(src0) ? 0 : static_cast<size_t>(converted_rows(src0, src1, nth)) * scratch_floats(src0->ne[0]);
}

// Rows of all the threads' slots, rounded up so that the total never shrinks as nth grows: nth slots take
// nth * min(limit, ceil(items / nth)) <= min(nth * limit, items + nth - 1) rows, a bound that grows with nth. Work
// memory planned for nth threads then also serves any fewer (the executor falls back to fewer threads when it
// cannot start a pool).
int64_t converted_rows_total(const ggml_tensor * src0, const ggml_tensor * src1, int nth) {
    return std::min(nth * block_limit(src0, src1), mul_mat_items(src0) + nth - 1);
}

// With four or more src1 columns, k is split into chunks of this many floats so that a tile's columns stay in L1
// while the block's rows pass over them; the partial dots of later chunks are added to dst
constexpr int64_t kDotChunk = 1024;

// Multiplies cnt converted src0 rows (a, lda floats apart; src0 rows n0..n0+cnt-1) with all src1 rows of the
// (i12, i13) slice into dst: k in chunks, columns four at a time, rows in 4x4 tiles, leftovers by dot4 and dot.
void block_times_src1(const float * a, int64_t lda, int64_t cnt, const ggml_tensor * src1, const float * conv1,
                      ggml_tensor * dst, int64_t n0, int64_t i12, int64_t i13) {
    const DotKernels & dk   = dot_kernels();
    const int64_t      k    = src1->ne[0];
    const int64_t      m    = src1->ne[1];
    char *             base = static_cast<char *>(dst->data) + n0 * dst->nb[0] + i12 * dst->nb[2] + i13 * dst->nb[3];
    // without tiles there is nothing to keep in L1: one pass streams each row once. k = 0 still writes zeros.
    const int64_t chunk = m >= 4 ? kDotChunk : std::max<int64_t>(k, 1);
    for (int64_t k0 = 0; k0 < std::max<int64_t>(k, 1); k0 += chunk) {
        const int64_t kn  = std::min(chunk, k - k0);
        const auto    put = [&](int64_t r, int64_t j, float v) {
            auto * o = reinterpret_cast<float *>(base + r * dst->nb[0] + j * dst->nb[1]);
            *o       = k0 == 0 ? v : *o + v;
        };
        int64_t j = 0;
        for (; j + 4 <= m; j += 4) {
            const float * b[4] = {src1_row(src1, conv1, j, i12, i13) + k0, src1_row(src1, conv1, j + 1, i12, i13) + k0,
                                  src1_row(src1, conv1, j + 2, i12, i13) + k0, src1_row(src1, conv1, j + 3, i12, i13) + k0};
            int64_t r = 0;
            for (; r + 4 <= cnt; r += 4) {
                float out[16];
                dk.dot4x4(a + r * lda + k0, lda, b, kn, out);
                for (int t = 0; t < 16; ++t) {
                    put(r + t / 4, j + t % 4, out[t]);
                }
            }
            for (; r < cnt; ++r) {
                float out[4];
                dk.dot4(a + r * lda + k0, b[0], b[1], b[2], b[3], kn, out);
                for (int c = 0; c < 4; ++c) {
                    put(r, j + c, out[c]);
                }
            }
        }
        for (; j < m; ++j) {
            const float * b = src1_row(src1, conv1, j, i12, i13) + k0;
            for (int64_t r = 0; r < cnt; ++r) {
                put(r, j, dk.dot(a + r * lda + k0, b, kn));
            }
        }
    }
}

// MUL_MAT's path, chosen in this one place and read by compute and work_size (supports asks the same question
// of the placement, below): weights repacked in a CPU_REPACK buffer go through repack/mul_mat.h, the only kernel
// that reads them; else quantized (or f16 / bf16) weights with enough columns through the GEMM where the CPU has
// its tile (gemm.h); else few columns of a type with a matrix-vector kernel through vec.h; else the float path
// of this file.
enum class Path { kRepack, kGemm, kVec, kFloat };

Path mul_mat_path(const ggml_tensor * dst) {
    if (repack::is_repacked(dst->src[0])) {
        return mul_mat_gemm_applies(dst) ? Path::kGemm : Path::kRepack; // AMX for wide batches (gemm.h)
    }
    if (mul_mat_gemm_applies(dst)) {
        return Path::kGemm;
    }
    return mul_mat_vec_applies(dst) ? Path::kVec : Path::kFloat;
}

void mul_mat_compute(const ComputeParams & p, ggml_tensor * dst) {
    switch (mul_mat_path(dst)) {
        case Path::kRepack: repack::mul_mat_compute(p, dst); return;
        case Path::kGemm:   mul_mat_gemm_compute(p, dst); return;
        case Path::kVec:    mul_mat_vec_compute(p, dst); return;
        case Path::kFloat:  break;
    }
    const ggml_tensor * src0   = dst->src[0];
    const ggml_tensor * src1   = dst->src[1];
    const float *       conv1  = convert_src1(p, src0, src1);
    const int64_t       k      = src0->ne[0];
    // F32 rows are used in place (a block is then just a run of rows); others are converted, a block at a time
    const bool    direct = src0_direct(src0);
    const int64_t lda    = direct ? static_cast<int64_t>(src0->nb[1] / sizeof(float)) : block_stride(k);
    const int64_t rows   = direct ? block_rows(k) : converted_rows(src0, src1, p.nth);
    const size_t  slot   = src0_slot_bytes(src0, src1, p.nth);
    auto *        a      = reinterpret_cast<float *>(thread_slot(p, src1_converted_bytes(src0, src1), slot));
    const int64_t n_rows = src0->ne[1];
    const int64_t r2 = src1->ne[2] / src0->ne[2], r3 = src1->ne[3] / src0->ne[3];
    // a block is a run of work items in one (i02, i03) slice, converted once and used for every broadcast slice
    const int64_t n_all = mul_mat_items(src0);
    const int64_t per   = (n_all + p.nth - 1) / p.nth;
    const int64_t begin = std::min(n_all, per * p.ith), end = std::min(n_all, begin + per);
    for (int64_t it = begin; it < end;) {
        const int64_t n0 = it % n_rows, i02 = (it / n_rows) % src0->ne[2], i03 = it / (n_rows * src0->ne[2]);
        const int64_t cnt = std::min({rows, n_rows - n0, end - it});
        const char *  row0 = static_cast<const char *>(src0->data) + n0 * src0->nb[1] + i02 * src0->nb[2] + i03 * src0->nb[3];
        const float * block = direct ? reinterpret_cast<const float *>(row0) : a;
        for (int64_t r = 0; !direct && r < cnt; ++r) {
            row_to_float(src0->type, row0 + r * src0->nb[1], a + r * lda, k);
        }
        for (int64_t i13 = i03 * r3; i13 < (i03 + 1) * r3; ++i13) {
            for (int64_t i12 = i02 * r2; i12 < (i02 + 1) * r2; ++i12) {
                block_times_src1(block, lda, cnt, src1, conv1, dst, n0, i12, i13);
            }
        }
        it += cnt;
    }
}

size_t mul_mat_work_size(const ggml_tensor * dst, int n_threads) {
    switch (mul_mat_path(dst)) {
        case Path::kRepack: return repack::mul_mat_work_size(dst, n_threads);
        case Path::kGemm:   return mul_mat_gemm_work_size(dst, n_threads);
        case Path::kVec:    return mul_mat_vec_work_size(dst);
        case Path::kFloat:  break;
    }
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    if (src0_direct(src0)) {
        return src1_converted_bytes(src0, src1);
    }
    const auto rows = static_cast<size_t>(converted_rows_total(src0, src1, n_threads));
    return src1_converted_bytes(src0, src1) + rows * scratch_floats(src0->ne[0]);
}

bool src1_type_ok(ggml_type t) { return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16; }

bool mul_mat_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    // the repack path of mul_mat_path, asked by placement rather than by init_tensor's mark, so that a placement
    // probe (uninitialised tensors) gets the answer the computation will
    const bool src0_repacked = src0 && repack::placed_repacked(src0);
    if (src0_repacked && src0->view_src == nullptr) {
        return repack::mul_mat_supports(dst); // weights in a CPU_REPACK buffer (repack/mul_mat.h)
    }
    if (src0_repacked || (src1 && repack::placed_repacked(src1))) {
        return false; // views of repacked weights, repacked src1: not the standard layout
    }
    return src0 && src1 && dst->type == GGML_TYPE_F32 && row_convertible(src0->type) && src1_type_ok(src1->type) &&
           has_unit_stride(src0) && dst->nb[0] == sizeof(float);
}

// Each thread's scratch for one converted expert row (0 for F32 experts, used in place).
size_t expert_row_bytes(const ggml_tensor * as) {
    return as->type == GGML_TYPE_F32 ? 0 : scratch_floats(as->ne[0]);
}

// MUL_MAT_ID's path, chosen here for compute and work_size as MUL_MAT's is: repacked experts through
// repack/mul_mat.h, types with a matrix-vector kernel through vec.h, the others by the float path below.
Path mul_mat_id_path(const ggml_tensor * dst) {
    if (repack::is_repacked(dst->src[0])) {
        return Path::kRepack;
    }
    return mul_mat_id_vec_applies(dst) ? Path::kVec : Path::kFloat;
}

// MUL_MAT_ID: as [K, N, n_expert], b [K, n_b, n_tokens], ids I32 [n_used, n_tokens] -> dst [N, n_used, n_tokens]
// dst[:, e, t] = as[ids[e, t]] * b[:, e % n_b, t]
void mul_mat_id_compute(const ComputeParams & p, ggml_tensor * dst) {
    switch (mul_mat_id_path(dst)) {
        case Path::kRepack: repack::mul_mat_id_compute(p, dst); return;
        case Path::kVec:    mul_mat_id_vec_compute(p, dst); return;
        default:            break;
    }
    const ggml_tensor * as   = dst->src[0];
    const ggml_tensor * b    = dst->src[1];
    const ggml_tensor * ids  = dst->src[2];
    const float *       conv = convert_src1(p, as, b);
    auto *              buf  = reinterpret_cast<float *>(thread_slot(p, src1_converted_bytes(as, b), expert_row_bytes(as)));
    const DotKernels &  dk   = dot_kernels();
    const int64_t       n_used = ids->ne[0], n_tokens = ids->ne[1];
    const int64_t       n_items = n_used * n_tokens * as->ne[1];
    for (int64_t it = p.ith; it < n_items; it += p.nth) {
        const int64_t n = it % as->ne[1], e = (it / as->ne[1]) % n_used, t = it / (as->ne[1] * n_used);
        const int32_t expert = *reinterpret_cast<const int32_t *>(static_cast<const char *>(ids->data) + e * ids->nb[0] + t * ids->nb[1]);
        if (!index_in_range(expert, as->ne[2])) {
            report_data_error(p, "expert id %d out of range [0, %lld) at (%lld, %lld) of src2 '%s'", expert,
                              static_cast<long long>(as->ne[2]), static_cast<long long>(e), static_cast<long long>(t),
                              ids->name);
            return; // after the last barrier (convert_src1)
        }
        const float * a = row_as_float(as->type, row_ptr(as, n, expert, 0), buf, as->ne[0]);
        const float * brow = src1_row(b, conv, e % b->ne[1], t, 0);
        *reinterpret_cast<float *>(static_cast<char *>(dst->data) + n * dst->nb[0] + e * dst->nb[1] + t * dst->nb[2]) =
            dk.dot(a, brow, as->ne[0]);
    }
}

size_t mul_mat_id_work_size(const ggml_tensor * dst, int n_threads) {
    switch (mul_mat_id_path(dst)) {
        case Path::kRepack: return repack::mul_mat_id_work_size(dst, n_threads);
        case Path::kVec:    return mul_mat_id_vec_work_size(dst, n_threads);
        default:            break;
    }
    return src1_converted_bytes(dst->src[0], dst->src[1]) + static_cast<size_t>(n_threads) * expert_row_bytes(dst->src[0]);
}

// Repacked experts (asked by placement, as MUL_MAT's) go through repack/mul_mat.h, the only kernel that reads them.
bool mul_mat_id_supports(const ggml_tensor * dst) {
    const ggml_tensor * as  = dst->src[0];
    const ggml_tensor * ids = dst->src[2];
    if (as == nullptr) {
        return false;
    }
    const bool repacked = repack::placed_repacked(as); // a view of repacked experts: refused
    if (repacked && as->view_src == nullptr) {
        return repack::mul_mat_id_supports(dst);
    }
    return !repacked && mul_mat_supports(dst) && ids && ids->type == GGML_TYPE_I32;
}

// OUT_PROD: a [M, K, ne2, ne3], b [P, K, ne12, ne13] -> dst [M, P, ne12, ne13]; dst[m, p] = sum_k a[m, k] * b[p, k]
// Columns of dst are summed kChunk elements at a time on the stack (kChunk is a whole number of blocks of every
// format), so no scratch is needed.
void out_prod_column(const ggml_tensor * a, const ggml_tensor * b, ggml_tensor * dst, int64_t pp, int64_t i2,
                     int64_t i3) {
    const int64_t r2 = dst->ne[2] / a->ne[2], r3 = dst->ne[3] / a->ne[3];
    const char *  a0 = static_cast<const char *>(a->data) + (i2 / r2) * a->nb[2] + (i3 / r3) * a->nb[3];
    const char *  b0 = static_cast<const char *>(b->data) + pp * b->nb[0] + i2 * b->nb[2] + i3 * b->nb[3];
    char *        out = static_cast<char *>(dst->data) + pp * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3];
    for (int64_t m0 = 0; m0 < dst->ne[0]; m0 += kChunk) {
        const int64_t n = std::min(kChunk, dst->ne[0] - m0);
        float         acc[kChunk] = {};
        float         buf[kChunk];
        for (int64_t k = 0; k < a->ne[1]; ++k) {
            const float * ar = row_as_float(a->type, a0 + k * a->nb[1] + ggml_row_size(a->type, m0), buf, n);
            const float   bv = *reinterpret_cast<const float *>(b0 + k * b->nb[1]);
            for (int64_t m = 0; m < n; ++m) {
                acc[m] += ar[m] * bv;
            }
        }
        for (int64_t m = 0; m < n; ++m) {
            *reinterpret_cast<float *>(out + (m0 + m) * dst->nb[0]) = acc[m];
        }
    }
}

void out_prod_compute(const ComputeParams & p, ggml_tensor * dst) {
    const int64_t n_items = dst->ne[1] * dst->ne[2] * dst->ne[3];
    for (int64_t it = p.ith; it < n_items; it += p.nth) {
        const int64_t pp = it % dst->ne[1], i2 = (it / dst->ne[1]) % dst->ne[2], i3 = it / (dst->ne[1] * dst->ne[2]);
        out_prod_column(dst->src[0], dst->src[1], dst, pp, i2, i3);
    }
}

bool out_prod_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    return a && b && !repack::reads_repacked(a) && !repack::reads_repacked(b) && dst->type == GGML_TYPE_F32 &&
           b->type == GGML_TYPE_F32 && row_convertible(a->type) &&
           a->nb[0] == ggml_type_size(a->type);
}

} // namespace

KernelInfo mul_mat(ggml_op op) {
    switch (op) {
        case GGML_OP_MUL_MAT:    return KernelInfo{mul_mat_compute, nullptr, mul_mat_work_size, mul_mat_supports};
        case GGML_OP_MUL_MAT_ID: return KernelInfo{mul_mat_id_compute, nullptr, mul_mat_id_work_size, mul_mat_id_supports};
        case GGML_OP_OUT_PROD:   return KernelInfo{out_prod_compute, nullptr, nullptr, out_prod_supports};
        default:                 return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
