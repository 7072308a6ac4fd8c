// Reference training ops: the gradient ops SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK, REPEAT_BACK, GET_ROWS_BACK,
// the loss CROSS_ENTROPY_LOSS(_BACK) and the optimizer steps OPT_STEP_ADAMW / OPT_STEP_SGD, written from their
// definitions in double precision (no shared code with the kernels).
#include "conformance/reference/util.h"

#include <algorithm>
#include <vector>

namespace switchyard::testing::reference {

namespace {

std::vector<double> row_of(const ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    std::vector<double> v(static_cast<size_t>(t->ne[0]));
    for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) v[static_cast<size_t>(i0)] = get(t, i0, i1, i2, i3);
    return v;
}

template <typename F>
void for_each_row(const ggml_tensor * t, F && f) {
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) f(i1, i2, i3);
}

bool silu_back(ggml_tensor * node) {
    const ggml_tensor * dy = node->src[0], *x = node->src[1];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const double v = get(x, i0, i1, i2, i3), s = sigmoid(v);
        set(node, i0, i1, i2, i3, static_cast<float>(get(dy, i0, i1, i2, i3) * (s + v * s * (1.0 - s))));
    });
    return true;
}

// d/dx of x / sqrt(mean(x^2) + eps), applied to dy
bool rms_norm_back(ggml_tensor * node) {
    const ggml_tensor * dy = node->src[0], *x = node->src[1];
    const double        eps = param_f32(node, 0);
    const auto          n   = static_cast<double>(node->ne[0]);
    for_each_row(node, [&](int64_t i1, int64_t i2, int64_t i3) {
        const std::vector<double> xs = row_of(x, i1, i2, i3), g = row_of(dy, i1, i2, i3);
        double ms = 0, dot = 0;
        for (size_t i = 0; i < xs.size(); ++i) {
            ms += xs[i] * xs[i] / n;
            dot += xs[i] * g[i];
        }
        const double r = 1.0 / std::sqrt(ms + eps);
        for (size_t i = 0; i < xs.size(); ++i) {
            set(node, static_cast<int64_t>(i), i1, i2, i3, static_cast<float>(g[i] * r - xs[i] * dot * r * r * r / n));
        }
    });
    return true;
}

bool soft_max_back(ggml_tensor * node) {
    const ggml_tensor * dy = node->src[0], *y = node->src[1];
    const double        scale = param_f32(node, 0);
    for_each_row(node, [&](int64_t i1, int64_t i2, int64_t i3) {
        const std::vector<double> ys = row_of(y, i1, i2, i3), g = row_of(dy, i1, i2, i3);
        double dot = 0;
        for (size_t i = 0; i < ys.size(); ++i) dot += ys[i] * g[i];
        for (size_t i = 0; i < ys.size(); ++i) {
            set(node, static_cast<int64_t>(i), i1, i2, i3, static_cast<float>(scale * ys[i] * (g[i] - dot)));
        }
    });
    return true;
}

bool repeat_back(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    std::vector<double> sums(static_cast<size_t>(ggml_nelements(node)), 0.0);
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const int64_t k = flat_index(node, i0 % node->ne[0], i1 % node->ne[1], i2 % node->ne[2], i3 % node->ne[3]);
        sums[static_cast<size_t>(k)] += get(a, i0, i1, i2, i3);
    });
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        set(node, i0, i1, i2, i3, static_cast<float>(sums[static_cast<size_t>(flat_index(node, i0, i1, i2, i3))]));
    });
    return true;
}

bool get_rows_back(ggml_tensor * node) {
    const ggml_tensor * g = node->src[0], *idx = node->src[1];
    std::vector<double> sums(static_cast<size_t>(ggml_nelements(node)), 0.0);
    for (int64_t i = 0; i < idx->ne[0]; ++i) {
        const int64_t row = get_index(idx, i, 0, 0, 0);
        for (int64_t c = 0; c < g->ne[0]; ++c) sums[static_cast<size_t>(row * node->ne[0] + c)] += get(g, c, i, 0, 0);
    }
    for_each(node, [&](int64_t i0, int64_t i1, int64_t, int64_t) {
        set(node, i0, i1, 0, 0, static_cast<float>(sums[static_cast<size_t>(i1 * node->ne[0] + i0)]));
    });
    return true;
}

// log(softmax(x)) of one row
std::vector<double> log_softmax(const std::vector<double> & x) {
    const double mx  = *std::max_element(x.begin(), x.end());
    double       sum = 0;
    for (double v : x) sum += std::exp(v - mx);
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] - mx - std::log(sum);
    return out;
}

bool cross_entropy_loss(ggml_tensor * node) {
    const ggml_tensor * logits = node->src[0], *labels = node->src[1];
    double              total = 0;
    for_each_row(logits, [&](int64_t i1, int64_t i2, int64_t i3) {
        const std::vector<double> ls = log_softmax(row_of(logits, i1, i2, i3)), y = row_of(labels, i1, i2, i3);
        for (size_t i = 0; i < ls.size(); ++i) total += y[i] * ls[i];
    });
    set(node, 0, 0, 0, 0, static_cast<float>(-total / static_cast<double>(ggml_nrows(logits))));
    return true;
}

bool cross_entropy_loss_back(ggml_tensor * node) {
    const ggml_tensor * grad = node->src[0], *logits = node->src[1], *labels = node->src[2];
    const double        g = get(grad, 0, 0, 0, 0) / static_cast<double>(ggml_nrows(logits));
    for_each_row(logits, [&](int64_t i1, int64_t i2, int64_t i3) {
        const std::vector<double> ls = log_softmax(row_of(logits, i1, i2, i3)), y = row_of(labels, i1, i2, i3);
        for (size_t i = 0; i < ls.size(); ++i) {
            set(node, static_cast<int64_t>(i), i1, i2, i3, static_cast<float>((std::exp(ls[i]) - y[i]) * g));
        }
    });
    return true;
}

bool opt_step_adamw(ggml_tensor * node) {
    ggml_tensor *       m = node->src[2], *v = node->src[3];
    const ggml_tensor * w = node->src[0], *g = node->src[1], *hp = node->src[4];
    double h[7];
    for (int i = 0; i < 7; ++i) h[i] = get(hp, i, 0, 0, 0);
    const double alpha = h[0], beta1 = h[1], beta2 = h[2], eps = h[3], wd = h[4], beta1h = h[5], beta2h = h[6];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const double gi = get(g, i0, i1, i2, i3);
        const double mi = beta1 * get(m, i0, i1, i2, i3) + (1 - beta1) * gi;
        const double vi = beta2 * get(v, i0, i1, i2, i3) + (1 - beta2) * gi * gi;
        const double wi = get(w, i0, i1, i2, i3) * (1 - alpha * wd) - alpha * mi * beta1h / (std::sqrt(vi * beta2h) + eps);
        set(m, i0, i1, i2, i3, static_cast<float>(mi));
        set(v, i0, i1, i2, i3, static_cast<float>(vi));
        set(node, i0, i1, i2, i3, static_cast<float>(wi));
    });
    return true;
}

bool opt_step_sgd(ggml_tensor * node) {
    const ggml_tensor * w = node->src[0], *g = node->src[1], *hp = node->src[2];
    const double        alpha = get(hp, 0, 0, 0, 0), wd = get(hp, 1, 0, 0, 0);
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const double wi = get(w, i0, i1, i2, i3) * (1 - alpha * wd) - alpha * get(g, i0, i1, i2, i3);
        set(node, i0, i1, i2, i3, static_cast<float>(wi));
    });
    return true;
}

} // namespace

bool training(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SILU_BACK:               return silu_back(node);
        case GGML_OP_RMS_NORM_BACK:           return rms_norm_back(node);
        case GGML_OP_SOFT_MAX_BACK:           return soft_max_back(node);
        case GGML_OP_REPEAT_BACK:             return repeat_back(node);
        case GGML_OP_GET_ROWS_BACK:           return get_rows_back(node);
        case GGML_OP_CROSS_ENTROPY_LOSS:      return cross_entropy_loss(node);
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK: return cross_entropy_loss_back(node);
        case GGML_OP_OPT_STEP_ADAMW:          return opt_step_adamw(node);
        case GGML_OP_OPT_STEP_SGD:            return opt_step_sgd(node);
        default:                              return false;
    }
}

} // namespace switchyard::testing::reference
