// Gradient ops: SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK, REPEAT_BACK and
// GET_ROWS_BACK. Shapes and op_params are those of the constructors (core/ops/backward.cpp). All tensors F32
// with adjacent elements in each row (rows, planes and volumes may be strided); threads split the rows of dst.
//
// SILU_BACK:     dst = dy * s * (1 + x * (1 - s)), s = sigmoid(x); src0 dy, src1 x. dst may be src0.
// RMS_NORM_BACK: per row, r = 1 / sqrt(mean(x^2) + eps): dst = r * (dy - x * sum(x * dy) * r^2 / n); src0 dy,
//                src1 x; sums in double. dst may be src0.
// SOFT_MAX_BACK: per row, dst = scale * y * (dy - sum(y * dy)); src0 dy, src1 y. max_bias must be 0 (ALiBi
//                slopes have no gradient here, as upstream's CPU backend). dst may be src0.
// REPEAT_BACK:   dst (b's shape) = the sum of every repeat of it in src0.
// GET_ROWS_BACK: dst = 0, then row i of src0 added to row src1[i] of dst. Each thread owns a block of dst rows
//                and scans all indices, so the sums are formed in index order whatever the thread count. An
//                index outside [0, dst->ne[1]) is a data error (reported by thread 0; the row is skipped).
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

const float * frow(const ggml_tensor * t, const RowCoords & c) {
    return reinterpret_cast<const float *>(row_ptr(t, c));
}

float * frow_out(ggml_tensor * t, const RowCoords & c) {
    return reinterpret_cast<float *>(row_ptr(t, c));
}

// Every source present and dst are F32 rows shaped like dst (when `same_shape`).
bool f32_like_dst(const ggml_tensor * dst, int n_src, bool same_shape) {
    if (!is_f32_rows(dst)) {
        return false;
    }
    for (int i = 0; i < n_src; ++i) {
        const ggml_tensor * s = dst->src[i];
        if (!s || !is_f32_rows(s) || (same_shape && !ggml_are_same_shape(s, dst))) {
            return false;
        }
    }
    return true;
}

bool two_f32_like_dst(const ggml_tensor * dst) {
    return f32_like_dst(dst, 2, true);
}

// ---- SILU_BACK ----

void silu_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const Range rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r);
        const float *   dy = frow(dst->src[0], c);
        const float *   x  = frow(dst->src[1], c);
        float *         d  = frow_out(dst, c);
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            const float s = 1.0f / (1.0f + std::exp(-x[i]));
            d[i]          = dy[i] * s * (1.0f + x[i] * (1.0f - s));
        }
    }
}

// ---- RMS_NORM_BACK ----

void rms_norm_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const float   eps  = op_f32(dst, 0);
    const int64_t n    = dst->ne[0];
    const Range   rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r);
        const float *   dy = frow(dst->src[0], c);
        const float *   x  = frow(dst->src[1], c);
        double          sum_xx = 0.0, sum_xdy = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            sum_xx += static_cast<double>(x[i]) * x[i];
            sum_xdy += static_cast<double>(x[i]) * dy[i];
        }
        const double mean_eps = sum_xx / static_cast<double>(n) + eps;
        const auto   rrms     = static_cast<float>(1.0 / std::sqrt(mean_eps));
        const auto   k        = static_cast<float>(sum_xdy / (static_cast<double>(n) * mean_eps));
        float *      d        = frow_out(dst, c);
        for (int64_t i = 0; i < n; ++i) {
            d[i] = rrms * (dy[i] - x[i] * k);
        }
    }
}

// ---- SOFT_MAX_BACK ----

void soft_max_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const float scale = op_f32(dst, 0);
    const Range rows  = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c   = row_coords(dst, r);
        const float *   dy  = frow(dst->src[0], c);
        const float *   y   = frow(dst->src[1], c);
        double          dot = 0.0;
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            dot += static_cast<double>(y[i]) * dy[i];
        }
        const auto f = static_cast<float>(dot);
        float *    d = frow_out(dst, c);
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            d[i] = scale * y[i] * (dy[i] - f);
        }
    }
}

bool soft_max_back_supports(const ggml_tensor * dst) {
    return two_f32_like_dst(dst) && op_f32(dst, 1) == 0.0f;
}

// ---- REPEAT_BACK ----

void repeat_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    int64_t             reps[4];
    for (int d = 0; d < 4; ++d) {
        reps[d] = src->ne[d] / dst->ne[d];
    }
    const int64_t ne0  = dst->ne[0];
    const Range   rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        float *         d = frow_out(dst, c);
        std::fill(d, d + ne0, 0.0f);
        for (int64_t k3 = 0; k3 < reps[3]; ++k3)
            for (int64_t k2 = 0; k2 < reps[2]; ++k2)
                for (int64_t k1 = 0; k1 < reps[1]; ++k1) {
                    const RowCoords sc{c.i1 + k1 * dst->ne[1], c.i2 + k2 * dst->ne[2], c.i3 + k3 * dst->ne[3]};
                    const float *   s = frow(src, sc);
                    for (int64_t k0 = 0; k0 < reps[0]; ++k0) {
                        for (int64_t i = 0; i < ne0; ++i) {
                            d[i] += s[k0 * ne0 + i];
                        }
                    }
                }
    }
}

bool repeat_back_supports(const ggml_tensor * dst) {
    return f32_like_dst(dst, 1, false) && ggml_can_repeat(dst, dst->src[0]);
}

// ---- GET_ROWS_BACK ----

void get_rows_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * grad = dst->src[0];
    const ggml_tensor * idx  = dst->src[1];
    const int64_t       nr   = dst->ne[1];
    const Range         own  = thread_range(p, nr);
    for (int64_t r = own.begin; r < own.end; ++r) {
        float * d = frow_out(dst, {r, 0, 0});
        std::fill(d, d + dst->ne[0], 0.0f);
    }
    for (int64_t i = 0; i < idx->ne[0]; ++i) {
        int32_t row;
        std::memcpy(&row, static_cast<const char *>(idx->data) + i * static_cast<int64_t>(idx->nb[0]), sizeof(row));
        if (!index_in_range(row, nr)) {
            if (p.ith == 0) {
                report_data_error(p, "index %d out of range [0, %lld) at %lld of src1 '%s'", row,
                                  static_cast<long long>(nr), static_cast<long long>(i), idx->name);
            }
            continue;
        }
        if (row < own.begin || row >= own.end) {
            continue;
        }
        const float * s = frow(grad, {i, 0, 0});
        float *       d = frow_out(dst, {row, 0, 0});
        for (int64_t k = 0; k < dst->ne[0]; ++k) {
            d[k] += s[k];
        }
    }
}

bool get_rows_back_supports(const ggml_tensor * dst) {
    const ggml_tensor * grad = dst->src[0];
    const ggml_tensor * idx  = dst->src[1];
    return is_f32_rows(dst) && grad && is_f32_rows(grad) && idx && idx->type == GGML_TYPE_I32 &&
           ggml_is_matrix(grad) && ggml_is_matrix(dst) && grad->ne[0] == dst->ne[0] && ggml_is_vector(idx) &&
           idx->ne[0] <= grad->ne[1]; // row i of grad for index i: more indices than rows would read past grad
}

} // namespace

KernelInfo backward(ggml_op op) {
    switch (op) {
        case GGML_OP_SILU_BACK:     return KernelInfo{silu_back_compute, nullptr, nullptr, two_f32_like_dst};
        case GGML_OP_RMS_NORM_BACK: return KernelInfo{rms_norm_back_compute, nullptr, nullptr, two_f32_like_dst};
        case GGML_OP_SOFT_MAX_BACK: return KernelInfo{soft_max_back_compute, nullptr, nullptr, soft_max_back_supports};
        case GGML_OP_REPEAT_BACK:   return KernelInfo{repeat_back_compute, nullptr, nullptr, repeat_back_supports};
        case GGML_OP_GET_ROWS_BACK: return KernelInfo{get_rows_back_compute, nullptr, nullptr, get_rows_back_supports};
        default:                    return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
