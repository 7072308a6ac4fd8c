// Row-indexed kernels: GET_ROWS, SET_ROWS and DIAG_MASK_INF.
//
// GET_ROWS: src0 [ne0, ne01, ne02, ne03], src1 I32 indices [n, ne02, ne03], dst [ne0, n, ne02, ne03]:
// dst row (i10, i11, i12) = src0 row (src1[i10, i11, i12], i11, i12). dst of src0's type (bytes copied; block
// formats need adjacent blocks) or F32/F16/BF16 from any src0 that converts (F32/F16/BF16/I32 or a block format
// with to_float).
// SET_ROWS: src0 rows [ne0, n, ne2, ne3], src1 indices I64 or I32 [n, ne11, ne12] with ne2 % ne11 == 0 and
// ne3 % ne12 == 0, dst (a view of the destination) [ne0, ne1, ne2, ne3]: dst row (src1[i, i2 % ne11, i3 % ne12], i2,
// i3) = src0 row (i, i2, i3). dst of src0's type (bytes) or any writable type (F32/F16/BF16/I32, block formats
// through from_float_ref).
// GET_ROWS also reads a src0 stored repacked in CPU_REPACK (a tied output matrix that is also the token embedding):
// each row is unpacked to its original bytes in the thread's scratch, then moved as above, so the rows are the same.
// An index outside the indexed dimension is a data error (report_data_error): the thread that reads it stops
// without touching memory for it, and the computation fails after the node. Threads split the rows.
// DIAG_MASK_INF: op_params [0] n_past: dst = src with -INF where i0 > n_past + i1 (float types, any strides, in
// place or not).
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/format.h"

#include <cmath>

namespace switchyard::cpu::kernels {

namespace {

// Moves one row of ne0 elements from s (a row of src) to d (a row of dst), converting when the types differ.
void move_row(const ggml_tensor * src, const char * s, const ggml_tensor * dst, char * d, int64_t ne0) {
    if (src->type == dst->type) {
        const int64_t bs = ggml_blck_size(dst->type);
        copy_units(d, dst->nb[0], s, src->nb[0], ne0 / bs, ggml_type_size(dst->type));
        return;
    }
    float buf[kChunk];
    for (int64_t i = 0; i < ne0; i += kChunk) {
        const int64_t m = std::min(kChunk, ne0 - i);
        read_chunk(src, s, i, m, buf);
        write_chunk(dst, d, i, m, buf);
    }
}

// Same type, byte copies: block formats need adjacent blocks on both sides.
bool same_type_ok(const ggml_tensor * src, const ggml_tensor * dst) {
    return src->type == dst->type && (!ggml_is_quantized(dst->type) || (has_unit_stride(src) && has_unit_stride(dst)));
}

int64_t load_index(const ggml_tensor * ids, int64_t i0, int64_t i1, int64_t i2) {
    const char * p = elem_ptr(ids, i0, i1, i2, 0);
    if (ids->type == GGML_TYPE_I64) {
        int64_t v;
        std::memcpy(&v, p, sizeof(v));
        return v;
    }
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// ---- GET_ROWS ----

// A thread's scratch for one row of a repacked src0, whole cache lines.
size_t unpacked_row_bytes(const ggml_tensor * src0) { return (src0->nb[1] + 63) / 64 * 64; }

size_t get_rows_work_size(const ggml_tensor * dst, int n_threads) {
    const ggml_tensor * src0 = dst->src[0];
    return repack::is_repacked(src0) ? static_cast<size_t>(n_threads) * unpacked_row_bytes(src0) : 0;
}

// Row `row` of the rows a repacked tensor stores (expert i2's row i1 is i2 x ne[1] + i1), unpacked into `w`.
const char * unpack_row(const ggml_tensor * src0, int64_t row, char * w) {
    const int64_t k     = src0->ne[0];
    const int     first = static_cast<int>(row % repack::kPanelRows);
    const size_t  pb    = repack::panel_bytes(src0->type, k);
    const auto *  panel = static_cast<const char *>(src0->data) + (row / repack::kPanelRows) * pb;
    repack::unpack_panel_rows(src0->type, panel, first, first + 1, k, w, src0->nb[1]);
    return w;
}

void get_rows_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const Range         rows = thread_range(p, ggml_nelements(src1));
    char * const        w    = repack::is_repacked(src0)
                                   ? static_cast<char *>(p.wdata) + static_cast<size_t>(p.ith) * unpacked_row_bytes(src0)
                                   : nullptr; // a repacked src0: this thread's row of scratch
    for (int64_t i = rows.begin; i < rows.end; ++i) {
        const RowCoords c   = row_coords(dst, i); // dst rows are (i10, i11, i12)
        const int64_t   idx = load_index(src1, c.i1, c.i2, c.i3);
        if (!index_in_range(idx, src0->ne[1])) {
            report_data_error(p, "index %lld out of range [0, %lld) at (%lld, %lld, %lld) of src1 '%s'",
                              static_cast<long long>(idx), static_cast<long long>(src0->ne[1]),
                              static_cast<long long>(c.i1), static_cast<long long>(c.i2), static_cast<long long>(c.i3),
                              src1->name);
            return;
        }
        const char * s = w != nullptr ? unpack_row(src0, c.i2 * src0->ne[1] + idx, w) : row_ptr(src0, idx, c.i2, c.i3);
        move_row(src0, s, dst, row_ptr(dst, c), dst->ne[0]);
    }
}

bool get_rows_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    if (!src0 || !src1 || src1->type != GGML_TYPE_I32 || src1->ne[3] != 1) {
        return false;
    }
    const bool shapes = dst->ne[0] == src0->ne[0] && dst->ne[1] == src1->ne[0] && dst->ne[2] == src1->ne[1] &&
                        dst->ne[3] == src1->ne[2] && src0->ne[2] == src1->ne[1] && src0->ne[3] == src1->ne[2];
    const bool types = same_type_ok(src0, dst) || (can_read_floats(src0) && is_float_type(dst->type));
    return shapes && types;
}

// ---- SET_ROWS ----

void set_rows_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const Range         rows = thread_range(p, ggml_nrows(src0));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c   = row_coords(src0, r);
        const int64_t   i11 = c.i2 % src1->ne[1], i12 = c.i3 % src1->ne[2];
        const int64_t   idx = load_index(src1, c.i1, i11, i12);
        if (!index_in_range(idx, dst->ne[1])) {
            report_data_error(p, "index %lld out of range [0, %lld) at (%lld, %lld, %lld) of src1 '%s'",
                              static_cast<long long>(idx), static_cast<long long>(dst->ne[1]),
                              static_cast<long long>(c.i1), static_cast<long long>(i11), static_cast<long long>(i12),
                              src1->name);
            return;
        }
        move_row(src0, row_ptr(src0, c), dst, row_ptr(dst, idx, c.i2, c.i3), src0->ne[0]);
    }
}

bool set_rows_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    if (!src0 || !src1 || (src1->type != GGML_TYPE_I64 && src1->type != GGML_TYPE_I32) || src1->ne[3] != 1) {
        return false;
    }
    if (src1->ne[1] == 0 || src1->ne[2] == 0) {
        return ggml_nrows(src0) == 0;
    }
    const bool shapes = dst->ne[0] == src0->ne[0] && dst->ne[2] == src0->ne[2] && dst->ne[3] == src0->ne[3] &&
                        src1->ne[0] == src0->ne[1] && src0->ne[2] % src1->ne[1] == 0 && src0->ne[3] % src1->ne[2] == 0;
    const bool types = same_type_ok(src0, dst) || (can_read_floats(src0) && can_write_floats(dst));
    return shapes && types;
}

// ---- DIAG_MASK_INF ----

void diag_mask_inf_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src    = dst->src[0];
    const int64_t       n_past = op_i32(dst, 0);
    const Range         rows   = thread_range(p, ggml_nrows(dst));
    float               buf[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s = row_ptr(src, c);
        char *          d = row_ptr(dst, c);
        for (int64_t i = 0; i < dst->ne[0]; i += kChunk) {
            const int64_t m = std::min(kChunk, dst->ne[0] - i);
            load_row(src->type, s + i * static_cast<int64_t>(src->nb[0]), src->nb[0], buf, m);
            for (int64_t k = std::max<int64_t>(0, n_past + c.i1 + 1 - i); k < m; ++k) {
                buf[k] = -INFINITY;
            }
            store_row(dst->type, buf, d + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
        }
    }
}

bool diag_mask_inf_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && ggml_are_same_shape(src, dst);
}

} // namespace

KernelInfo rows(ggml_op op) {
    switch (op) {
        case GGML_OP_GET_ROWS:      return KernelInfo{get_rows_compute, nullptr, get_rows_work_size, get_rows_supports};
        case GGML_OP_SET_ROWS:      return KernelInfo{set_rows_compute, nullptr, nullptr, set_rows_supports};
        case GGML_OP_DIAG_MASK_INF: return KernelInfo{diag_mask_inf_compute, nullptr, nullptr, diag_mask_inf_supports};
        default:                    return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
