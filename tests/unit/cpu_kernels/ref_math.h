// Scalar references (in double) of the element-wise activations, written from their definitions for the kernel
// tests.
#pragma once

#include "ggml.h"

#include <algorithm>
#include <cmath>

namespace switchyard::kernel_test {

inline double ref_gelu(double x) { // tanh approximation
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
inline double ref_gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
inline double ref_gelu_quick(double x) { return x / (1.0 + std::exp(-1.702 * x)); }
inline double ref_silu(double x) { return x / (1.0 + std::exp(-x)); }
inline double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double ref_hardsigmoid(double x) { return std::min(1.0, std::max(0.0, (x + 3.0) / 6.0)); }
inline double ref_relu(double x) { return x > 0 ? x : 0.0; }

// XIELU with its op parameters
struct XieluParams {
    double alpha_n, alpha_p, beta, eps;
};

inline double ref_xielu(double x, const XieluParams & p) {
    return x > 0 ? p.alpha_p * x * x + p.beta * x : (std::expm1(std::min(x, p.eps)) - x) * p.alpha_n + p.beta * x;
}

// The ggml_unary_op ops except XIELU.
inline double ref_unary(ggml_unary_op op, double x) {
    switch (op) {
        case GGML_UNARY_OP_ABS:         return std::fabs(x);
        case GGML_UNARY_OP_SGN:         return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
        case GGML_UNARY_OP_NEG:         return -x;
        case GGML_UNARY_OP_STEP:        return x > 0 ? 1.0 : 0.0;
        case GGML_UNARY_OP_TANH:        return std::tanh(x);
        case GGML_UNARY_OP_ELU:         return x > 0 ? x : std::expm1(x);
        case GGML_UNARY_OP_RELU:        return ref_relu(x);
        case GGML_UNARY_OP_SIGMOID:     return ref_sigmoid(x);
        case GGML_UNARY_OP_GELU:        return ref_gelu(x);
        case GGML_UNARY_OP_GELU_QUICK:  return ref_gelu_quick(x);
        case GGML_UNARY_OP_SILU:        return ref_silu(x);
        case GGML_UNARY_OP_HARDSWISH:   return x * ref_hardsigmoid(x);
        case GGML_UNARY_OP_HARDSIGMOID: return ref_hardsigmoid(x);
        case GGML_UNARY_OP_EXP:         return std::exp(x);
        case GGML_UNARY_OP_EXPM1:       return std::expm1(x);
        case GGML_UNARY_OP_SOFTPLUS:    return x > 20 ? x : std::log1p(std::exp(x));
        case GGML_UNARY_OP_GELU_ERF:    return ref_gelu_erf(x);
        case GGML_UNARY_OP_FLOOR:       return std::floor(x);
        case GGML_UNARY_OP_CEIL:        return std::ceil(x);
        case GGML_UNARY_OP_ROUND:       return std::round(x);
        case GGML_UNARY_OP_TRUNC:       return std::trunc(x);
        default:                        return NAN;
    }
}

// act(x) * g for the ggml_glu_op ops; alpha and limit are SWIGLU_OAI's parameters.
inline double ref_glu(ggml_glu_op op, double x, double g, double alpha = 1.702, double limit = 7.0) {
    switch (op) {
        case GGML_GLU_OP_REGLU:  return ref_relu(x) * g;
        case GGML_GLU_OP_GEGLU:  return ref_gelu(x) * g;
        case GGML_GLU_OP_SWIGLU: return ref_silu(x) * g;
        case GGML_GLU_OP_SWIGLU_OAI: {
            const double xc = std::min(x, limit);
            const double gc = std::max(-limit, std::min(g, limit));
            return xc / (1.0 + std::exp(-alpha * xc)) * (gc + 1.0);
        }
        case GGML_GLU_OP_SWIGLU_CLAMP: {
            const double xc = std::min(x, limit);
            const double gc = std::max(-limit, std::min(g, limit));
            return xc / (1.0 + std::exp(-xc)) * gc;
        }
        case GGML_GLU_OP_GEGLU_ERF:   return ref_gelu_erf(x) * g;
        case GGML_GLU_OP_GEGLU_QUICK: return ref_gelu_quick(x) * g;
        default:                      return NAN;
    }
}

} // namespace switchyard::kernel_test
