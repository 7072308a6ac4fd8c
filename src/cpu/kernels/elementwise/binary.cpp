// Two-input element-wise kernels: ADD, SUB, MUL, DIV, ADD1, ADD_ID and ACC.
//
// ADD/SUB/MUL/DIV: dst = src0 op src1, src1 repeated to src0's shape in every dimension (ggml_can_repeat);
// ADD1: src1 is a scalar (the same code: a [1,1,1,1] tensor repeats everywhere). Types: src0, src1 and dst F32,
// F16 or BF16 in any combination; for ADD and ADD1 src0 may also be a block format (decoded with to_float) and
// dst a block format with from_float_ref (the row is re-encoded), as upstream's add_q_f32. Any strides; dst may be
// src0 (in place).
// ADD_ID: dst[:, i1, i2] = src0[:, i1, i2] + src1[:, ids[i1, i2]] with ids I32 [ne1, ne2] (float types).
// ACC: op_params (i32) {nb1, nb2, nb3, offset, inplace}: dst = src0, then the view of dst with those byte strides
// and offset (shape of src1) += src1. src0 and dst contiguous, of the same float type; runs on one thread.
//
// Rows are processed in kChunk-element pieces; F32 rows with unit stride are read and written in place.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "base/log.h"

namespace switchyard::cpu::kernels {

namespace {

// ---- chunk access ----

// out[k] = t_row[(i0 + k) % ne0] for k < n: a row of t repeated along dimension 0.
void read_repeated(const ggml_tensor * t, const char * row, int64_t i0, int64_t n, float * out) {
    const int64_t ne0 = t->ne[0];
    int64_t       j   = i0 % ne0;
    for (int64_t k = 0; k < n;) {
        const int64_t m = std::min(n - k, ne0 - j);
        load_row(t->type, row + j * static_cast<int64_t>(t->nb[0]), t->nb[0], out + k, m);
        k += m;
        j = 0;
    }
}

// Elements [i0, i1) of one row of a two-input op: d = fn(s0, s1 repeated along dim 0). s1's row has src1->ne[0]
// elements; i0 is on a chunk bound (block formats stay on block bounds).
void binary_span(BinaryRowFn fn, const ggml_tensor * src0, const char * s0, const ggml_tensor * src1, const char * s1,
                 const ggml_tensor * dst, char * d, int64_t i0, int64_t i1) {
    const bool direct0 = is_f32_rows(src0);
    const bool direct1 = is_f32_rows(src1) && src1->ne[0] == dst->ne[0];
    const bool directd = is_f32_rows(dst);
    float      abuf[kChunk], bbuf[kChunk];
    for (int64_t i = i0; i < i1; i += kChunk) {
        const int64_t m = std::min(kChunk, i1 - i);
        const float * a = direct0 ? reinterpret_cast<const float *>(s0) + i : abuf;
        const float * b = direct1 ? reinterpret_cast<const float *>(s1) + i : bbuf;
        float *       y = directd ? reinterpret_cast<float *>(d) + i : abuf;
        if (!direct0) {
            read_chunk(src0, s0, i, m, abuf);
        }
        if (!direct1) {
            read_repeated(src1, s1, i, m, bbuf);
        }
        fn(a, b, y, m);
        if (!directd) {
            write_chunk(dst, d, i, m, abuf);
        }
    }
}

size_t binary_index(ggml_op op) {
    switch (op) {
        case GGML_OP_SUB: return 1;
        case GGML_OP_MUL: return 2;
        case GGML_OP_DIV: return 3;
        default:          return 0; // ADD, ADD1, ADD_ID, ACC
    }
}

void binary_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0  = dst->src[0];
    const ggml_tensor * src1  = dst->src[1];
    const BinaryRowFn   fn    = row_kernels().binary[binary_index(dst->op)];
    const int64_t       ne0   = dst->ne[0];
    const RowSpans      spans = row_spans(p, ggml_nrows(dst), ne0);
    for (int64_t it = spans.items.begin; it < spans.items.end; ++it) {
        const RowCoords c  = row_coords(dst, spans.row(it));
        const char *    s1 = row_ptr(src1, wrap_index(c.i1, src1->ne[1]), wrap_index(c.i2, src1->ne[2]),
                                         wrap_index(c.i3, src1->ne[3]));
        binary_span(fn, src0, row_ptr(src0, c), src1, s1, dst, row_ptr(dst, c), spans.begin(it), spans.end(it, ne0));
    }
}

// A block-format operand: decodable / encodable rows with adjacent blocks.
bool block_src_ok(const ggml_tensor * t) {
    return can_decode(t->type) && has_unit_stride(t);
}

bool block_dst_ok(const ggml_tensor * t) {
    return can_encode(t->type) && has_unit_stride(t);
}

bool binary_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    if (!src0 || !src1 || !ggml_are_same_shape(src0, dst) || !ggml_can_repeat(src1, src0)) {
        return false;
    }
    if (dst->op == GGML_OP_ADD1 && !ggml_is_scalar(src1)) {
        return false;
    }
    const bool add    = dst->op == GGML_OP_ADD || dst->op == GGML_OP_ADD1;
    const bool src0ok = is_float_type(src0->type) || (add && block_src_ok(src0));
    const bool dstok  = is_float_type(dst->type) || (add && block_dst_ok(dst));
    return src0ok && dstok && is_float_type(src1->type);
}

// ---- ADD_ID ----

void add_id_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const ggml_tensor * ids  = dst->src[2];
    const BinaryRowFn   fn   = row_kernels().binary[0];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r);
        const int32_t   id = *reinterpret_cast<const int32_t *>(elem_ptr(ids, c.i1, c.i2, 0, 0));
        if (!index_in_range(id, src1->ne[1])) {
            report_data_error(p, "id %d out of range [0, %lld) at (%lld, %lld) of src2 '%s'", id,
                              static_cast<long long>(src1->ne[1]), static_cast<long long>(c.i1),
                              static_cast<long long>(c.i2), ids->name);
            return;
        }
        binary_span(fn, src0, row_ptr(src0, c), src1, row_ptr(src1, id, 0, 0), dst, row_ptr(dst, c), 0, dst->ne[0]);
    }
}

bool add_id_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const ggml_tensor * ids  = dst->src[2];
    if (!src0 || !src1 || !ids || ids->type != GGML_TYPE_I32 || !ggml_are_same_shape(src0, dst)) {
        return false;
    }
    const bool types = is_float_type(src0->type) && is_float_type(src1->type) && is_float_type(dst->type);
    return types && src1->ne[0] == src0->ne[0] && ids->ne[0] >= src0->ne[1] && ids->ne[1] >= src0->ne[2];
}

// ---- ACC ----

void acc_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const ViewParams    v    = view_params(dst);
    if (p.ith != 0) {
        return;
    }
    if (!view_in_bounds(dst, v, src1)) {
        log_error("[acc] view (offset %zu, nb %zu %zu %zu) of %s leaves its %zu bytes\n", v.offset, v.nb1, v.nb2, v.nb3,
                  dst->name, ggml_nbytes(dst));
        return;
    }
    if (dst->data != src0->data) {
        std::memcpy(dst->data, src0->data, ggml_nbytes(dst));
    }
    const ggml_tensor view = make_view(dst, v, src1);
    for (int64_t r = 0; r < ggml_nrows(src1); ++r) {
        const RowCoords c = row_coords(src1, r);
        char *          d = row_ptr(&view, c);
        binary_span(row_kernels().binary[0], &view, d, src1, row_ptr(src1, c), &view, d, 0, src1->ne[0]);
    }
}

bool acc_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    return src0 && src1 && is_float_type(dst->type) && src0->type == dst->type && is_float_type(src1->type) &&
           ggml_are_same_shape(src0, dst) && ggml_is_contiguous(src0) && ggml_is_contiguous(dst);
}

} // namespace

KernelInfo binary(ggml_op op) {
    switch (op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_ADD1:   return KernelInfo{binary_compute, nullptr, nullptr, binary_supports};
        case GGML_OP_ADD_ID: return KernelInfo{add_id_compute, nullptr, nullptr, add_id_supports};
        case GGML_OP_ACC:    return KernelInfo{acc_compute, single_task, nullptr, acc_supports};
        default:             return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
