// Reference reductions (COUNT_EQUAL among them), running sums (CUMSUM) and normalisations (all accumulate in
// double).
#include "conformance/reference/util.h"

#include <vector>

namespace switchyard::testing::reference {

namespace {

bool sum(ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    double              acc = 0;
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { acc += get(a, i0, i1, i2, i3); });
    set(node, 0, 0, 0, 0, static_cast<float>(acc));
    return true;
}

// per row of src0: f(row values) -> value written at dst[0, i1, i2, i3]
template <typename F>
bool per_row(ggml_tensor * node, F && f) {
    const ggml_tensor * a = node->src[0];
    std::vector<double> row(static_cast<size_t>(a->ne[0]));
    for (int64_t i3 = 0; i3 < a->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < a->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
                for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) row[static_cast<size_t>(i0)] = get(a, i0, i1, i2, i3);
                f(row, i1, i2, i3);
            }
    return true;
}

bool normalise_rows(ggml_tensor * node) {
    const float eps = param_f32(node, 0);
    return per_row(node, [&](std::vector<double> & row, int64_t i1, int64_t i2, int64_t i3) {
        const double n = static_cast<double>(row.size());
        double       mean = 0, sq = 0;
        for (double v : row) mean += v;
        mean /= n;
        for (double v : row) sq += v * v;
        double scale = 1.0, shift = 0.0;
        if (node->op == GGML_OP_NORM) {
            double var = 0;
            for (double v : row) var += (v - mean) * (v - mean);
            var /= n;
            scale = 1.0 / std::sqrt(var + eps);
            shift = mean;
        } else if (node->op == GGML_OP_RMS_NORM) {
            scale = 1.0 / std::sqrt(sq / n + eps);
        } else { // L2_NORM
            scale = 1.0 / std::max(std::sqrt(sq), static_cast<double>(eps));
        }
        for (size_t i0 = 0; i0 < row.size(); ++i0) {
            set(node, static_cast<int64_t>(i0), i1, i2, i3, static_cast<float>((row[i0] - shift) * scale));
        }
    });
}

bool group_norm(ggml_tensor * node) {
    const ggml_tensor * a        = node->src[0];
    const int64_t       n_groups = param_i32(node, 0);
    const float         eps      = param_f32(node, 1);
    const int64_t       per      = (a->ne[2] + n_groups - 1) / n_groups;
    for (int64_t i3 = 0; i3 < a->ne[3]; ++i3) {
        for (int64_t g = 0; g < n_groups; ++g) {
            const int64_t c0 = g * per, c1 = std::min(a->ne[2], c0 + per);
            double        mean = 0, var = 0, n = 0;
            for (int64_t c = c0; c < c1; ++c)
                for (int64_t i1 = 0; i1 < a->ne[1]; ++i1)
                    for (int64_t i0 = 0; i0 < a->ne[0]; ++i0, ++n) mean += get(a, i0, i1, c, i3);
            if (n == 0) continue;
            mean /= n;
            for (int64_t c = c0; c < c1; ++c)
                for (int64_t i1 = 0; i1 < a->ne[1]; ++i1)
                    for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) {
                        const double d = get(a, i0, i1, c, i3) - mean;
                        var += d * d;
                    }
            const double scale = 1.0 / std::sqrt(var / n + eps);
            for (int64_t c = c0; c < c1; ++c)
                for (int64_t i1 = 0; i1 < a->ne[1]; ++i1)
                    for (int64_t i0 = 0; i0 < a->ne[0]; ++i0)
                        set(node, i0, i1, c, i3, static_cast<float>((get(a, i0, i1, c, i3) - mean) * scale));
        }
    }
    return true;
}

bool count_equal(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    int64_t             n = 0;
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        n += get(a, i0, i1, i2, i3) == get(b, i0, i1, i2, i3) ? 1 : 0;
    });
    set(node, 0, 0, 0, 0, static_cast<float>(n));
    return true;
}

} // namespace

bool reduce_norm(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SUM: return sum(node);
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            return per_row(node, [&](std::vector<double> & row, int64_t i1, int64_t i2, int64_t i3) {
                double s = 0;
                for (double v : row) s += v;
                if (node->op == GGML_OP_MEAN) s /= static_cast<double>(row.size());
                set(node, 0, i1, i2, i3, static_cast<float>(s));
            });
        case GGML_OP_ARGMAX:
            return per_row(node, [&](std::vector<double> & row, int64_t i1, int64_t, int64_t) {
                size_t best = 0;
                for (size_t i = 1; i < row.size(); ++i) best = row[i] > row[best] ? i : best;
                set(node, i1, 0, 0, 0, static_cast<float>(best));
            });
        case GGML_OP_COUNT_EQUAL: return count_equal(node);
        case GGML_OP_CUMSUM:
            return per_row(node, [&](std::vector<double> & row, int64_t i1, int64_t i2, int64_t i3) {
                double s = 0;
                for (size_t i0 = 0; i0 < row.size(); ++i0) {
                    s += row[i0];
                    set(node, static_cast<int64_t>(i0), i1, i2, i3, static_cast<float>(s));
                }
            });
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM: return normalise_rows(node);
        case GGML_OP_GROUP_NORM: return group_norm(node);
        default: return false;
    }
}

} // namespace switchyard::testing::reference
