// Reference element-wise ops: unary activations, binary ops with broadcasting, gated linear units, and the
// simple per-element ops with parameters.
#include "conformance/reference/util.h"

#include <algorithm>

namespace switchyard::testing::reference {

namespace {

double unary_value(ggml_unary_op op, double x) {
    switch (op) {
        case GGML_UNARY_OP_ABS:         return std::fabs(x);
        case GGML_UNARY_OP_SGN:         return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
        case GGML_UNARY_OP_NEG:         return -x;
        case GGML_UNARY_OP_STEP:        return x > 0 ? 1.0 : 0.0;
        case GGML_UNARY_OP_TANH:        return std::tanh(x);
        case GGML_UNARY_OP_ELU:         return x > 0 ? x : std::expm1(x);
        case GGML_UNARY_OP_RELU:        return x > 0 ? x : 0.0;
        case GGML_UNARY_OP_SIGMOID:     return sigmoid(x);
        case GGML_UNARY_OP_GELU:        return gelu_tanh(x);
        case GGML_UNARY_OP_GELU_QUICK:  return x * sigmoid(1.702 * x);
        case GGML_UNARY_OP_SILU:        return x * sigmoid(x);
        case GGML_UNARY_OP_HARDSWISH:   return x * std::min(1.0, std::max(0.0, (x + 3.0) / 6.0));
        case GGML_UNARY_OP_HARDSIGMOID: return std::min(1.0, std::max(0.0, (x + 3.0) / 6.0));
        case GGML_UNARY_OP_EXP:         return std::exp(x);
        case GGML_UNARY_OP_EXPM1:       return std::expm1(x);
        case GGML_UNARY_OP_SOFTPLUS:    return x > 20.0 ? x : std::log1p(std::exp(x));
        case GGML_UNARY_OP_GELU_ERF:    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        case GGML_UNARY_OP_FLOOR:       return std::floor(x);
        case GGML_UNARY_OP_CEIL:        return std::ceil(x);
        case GGML_UNARY_OP_ROUND:       return std::round(x);
        case GGML_UNARY_OP_TRUNC:       return std::trunc(x);
        default:                        return NAN;
    }
}

// op_params f32 [1..4] = {alpha_n, alpha_p, beta, eps}, the coefficients ggml_xielu already constrained
double xielu_value(double x, const ggml_tensor * t) {
    const double alpha_n = param_f32(t, 1), alpha_p = param_f32(t, 2), beta = param_f32(t, 3), eps = param_f32(t, 4);
    if (x > 0) {
        return alpha_p * x * x + beta * x;
    }
    return alpha_n * (std::expm1(std::min(x, eps)) - x) + beta * x;
}

double glu_value(ggml_glu_op op, double x, double g, float alpha, float limit) {
    switch (op) {
        case GGML_GLU_OP_REGLU:       return (x > 0 ? x : 0.0) * g;
        case GGML_GLU_OP_GEGLU:       return gelu_tanh(x) * g;
        case GGML_GLU_OP_SWIGLU:      return x * sigmoid(x) * g;
        case GGML_GLU_OP_GEGLU_ERF:   return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))) * g;
        case GGML_GLU_OP_GEGLU_QUICK: return x * sigmoid(1.702 * x) * g;
        case GGML_GLU_OP_SWIGLU_OAI: {
            const double xc = std::min(x, static_cast<double>(limit));
            const double gc = std::min(std::max(g, -static_cast<double>(limit)), static_cast<double>(limit));
            return xc * sigmoid(alpha * xc) * (gc + 1.0);
        }
        case GGML_GLU_OP_SWIGLU_CLAMP: {
            const double xc = std::min(x, static_cast<double>(limit));
            const double gc = std::min(std::max(g, -static_cast<double>(limit)), static_cast<double>(limit));
            return xc * sigmoid(xc) * gc;
        }
        default: return NAN;
    }
}

bool map_unary(ggml_tensor * node, double (*fn)(double, const ggml_tensor *)) {
    const ggml_tensor * a = node->src[0];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        set(node, i0, i1, i2, i3, static_cast<float>(fn(get(a, i0, i1, i2, i3), node)));
    });
    return true;
}

bool binary(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const ggml_tensor * b = node->src[1];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const double x = get(a, i0, i1, i2, i3);
        const double y = get(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
        double       r = 0;
        switch (node->op) {
            case GGML_OP_ADD: r = x + y; break;
            case GGML_OP_SUB: r = x - y; break;
            case GGML_OP_MUL: r = x * y; break;
            default:          r = x / y; break;
        }
        set(node, i0, i1, i2, i3, static_cast<float>(r));
    });
    return true;
}

bool glu(ggml_tensor * node) {
    const ggml_tensor * a       = node->src[0];
    const ggml_tensor * b       = node->src[1];
    const auto          op      = static_cast<ggml_glu_op>(param_i32(node, 0));
    const bool          swapped = param_i32(node, 1) != 0;
    const float         alpha   = param_f32(node, 2), limit = param_f32(node, 3);
    const int64_t       n       = node->ne[0];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        double x, g;
        if (b) {
            x = get(a, i0, i1, i2, i3);
            g = get(b, i0, i1, i2, i3);
        } else {
            x = get(a, i0 + (swapped ? n : 0), i1, i2, i3);
            g = get(a, i0 + (swapped ? 0 : n), i1, i2, i3);
        }
        set(node, i0, i1, i2, i3, static_cast<float>(glu_value(op, x, g, alpha, limit)));
    });
    return true;
}

bool add_id(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1], *ids = node->src[2];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const int64_t e = get_index(ids, i1, i2, 0, 0);
        set(node, i0, i1, i2, i3, get(a, i0, i1, i2, i3) + get(b, i0, e, 0, 0));
    });
    return true;
}

} // namespace

bool elementwise(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV: return binary(node);
        case GGML_OP_ADD1: {
            const float s = get(node->src[1], 0, 0, 0, 0);
            for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                set(node, i0, i1, i2, i3, get(node->src[0], i0, i1, i2, i3) + s);
            });
            return true;
        }
        case GGML_OP_ADD_ID: return add_id(node);
        case GGML_OP_SQR:  return map_unary(node, [](double x, const ggml_tensor *) { return x * x; });
        case GGML_OP_SQRT: return map_unary(node, [](double x, const ggml_tensor *) { return std::sqrt(x); });
        case GGML_OP_LOG:  return map_unary(node, [](double x, const ggml_tensor *) { return std::log(x); });
        case GGML_OP_SIN:  return map_unary(node, [](double x, const ggml_tensor *) { return std::sin(x); });
        case GGML_OP_COS:  return map_unary(node, [](double x, const ggml_tensor *) { return std::cos(x); });
        case GGML_OP_SCALE:
            return map_unary(node, [](double x, const ggml_tensor * t) { return x * param_f32(t, 0) + param_f32(t, 1); });
        case GGML_OP_CLAMP:
            return map_unary(node, [](double x, const ggml_tensor * t) {
                return std::min(std::max(x, static_cast<double>(param_f32(t, 0))), static_cast<double>(param_f32(t, 1)));
            });
        case GGML_OP_LEAKY_RELU:
            return map_unary(node, [](double x, const ggml_tensor * t) { return x > 0 ? x : param_f32(t, 0) * x; });
        case GGML_OP_UNARY:
            return map_unary(node, [](double x, const ggml_tensor * t) {
                const auto op = static_cast<ggml_unary_op>(param_i32(t, 0));
                return op == GGML_UNARY_OP_XIELU ? xielu_value(x, t) : unary_value(op, x);
            });
        case GGML_OP_GLU: return glu(node);
        default: return false;
    }
}

} // namespace switchyard::testing::reference
