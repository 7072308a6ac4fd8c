// FILL (every element of dst = op_params f32 [0]), TRI (square matrices with zeros outside the part op_params[0]
// keeps, ggml_tri_type) and DIAG (src [n, 1, ne2, ne3] -> dst [n, n, ne2, ne3], src on the diagonal, 0 elsewhere).
//
// Types: F32, F16 or BF16 (src and dst of TRI and DIAG may differ; values go through float). Any strides. TRI may
// run in place (dst == src) and FILL reads nothing from its source. Threads split the rows of dst.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

// Writes value_at(i0) for every i0 of row c of dst (in chunks through a float buffer).
template <class F>
void write_row(ggml_tensor * dst, const RowCoords & c, F && value_at) {
    float         buf[kChunk];
    char *        row = row_ptr(dst, c);
    const int64_t n   = dst->ne[0];
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        for (int64_t k = 0; k < m; ++k) {
            buf[k] = value_at(i + k);
        }
        store_row(dst->type, buf, row + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
    }
}

void fill_compute(const ComputeParams & p, ggml_tensor * dst) {
    const float c    = op_f32(dst, 0);
    const Range rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        write_row(dst, row_coords(dst, r), [c](int64_t) { return c; });
    }
}

bool fill_supports(const ggml_tensor * dst) {
    return is_float_type(dst->type);
}

// Whether TRI keeps column i0 of row i1.
bool tri_keeps(ggml_tri_type type, int64_t i0, int64_t i1) {
    switch (type) {
        case GGML_TRI_TYPE_UPPER_DIAG: return i0 >= i1;
        case GGML_TRI_TYPE_UPPER:      return i0 > i1;
        case GGML_TRI_TYPE_LOWER_DIAG: return i0 <= i1;
        case GGML_TRI_TYPE_LOWER:      return i0 < i1;
    }
    return false;
}

void tri_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const auto          type = static_cast<ggml_tri_type>(op_i32(dst, 0));
    const int64_t       n    = dst->ne[0];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    float               buf[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s = row_ptr(src, c);
        char *          d = row_ptr(dst, c);
        for (int64_t i = 0; i < n; i += kChunk) {
            const int64_t m = std::min(kChunk, n - i);
            load_row(src->type, s + i * static_cast<int64_t>(src->nb[0]), src->nb[0], buf, m);
            for (int64_t k = 0; k < m; ++k) {
                buf[k] = tri_keeps(type, i + k, c.i1) ? buf[k] : 0.0f;
            }
            store_row(dst->type, buf, d + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
        }
    }
}

bool tri_supports(const ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int32_t       type = op_i32(dst, 0);
    return src && is_float_type(src->type) && is_float_type(dst->type) && ggml_are_same_shape(src, dst) &&
           type >= GGML_TRI_TYPE_UPPER_DIAG && type <= GGML_TRI_TYPE_LOWER;
}

void diag_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const float     v = load_value(src->type, elem_ptr(src, c.i1, 0, c.i2, c.i3));
        write_row(dst, c, [&](int64_t i0) { return i0 == c.i1 ? v : 0.0f; });
    }
}

bool diag_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && src->ne[1] == 1 &&
           dst->ne[0] == src->ne[0] && dst->ne[1] == src->ne[0] && dst->ne[2] == src->ne[2] &&
           dst->ne[3] == src->ne[3];
}

} // namespace

KernelInfo fill(ggml_op op) {
    switch (op) {
        case GGML_OP_FILL: return KernelInfo{fill_compute, nullptr, nullptr, fill_supports};
        case GGML_OP_TRI:  return KernelInfo{tri_compute, nullptr, nullptr, tri_supports};
        case GGML_OP_DIAG: return KernelInfo{diag_compute, nullptr, nullptr, diag_supports};
        default:           return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
