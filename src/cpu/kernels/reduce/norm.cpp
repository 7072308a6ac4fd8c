// Normalisations along rows: NORM (y = (x - mean) / sqrt(var + eps)), RMS_NORM (y = x / sqrt(mean(x^2) + eps)),
// L2_NORM (y = x / max(||x||, eps)); op_params [0] eps (f32). GROUP_NORM: op_params [0] n_groups (i32), [1] eps
// (f32); the channels (dim 2) are split into groups of ceil(ne2 / n_groups) and each (group, i3) block of
// ne0 * ne1 * channels elements is normalised like NORM.
//
// Types: src and dst F32, F16 or BF16 (any pair), same shape, any strides, dst may be src (in place). Statistics
// accumulate in double; F32 rows with unit stride are read in place, others through kChunk float buffers.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

enum class Stat { kSum, kSumSq, kSumSqDev };

// A statistic of the n elements of the row at `row` of t (mean is used by kSumSqDev).
double row_stat(const ggml_tensor * t, const char * row, int64_t n, Stat stat, float mean) {
    const RowKernels & k     = row_kernels();
    auto               apply = [&](const float * x, int64_t m) {
        switch (stat) {
            case Stat::kSum:   return k.sum(x, m);
            case Stat::kSumSq: return k.sum_sq(x, m);
            default:           return k.sum_sq_dev(x, m, mean);
        }
    };
    if (is_f32_rows(t)) {
        return apply(reinterpret_cast<const float *>(row), n);
    }
    float  buf[kChunk];
    double total = 0.0;
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        load_row(t->type, row + i * static_cast<int64_t>(t->nb[0]), t->nb[0], buf, m);
        total += apply(buf, m);
    }
    return total;
}

// d = (s - shift) * scale over n elements (s a row of src, d the same row of dst).
void row_shift_scale(const ggml_tensor * src, const char * s, const ggml_tensor * dst, char * d, int64_t n,
                     float shift, float scale) {
    const RowKernels & k = row_kernels();
    if (is_f32_rows(src) && is_f32_rows(dst)) {
        k.shift_scale(reinterpret_cast<const float *>(s), reinterpret_cast<float *>(d), n, shift, scale);
        return;
    }
    float buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        load_row(src->type, s + i * static_cast<int64_t>(src->nb[0]), src->nb[0], buf, m);
        k.shift_scale(buf, buf, m, shift, scale);
        store_row(dst->type, buf, d + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
    }
}

void norm_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const float         eps  = op_f32(dst, 0);
    const int64_t       n    = src->ne[0];
    const double        inv  = 1.0 / static_cast<double>(n);
    const Range         rows = thread_range(p, ggml_nrows(src));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c     = row_coords(src, r);
        const char *    s     = row_ptr(src, c);
        float           shift = 0.0f;
        float           scale = 1.0f;
        if (dst->op == GGML_OP_NORM) {
            shift            = static_cast<float>(row_stat(src, s, n, Stat::kSum, 0.0f) * inv);
            const double var = row_stat(src, s, n, Stat::kSumSqDev, shift) * inv;
            scale            = static_cast<float>(1.0 / std::sqrt(var + eps));
        } else if (dst->op == GGML_OP_RMS_NORM) {
            const double mean_sq = row_stat(src, s, n, Stat::kSumSq, 0.0f) * inv;
            scale                = static_cast<float>(1.0 / std::sqrt(mean_sq + eps));
        } else { // L2_NORM
            const double norm = std::sqrt(row_stat(src, s, n, Stat::kSumSq, 0.0f));
            scale             = static_cast<float>(1.0 / std::max(norm, static_cast<double>(eps)));
        }
        row_shift_scale(src, s, dst, row_ptr(dst, c), n, shift, scale);
    }
}

bool norm_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && is_float_type(dst->type) && ggml_are_same_shape(src, dst);
}

// ---- GROUP_NORM ----

// Sum of a statistic over the rows of channels [c0, c1) of volume i3.
double group_stat(const ggml_tensor * src, int64_t c0, int64_t c1, int64_t i3, Stat stat, float mean) {
    double total = 0.0;
    for (int64_t i2 = c0; i2 < c1; ++i2) {
        for (int64_t i1 = 0; i1 < src->ne[1]; ++i1) {
            total += row_stat(src, row_ptr(src, i1, i2, i3), src->ne[0], stat, mean);
        }
    }
    return total;
}

void group_norm_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src      = dst->src[0];
    const int64_t       n_groups = op_i32(dst, 0);
    const float         eps      = op_f32(dst, 1);
    const int64_t       per      = (src->ne[2] + n_groups - 1) / n_groups; // channels per group
    const Range         items    = thread_range(p, n_groups * src->ne[3]);
    for (int64_t it = items.begin; it < items.end; ++it) {
        const int64_t g  = it % n_groups;
        const int64_t i3 = it / n_groups;
        const int64_t c0 = std::min(g * per, src->ne[2]);
        const int64_t c1 = std::min(c0 + per, src->ne[2]);
        if (c0 >= c1) {
            continue;
        }
        const double count = static_cast<double>(src->ne[0] * src->ne[1] * (c1 - c0));
        const auto   mean  = static_cast<float>(group_stat(src, c0, c1, i3, Stat::kSum, 0.0f) / count);
        const double var   = group_stat(src, c0, c1, i3, Stat::kSumSqDev, mean) / count;
        const auto   scale = static_cast<float>(1.0 / std::sqrt(var + eps));
        for (int64_t i2 = c0; i2 < c1; ++i2) {
            for (int64_t i1 = 0; i1 < src->ne[1]; ++i1) {
                row_shift_scale(src, row_ptr(src, i1, i2, i3), dst, row_ptr(dst, i1, i2, i3), src->ne[0], mean,
                                scale);
            }
        }
    }
}

bool group_norm_supports(const ggml_tensor * dst) {
    return norm_supports(dst) && op_i32(dst, 0) > 0;
}

} // namespace

KernelInfo norm(ggml_op op) {
    switch (op) {
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:    return KernelInfo{norm_compute, nullptr, nullptr, norm_supports};
        case GGML_OP_GROUP_NORM: return KernelInfo{group_norm_compute, nullptr, nullptr, group_norm_supports};
        default:                 return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
