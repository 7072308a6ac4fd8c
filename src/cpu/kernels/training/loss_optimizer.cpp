// Loss and optimizer ops: CROSS_ENTROPY_LOSS, CROSS_ENTROPY_LOSS_BACK,
// OPT_STEP_ADAMW and OPT_STEP_SGD. Shapes and parameters are those of the constructors (core/ops/training.cpp).
// All tensors F32 with adjacent elements in each row.
//
// CROSS_ENTROPY_LOSS: dst[0] = -sum over rows of sum(labels * log_softmax(logits)) / rows, in double on one
//   thread (the value then does not depend on the thread count). A label 0 next to a logit of -inf adds 0.
// CROSS_ENTROPY_LOSS_BACK: dst = (softmax(logits) - labels) * grad[0] / rows; threads split the rows.
// OPT_STEP_ADAMW: per element, with {alpha, beta1, beta2, eps, wd, beta1h, beta2h} = src4:
//   m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
//   w = w (1 - alpha wd) - alpha (m beta1h) / (sqrt(v beta2h) + eps). w (dst, a view of src0), m, v in place.
// OPT_STEP_SGD: w = w (1 - alpha wd) - alpha g with {alpha, wd} = src2.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include <limits>

namespace switchyard::cpu::kernels {

namespace {

const float * frow(const ggml_tensor * t, const RowCoords & c) {
    return reinterpret_cast<const float *>(row_ptr(t, c));
}

float * frow_out(const ggml_tensor * t, const RowCoords & c) {
    return reinterpret_cast<float *>(row_ptr(t, c));
}

float scalar_at(const ggml_tensor * t, int64_t i) {
    float v;
    std::memcpy(&v, static_cast<const char *>(t->data) + i * static_cast<int64_t>(t->nb[0]), sizeof(v));
    return v;
}

// The maximum of the row and the sum of exp(x - max).
struct RowSoftmax {
    float  max;
    double sum;
};

RowSoftmax row_softmax(const float * x, int64_t n) {
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n; ++i) {
        mx = std::max(mx, x[i]);
    }
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        sum += std::exp(static_cast<double>(x[i]) - mx);
    }
    return {mx, sum};
}

// ---- CROSS_ENTROPY_LOSS ----

void cross_entropy_compute(const ComputeParams &, ggml_tensor * dst) {
    const ggml_tensor * logits = dst->src[0];
    const ggml_tensor * labels = dst->src[1];
    const int64_t       n      = logits->ne[0];
    const int64_t       nr     = ggml_nrows(logits);
    double              total  = 0.0;
    for (int64_t r = 0; r < nr; ++r) {
        const RowCoords  c  = row_coords(logits, r);
        const float *    x  = frow(logits, c);
        const float *    y  = frow(labels, c);
        const RowSoftmax sm = row_softmax(x, n);
        const double     log_sum = std::log(sm.sum);
        for (int64_t i = 0; i < n; ++i) {
            if (y[i] != 0.0f) {
                total += static_cast<double>(y[i]) * (static_cast<double>(x[i]) - sm.max - log_sum);
            }
        }
    }
    *static_cast<float *>(dst->data) = static_cast<float>(-total / static_cast<double>(nr));
}

bool cross_entropy_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    return a && b && is_f32_rows(a) && is_f32_rows(b) && ggml_are_same_shape(a, b) && dst->type == GGML_TYPE_F32 &&
           ggml_nelements(dst) == 1;
}

// ---- CROSS_ENTROPY_LOSS_BACK ----

void cross_entropy_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * logits = dst->src[1];
    const ggml_tensor * labels = dst->src[2];
    const int64_t       n      = logits->ne[0];
    const int64_t       nr     = ggml_nrows(logits);
    const double        g      = static_cast<double>(scalar_at(dst->src[0], 0)) / static_cast<double>(nr);
    const Range         rows   = thread_range(p, nr);
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords  c  = row_coords(dst, r);
        const float *    x  = frow(logits, c);
        const float *    y  = frow(labels, c);
        float *          d  = frow_out(dst, c);
        const RowSoftmax sm = row_softmax(x, n);
        for (int64_t i = 0; i < n; ++i) {
            const double s = std::exp(static_cast<double>(x[i]) - sm.max) / sm.sum;
            d[i]           = static_cast<float>((s - y[i]) * g);
        }
    }
}

bool cross_entropy_back_supports(const ggml_tensor * dst) {
    const ggml_tensor * g = dst->src[0];
    const ggml_tensor * a = dst->src[1];
    const ggml_tensor * b = dst->src[2];
    return g && a && b && g->type == GGML_TYPE_F32 && ggml_nelements(g) == 1 && is_f32_rows(a) && is_f32_rows(b) &&
           is_f32_rows(dst) && ggml_are_same_shape(a, b) && ggml_are_same_shape(a, dst);
}

// ---- OPT_STEP_ADAMW ----

void adamw_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * grad   = dst->src[1];
    const ggml_tensor * m      = dst->src[2];
    const ggml_tensor * v      = dst->src[3];
    const ggml_tensor * params = dst->src[4];
    const float alpha = scalar_at(params, 0), beta1 = scalar_at(params, 1), beta2 = scalar_at(params, 2);
    const float eps = scalar_at(params, 3), wd = scalar_at(params, 4);
    const float beta1h = scalar_at(params, 5), beta2h = scalar_at(params, 6);
    const float keep = 1.0f - alpha * wd;
    const Range rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r);
        float *         w  = frow_out(dst, c);
        const float *   g  = frow(grad, c);
        float *         mr = frow_out(m, c);
        float *         vr = frow_out(v, c);
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            mr[i]          = mr[i] * beta1 + g[i] * (1.0f - beta1);
            vr[i]          = vr[i] * beta2 + g[i] * g[i] * (1.0f - beta2);
            const float mh = mr[i] * beta1h;
            const float vh = std::sqrt(vr[i] * beta2h) + eps;
            w[i]           = w[i] * keep - alpha * mh / vh;
        }
    }
}

bool step_tensors_ok(const ggml_tensor * dst, int n_like) {
    const ggml_tensor * a = dst->src[0];
    if (!a || !is_f32_rows(a) || !is_f32_rows(dst) || !ggml_are_same_shape(a, dst) || a->data != dst->data) {
        return false;
    }
    for (int i = 1; i <= n_like; ++i) {
        const ggml_tensor * s = dst->src[i];
        if (!s || !is_f32_rows(s) || !ggml_are_same_shape(s, a)) {
            return false;
        }
    }
    const ggml_tensor * params = dst->src[n_like + 1];
    return params && params->type == GGML_TYPE_F32;
}

bool adamw_supports(const ggml_tensor * dst) {
    return step_tensors_ok(dst, 3) && ggml_nelements(dst->src[4]) == 7;
}

// ---- OPT_STEP_SGD ----

void sgd_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * grad   = dst->src[1];
    const ggml_tensor * params = dst->src[2];
    const float         alpha = scalar_at(params, 0), wd = scalar_at(params, 1);
    const float         keep  = 1.0f - alpha * wd;
    const Range         rows  = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        float *         w = frow_out(dst, c);
        const float *   g = frow(grad, c);
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            w[i] = w[i] * keep - alpha * g[i];
        }
    }
}

bool sgd_supports(const ggml_tensor * dst) {
    return step_tensors_ok(dst, 1) && ggml_nelements(dst->src[2]) == 2;
}

} // namespace

KernelInfo loss_optimizer(ggml_op op) {
    switch (op) {
        case GGML_OP_CROSS_ENTROPY_LOSS:
            return KernelInfo{cross_entropy_compute, single_task, nullptr, cross_entropy_supports};
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK:
            return KernelInfo{cross_entropy_back_compute, nullptr, nullptr, cross_entropy_back_supports};
        case GGML_OP_OPT_STEP_ADAMW: return KernelInfo{adamw_compute, nullptr, nullptr, adamw_supports};
        case GGML_OP_OPT_STEP_SGD:   return KernelInfo{sgd_compute, nullptr, nullptr, sgd_supports};
        default:                     return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
