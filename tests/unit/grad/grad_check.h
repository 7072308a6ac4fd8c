// Checks gradients built by ggml_build_backward_expand against central finite differences of the loss.
//
// A check builds, in one allocating context, a graph from parameter tensors (filled with seeded random values)
// to a scalar loss: loss = sum(f(params) * r) with r a fixed random weight tensor shaped like f (so every
// element of f's gradient differs), or f itself when f is already a loss. The graph gets its backward part, is
// computed on the CPU once for the analytic gradients, then once per parameter element and sign with that
// element moved by +-h for the numeric derivative (L(x + h) - L(x - h)) / 2h. Both come from float kernels: an
// element passes when |analytic - numeric| <= atol + rtol * |numeric|; the step h and the tolerances are those
// of the check (defaults suit smooth ops on values of order 1).
#pragma once

#include "ggml.h"

#include "ggml-cpu.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace switchyard::testing {

// How a parameter's values are drawn.
enum class Values {
    Uniform,   // uniform in [-1, 1]
    Positive,  // uniform in [0.5, 2] (sqrt, log, division)
    AwayFromZero, // |x| in [0.2, 1], random sign (kinks at 0: abs, relu)
};

struct GradCheck {
    double h    = 1e-3;
    double atol = 2e-3;
    double rtol = 2e-2;
    bool   weight_output = true; // loss = sum(f * r); false: f is the loss (a scalar)
};

class GradBuilder {
public:
    explicit GradBuilder(ggml_context * ctx) : ctx_(ctx) {}

    ggml_context * ctx() const { return ctx_; }

    // A trainable F32 tensor (ggml_set_param) with values of the given kind.
    ggml_tensor * param(int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1, Values kind = Values::Uniform);
    // A constant F32 tensor (no gradient) with values of the given kind.
    ggml_tensor * constant(int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1, Values kind = Values::Uniform);
    // A constant I32 vector.
    ggml_tensor * indices(const std::vector<int32_t> & values);

    const std::vector<ggml_tensor *> & params() const { return params_; }

private:
    ggml_tensor * filled(ggml_tensor * t, Values kind);

    ggml_context *             ctx_;
    std::vector<ggml_tensor *> params_;
    unsigned                   seed_ = 1234;
};

// Builds f with GradBuilder, then compares every parameter's gradient with finite differences. Returns "" when
// all agree, else a description of the first disagreement.
std::string check_gradients(const std::function<ggml_tensor *(GradBuilder &)> & f, const GradCheck & check = {});

namespace detail {

inline constexpr int kThreads = 2;

inline float draw(std::mt19937 & rng, Values kind) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), pos(0.5f, 2.0f), mag(0.2f, 1.0f);
    switch (kind) {
        case Values::Positive:     return pos(rng);
        case Values::AwayFromZero: return (rng() & 1u) ? mag(rng) : -mag(rng);
        default:                   return u(rng);
    }
}

inline float * f32(ggml_tensor * t) {
    return static_cast<float *>(t->data);
}

// The loss after computing the whole graph (forward and backward parts) with the loss gradient reset to 1.
inline float run(ggml_context * ctx, ggml_cgraph * graph, ggml_tensor * loss) {
    ggml_graph_reset(graph);
    ggml_graph_compute_with_ctx(ctx, graph, kThreads);
    return f32(loss)[0];
}

// The elements of t in logical order, honouring its strides.
inline std::vector<float> values(const ggml_tensor * t) {
    std::vector<float> v;
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                    const char * p = static_cast<const char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                    float        x;
                    std::memcpy(&x, p, sizeof(x));
                    v.push_back(x);
                }
    return v;
}

} // namespace detail

inline ggml_tensor * GradBuilder::filled(ggml_tensor * t, Values kind) {
    std::mt19937 rng(seed_++);
    for (int64_t i = 0; i < ggml_nelements(t); ++i) {
        detail::f32(t)[i] = detail::draw(rng, kind);
    }
    return t;
}

inline ggml_tensor * GradBuilder::param(int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, Values kind) {
    ggml_tensor * t = filled(ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, ne0, ne1, ne2, ne3), kind);
    ggml_set_param(t);
    ggml_format_name(t, "param%zu", params_.size());
    params_.push_back(t);
    return t;
}

inline ggml_tensor * GradBuilder::constant(int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, Values kind) {
    return filled(ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, ne0, ne1, ne2, ne3), kind);
}

inline ggml_tensor * GradBuilder::indices(const std::vector<int32_t> & values) {
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
        static_cast<int32_t *>(t->data)[i] = values[i];
    }
    return t;
}

inline std::string check_gradients(const std::function<ggml_tensor *(GradBuilder &)> & f, const GradCheck & check) {
    ggml_init_params ip{64 * 1024 * 1024, nullptr, false};
    ggml_context *   ctx = ggml_init(ip);
    GradBuilder      b(ctx);
    ggml_tensor *    out  = f(b);
    ggml_tensor *    loss = out;
    if (check.weight_output) {
        ggml_tensor * r = b.constant(out->ne[0], out->ne[1], out->ne[2], out->ne[3]);
        loss            = ggml_sum(ctx, ggml_mul(ctx, out, r));
    }
    ggml_set_loss(loss);
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, 4096, true);
    ggml_build_forward_expand(graph, loss);
    ggml_build_backward_expand(ctx, graph, nullptr);
    detail::run(ctx, graph, loss);

    std::string problem;
    for (ggml_tensor * p : b.params()) {
        const ggml_tensor * g = ggml_graph_get_grad(graph, p);
        if (!g) {
            problem = std::string("no gradient for ") + p->name;
            break;
        }
        const std::vector<float> analytic = detail::values(g); // a gradient may be a strided view
        for (int64_t i = 0; i < ggml_nelements(p) && problem.empty(); ++i) {
            const float x0 = detail::f32(p)[i];
            detail::f32(p)[i]      = static_cast<float>(x0 + check.h);
            const double up = detail::run(ctx, graph, loss);
            detail::f32(p)[i]      = static_cast<float>(x0 - check.h);
            const double down = detail::run(ctx, graph, loss);
            detail::f32(p)[i]         = x0;
            const double numeric = (up - down) / (2.0 * check.h);
            const double a       = analytic[static_cast<size_t>(i)];
            if (!(std::fabs(a - numeric) <= check.atol + check.rtol * std::fabs(numeric))) {
                char text[256];
                std::snprintf(text, sizeof(text), "%s element %lld: analytic %.6g, numeric %.6g", p->name,
                              static_cast<long long>(i), a, numeric);
                problem = text;
            }
        }
        if (!problem.empty()) {
            break;
        }
    }
    ggml_free(ctx);
    return problem;
}

} // namespace switchyard::testing
