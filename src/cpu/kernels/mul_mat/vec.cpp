#include "cpu/kernels/mul_mat/vec.h"

#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/expert_pairs.h"
#include "cpu/quants/matvec.h"
#include "cpu/quants/type_rows.h"

#include <algorithm>
#include <cstring>

namespace switchyard::cpu::kernels {

namespace {

using quants::MatVecArgs;
using quants::MatVecKernel;

// Output rows per work item are a multiple of this: 16 floats, one cache line of dst, so that no two threads
// write the same line.
constexpr int64_t kRowAlign = 16;

// The kernel for src0's type, when the path applies to the shapes: rows a whole number of activation blocks.
const MatVecKernel * kernel_for(const ggml_tensor * src0) {
    const MatVecKernel & k = quants::matvec_kernel(src0->type);
    if (k.fn == nullptr || src0->ne[0] % ggml_blck_size(k.act_type) != 0) {
        return nullptr;
    }
    return &k;
}

// src1 rows are used as they are: already in the activation format and laid out as the kernel reads it,
// elements adjacent.
bool act_in_place(const ggml_tensor * src1, const MatVecKernel & k) {
    return k.act_layout == k.act_type && src1->type == k.act_type && src1->nb[0] == ggml_type_size(k.act_type);
}

size_t converted_bytes(const ggml_tensor * src1, const MatVecKernel & k) {
    return act_in_place(src1, k) ? 0 : k.act_row_bytes(src1->ne[0]) * static_cast<size_t>(ggml_nrows(src1));
}

// Where the activation rows are: src1 itself, or the converted rows in the work memory (back to back, in src1's
// row order).
struct Activations {
    const char * base;
    size_t       nb1, nb2, nb3; // bytes between rows along src1's dims 1, 2, 3

    const char * row(int64_t i1, int64_t i2, int64_t i3) const {
        return base + static_cast<size_t>(i1) * nb1 + static_cast<size_t>(i2) * nb2 + static_cast<size_t>(i3) * nb3;
    }
};

// Phase 1, all threads: converts src1 (any float type, any stride) to the activation format in the work memory,
// kChunk elements per work item so that a single row is shared by every thread; then the barrier. Returns where
// the activation rows are (src1 itself when it needs no conversion; no barrier then).
Activations prepare_activations(const ComputeParams & p, const ggml_tensor * src1, const MatVecKernel & k) {
    if (act_in_place(src1, k)) {
        return {static_cast<const char *>(src1->data), src1->nb[1], src1->nb[2], src1->nb[3]};
    }
    const int64_t ne0    = src1->ne[0];
    const int64_t chunks = (ne0 + kChunk - 1) / kChunk;
    const size_t  rb     = k.act_row_bytes(ne0);
    char *        out    = static_cast<char *>(p.wdata);
    const Range   items  = thread_range(p, ggml_nrows(src1) * chunks);
    float         buf[kChunk];
    for (int64_t it = items.begin; it < items.end; ++it) {
        const int64_t   r  = it / chunks;
        const int64_t   i0 = (it % chunks) * kChunk;
        const int64_t   n  = std::min(kChunk, ne0 - i0);
        const char *    row = row_ptr(src1, row_coords(src1, r));
        const float *   x   = buf;
        if (is_f32_rows(src1)) {
            x = reinterpret_cast<const float *>(row) + i0;
        } else {
            read_chunk(src1, row, i0, n, buf);
        }
        k.convert(x, out + static_cast<size_t>(r) * rb + k.act_row_bytes(i0), n);
    }
    barrier(p);
    return {out, rb, rb * static_cast<size_t>(src1->ne[1]), rb * static_cast<size_t>(src1->ne[1] * src1->ne[2])};
}

// Rows of src0 per work item: about an equal share of all slices' rows per thread, a multiple of kRowAlign.
int64_t rows_per_item(int64_t rows, int64_t slices, int nth) {
    const int64_t share = (rows * slices + nth - 1) / nth;
    const int64_t align = (share + kRowAlign - 1) / kRowAlign * kRowAlign;
    return std::clamp<int64_t>(align, kRowAlign, std::max<int64_t>((rows + kRowAlign - 1) / kRowAlign * kRowAlign, kRowAlign));
}

// Weight bytes per block of rows when there is more than one group of columns: the block's rows stay in the
// core's L2 cache while every group of columns passes over them, instead of each group reading all rows from
// L3 or DRAM again.
constexpr size_t kRowBlockBytes = size_t{512} << 10;

// Rows [r0, r0 + n) of the src0 slice at w times columns [0, cols) of acts, into out: kMaxCols columns per kernel
// call, in blocks of rows of about kRowBlockBytes. Every (row, column) output is the same kernel call's whatever
// the blocking, so the results do not depend on it.
void run_columns(const MatVecKernel & k, const ggml_tensor * src0, const char * w, int64_t r0, int64_t n,
                 const char * act, size_t act_col, int64_t cols, float * out, int64_t out_col) {
    const int64_t block = cols <= quants::kMaxCols ? n : std::max<int64_t>(1, static_cast<int64_t>(kRowBlockBytes / src0->nb[1]));
    for (int64_t b0 = 0; b0 < n; b0 += block) {
        for (int64_t c0 = 0; c0 < cols; c0 += quants::kMaxCols) {
            MatVecArgs a;
            a.k       = src0->ne[0];
            a.w       = w + static_cast<size_t>(r0 + b0) * src0->nb[1];
            a.w_row   = src0->nb[1];
            a.rows    = std::min(block, n - b0);
            a.act     = act + static_cast<size_t>(c0) * act_col;
            a.act_col = act_col;
            a.cols    = static_cast<int>(std::min<int64_t>(quants::kMaxCols, cols - c0));
            a.out     = out + r0 + b0 + c0 * out_col;
            a.out_row = 1;
            a.out_col = out_col;
            k.fn(a);
        }
    }
}

// q4_1 / q5_1 take this path for any number of columns: upstream adds their min term through the q8_1 blocks'
// s = fp16(d * sum q), which the float path (dequantized weights times rounded activations) has no place for. So do
// the quantized types without an integer GEMM form (q1_0, q2_0, nvfp4): upstream multiplies them by vec_dot at
// every batch size, and so their logits do not depend on the batch here either.
bool always_matvec(ggml_type type) {
    return type == GGML_TYPE_Q4_1 || type == GGML_TYPE_Q5_1 ||
           (ggml_is_quantized(type) && quants::cpu_type_row(type).gemm_group == 0);
}

} // namespace

bool mul_mat_vec_applies(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    return (src1->ne[1] <= kMatVecMaxCols || always_matvec(src0->type)) && kernel_for(src0) != nullptr &&
           dst->nb[1] % sizeof(float) == 0 && dst->nb[2] % sizeof(float) == 0 && dst->nb[3] % sizeof(float) == 0;
}

size_t mul_mat_vec_work_size(const ggml_tensor * dst) {
    return converted_bytes(dst->src[1], *kernel_for(dst->src[0]));
}

// Work items are (slice (i12, i13), run of src0 rows); each multiplies its rows with every column of the slice.
void mul_mat_vec_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *  src0 = dst->src[0];
    const ggml_tensor *  src1 = dst->src[1];
    const MatVecKernel & k    = *kernel_for(src0);
    const Activations    acts = prepare_activations(p, src1, k);
    const int64_t        rows = src0->ne[1], slices = src1->ne[2] * src1->ne[3];
    const int64_t        per  = rows_per_item(rows, slices, p.nth);
    const int64_t        runs = (rows + per - 1) / per;
    const int64_t        r2 = src1->ne[2] / src0->ne[2], r3 = src1->ne[3] / src0->ne[3];
    const Range          items = thread_range(p, slices * runs);
    for (int64_t it = items.begin; it < items.end; ++it) {
        const int64_t s = it / runs, r0 = (it % runs) * per, n = std::min(per, rows - r0);
        const int64_t i12 = s % src1->ne[2], i13 = s / src1->ne[2];
        const char *  w   = static_cast<const char *>(src0->data) + (i12 / r2) * src0->nb[2] + (i13 / r3) * src0->nb[3];
        auto *        out = reinterpret_cast<float *>(static_cast<char *>(dst->data) + i12 * dst->nb[2] + i13 * dst->nb[3]);
        run_columns(k, src0, w, r0, n, acts.row(0, i12, i13), acts.nb1, src1->ne[1], out,
                    static_cast<int64_t>(dst->nb[1] / sizeof(float)));
    }
}

// MUL_MAT_ID: as [K, N, n_expert], b [K, n_b, n_tokens], ids I32 [n_used, n_tokens] -> dst [N, n_used, n_tokens],
// dst[:, e, t] = as[ids[e, t]] * b[:, e % n_b, t].
//
// The (slot e, token t) pairs are grouped by expert, so that each expert's rows are read once per node rather than
// once per pair (prompt processing reads every expert a few dozen times less; decoding is unchanged): a work item
// is (expert, run of kIdItemRows rows, fewer for smaller experts); it gathers the activation rows of the expert's
// pairs, kIdGatherCols at a time, into its thread's slot, multiplies them with its rows (run_columns: four columns
// per kernel call, rows in blocks that stay in L2) into the slot's output block, and copies each column to its
// pair's place in dst. The kernels compute every (row, column) output by the same operations whatever columns share
// a call, so a pair's output is the same bits whether its token comes alone or in a batch, and on any thread count.
bool mul_mat_id_vec_applies(const ggml_tensor * dst) {
    return kernel_for(dst->src[0]) != nullptr && dst->nb[0] == sizeof(float) && dst->nb[1] % sizeof(float) == 0 &&
           dst->nb[2] % sizeof(float) == 0;
}

namespace {

constexpr int64_t kIdGatherCols = 32;  // activation rows gathered per pass over an item's rows
constexpr int64_t kIdItemRows   = 256; // expert rows per work item (a multiple of kRowAlign)
static_assert(kIdItemRows % kRowAlign == 0);

// A thread's slot: the pairs grouped by expert (n_expert + 2 offsets, then the pairs), the gathered activation rows
// (at most kIdGatherCols, and no more than there are pairs), the output block (item_rows floats per gathered
// column).
struct IdSlot {
    size_t  groups, gather, out;
    int64_t gather_cols, item_rows;
    size_t  total() const { return groups + gather + out; }
};

IdSlot id_slot(const ggml_tensor * dst) {
    const ggml_tensor * as      = dst->src[0];
    const ggml_tensor * ids     = dst->src[2];
    const int64_t       n_pairs = ids->ne[0] * ids->ne[1];
    IdSlot              s;
    s.gather_cols = std::min(kIdGatherCols, n_pairs);
    s.item_rows   = std::min(kIdItemRows, as->ne[1]);
    s.groups      = expert_groups_bytes(dst);
    s.gather      = scratch_align(static_cast<size_t>(s.gather_cols) * kernel_for(as)->act_row_bytes(dst->src[1]->ne[0]));
    s.out         = scratch_floats(s.item_rows * s.gather_cols);
    return s;
}

} // namespace

size_t mul_mat_id_vec_work_size(const ggml_tensor * dst, int n_threads) {
    return scratch_align(converted_bytes(dst->src[1], *kernel_for(dst->src[0]))) +
           static_cast<size_t>(n_threads) * id_slot(dst).total();
}

void mul_mat_id_vec_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *  as   = dst->src[0];
    const ggml_tensor *  b    = dst->src[1];
    const ggml_tensor *  ids  = dst->src[2];
    const MatVecKernel & k    = *kernel_for(as);
    const Activations    acts = prepare_activations(p, b, k);
    const IdSlot         lay  = id_slot(dst);
    char *        slot   = thread_slot(p, scratch_align(converted_bytes(b, k)), lay.total());
    auto *        offset = reinterpret_cast<int32_t *>(slot);
    int32_t *     pairs  = offset + as->ne[2] + 2;
    char *        gather = slot + lay.groups;
    auto *        out    = reinterpret_cast<float *>(slot + lay.groups + lay.gather);
    if (!group_expert_pairs(p, as, ids, offset, pairs)) {
        return; // after the last barrier (prepare_activations)
    }
    const int64_t rows = as->ne[1];
    const int64_t runs = (rows + lay.item_rows - 1) / lay.item_rows;
    const size_t  rb   = k.act_row_bytes(b->ne[0]);
    // items (expert, run) over the experts with pairs, in expert order
    int64_t n_items = 0;
    for (int64_t x = 0; x < as->ne[2]; ++x) {
        n_items += offset[x + 1] > offset[x] ? runs : 0;
    }
    const Range items = thread_range(p, n_items);
    int64_t     item  = 0;
    for (int64_t x = 0; x < as->ne[2] && item < items.end; ++x) {
        if (offset[x + 1] == offset[x]) {
            continue;
        }
        const char * w = static_cast<const char *>(as->data) + static_cast<size_t>(x) * as->nb[2];
        for (int64_t run = 0; run < runs; ++run, ++item) {
            if (item < items.begin || item >= items.end) {
                continue;
            }
            const int64_t r0 = run * lay.item_rows, n = std::min(lay.item_rows, rows - r0);
            for (int32_t c0 = offset[x]; c0 < offset[x + 1]; c0 += static_cast<int32_t>(lay.gather_cols)) {
                const int32_t cols = std::min<int32_t>(static_cast<int32_t>(lay.gather_cols), offset[x + 1] - c0);
                for (int32_t c = 0; c < cols; ++c) {
                    const PairRow in = pair_input(dst, pairs[c0 + c]);
                    std::memcpy(gather + static_cast<size_t>(c) * rb, acts.row(in.i11, in.i12, 0), rb);
                }
                run_columns(k, as, w + static_cast<size_t>(r0) * as->nb[1], 0, n, gather, rb, cols, out, lay.item_rows);
                for (int32_t c = 0; c < cols; ++c) {
                    std::memcpy(pair_output(dst, pairs[c0 + c]) + r0, out + static_cast<size_t>(c * lay.item_rows),
                                static_cast<size_t>(n) * sizeof(float));
                }
            }
        }
    }
}

} // namespace switchyard::cpu::kernels
