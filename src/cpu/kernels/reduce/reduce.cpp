// Reductions: SUM (all elements to a scalar of src's type), SUM_ROWS (each row to one element, dst [1, ne1, ne2,
// ne3]), MEAN (the same divided by ne0), ARGMAX (index of the first maximum of each row of a matrix, I32 [ne1]) and
// CUMSUM (running sums along each row: dst[i0] = src[0] + ... + src[i0], dst of src's shape).
//
// Types: src F32, F16 or BF16; dst of SUM / SUM_ROWS / MEAN any float type. Any strides. Sums accumulate in double
// from the first element (as upstream's). SUM runs on one thread (a fixed summation order); the others split rows.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include <cmath>

namespace switchyard::cpu::kernels {

namespace {

// Sum of the n elements of one row of t starting at `row`.
double row_sum(const ggml_tensor * t, const char * row, int64_t n) {
    if (is_f32_rows(t)) {
        return row_kernels().sum(reinterpret_cast<const float *>(row), n);
    }
    float  buf[kChunk];
    double total = 0.0;
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        load_row(t->type, row + i * static_cast<int64_t>(t->nb[0]), t->nb[0], buf, m);
        total += row_kernels().sum(buf, m);
    }
    return total;
}

void sum_compute(const ComputeParams & p, ggml_tensor * dst) {
    if (p.ith != 0) {
        return;
    }
    const ggml_tensor * src   = dst->src[0];
    double              total = 0.0;
    for (int64_t r = 0; r < ggml_nrows(src); ++r) {
        total += row_sum(src, row_ptr(src, row_coords(src, r)), src->ne[0]);
    }
    store_value(dst->type, dst->data, static_cast<float>(total));
}

bool sum_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && ggml_nelements(dst) == 1;
}

// SUM_ROWS and MEAN
void sum_rows_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src   = dst->src[0];
    const double        scale = dst->op == GGML_OP_MEAN ? 1.0 / static_cast<double>(src->ne[0]) : 1.0;
    const Range         rows  = thread_range(p, ggml_nrows(src));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(src, r);
        const double    s = row_sum(src, row_ptr(src, c), src->ne[0]);
        store_value(dst->type, row_ptr(dst, c), static_cast<float>(s * scale));
    }
}

bool sum_rows_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && dst->ne[0] == 1 &&
           dst->ne[1] == src->ne[1] && dst->ne[2] == src->ne[2] && dst->ne[3] == src->ne[3];
}

void cumsum_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       n    = src->ne[0];
    const Range         rows = thread_range(p, ggml_nrows(src));
    float               buf[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c     = row_coords(src, r);
        const char *    s     = row_ptr(src, c);
        char *          d     = row_ptr(dst, c);
        double          total = 0.0;
        for (int64_t i = 0; i < n; i += kChunk) {
            const int64_t m = std::min(kChunk, n - i);
            load_row(src->type, s + i * static_cast<int64_t>(src->nb[0]), src->nb[0], buf, m);
            for (int64_t k = 0; k < m; ++k) {
                total += buf[k];
                buf[k] = static_cast<float>(total);
            }
            store_row(dst->type, buf, d + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
        }
    }
}

bool cumsum_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && ggml_are_same_shape(src, dst);
}

// Index of the first maximum; NaNs never win, a row of NaN / -inf gives 0.
int32_t row_argmax(const ggml_tensor * t, const char * row, int64_t n) {
    float   buf[kChunk];
    float   best = -INFINITY;
    int64_t idx  = 0;
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        load_row(t->type, row + i * static_cast<int64_t>(t->nb[0]), t->nb[0], buf, m);
        for (int64_t k = 0; k < m; ++k) {
            if (buf[k] > best) {
                best = buf[k];
                idx  = i + k;
            }
        }
    }
    return static_cast<int32_t>(idx);
}

void argmax_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const Range         rows = thread_range(p, src->ne[1]);
    for (int64_t i1 = rows.begin; i1 < rows.end; ++i1) {
        const int32_t v = row_argmax(src, row_ptr(src, i1, 0, 0), src->ne[0]);
        std::memcpy(static_cast<char *>(dst->data) + i1 * static_cast<int64_t>(dst->nb[0]), &v, sizeof(v));
    }
}

bool argmax_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && dst->type == GGML_TYPE_I32 && src->ne[2] == 1 && src->ne[3] == 1 &&
           dst->ne[0] == src->ne[1] && src->ne[0] <= INT32_MAX;
}

} // namespace

KernelInfo reduce(ggml_op op) {
    switch (op) {
        case GGML_OP_SUM:      return KernelInfo{sum_compute, single_task, nullptr, sum_supports};
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:     return KernelInfo{sum_rows_compute, nullptr, nullptr, sum_rows_supports};
        case GGML_OP_ARGMAX:   return KernelInfo{argmax_compute, nullptr, nullptr, argmax_supports};
        case GGML_OP_CUMSUM:   return KernelInfo{cumsum_compute, nullptr, nullptr, cumsum_supports};
        default:               return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
