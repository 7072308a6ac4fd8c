// Helpers for the CPU kernel unit tests: an allocating context, element access by coordinates for the plain types,
// random fills, running one op through ggml_graph_compute_with_ctx, and element-wise comparison against a scalar
// reference written in the test or the shared one of tools/conformance.
#pragma once

#include "conformance/reference/reference.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace switchyard::kernel_test {

// A context that allocates tensor data (and the graph's work memory).
class Ctx {
public:
    explicit Ctx(size_t mib = 64) {
        ggml_init_params params{mib << 20, nullptr, false};
        ctx_ = ggml_init(params);
    }
    ~Ctx() { ggml_free(ctx_); }
    Ctx(const Ctx &)             = delete;
    Ctx & operator=(const Ctx &) = delete;

    operator ggml_context *() const { return ctx_; }

private:
    ggml_context * ctx_ = nullptr;
};

inline char * addr(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return static_cast<char *>(t->data) + i0 * static_cast<int64_t>(t->nb[0]) + i1 * static_cast<int64_t>(t->nb[1]) +
           i2 * static_cast<int64_t>(t->nb[2]) + i3 * static_cast<int64_t>(t->nb[3]);
}

// Element (i0, i1, i2, i3) of a F32 / F16 / BF16 / I32 / I64 tensor as double.
inline double get(const ggml_tensor * t, int64_t i0, int64_t i1 = 0, int64_t i2 = 0, int64_t i3 = 0) {
    const char * p = addr(t, i0, i1, i2, i3);
    switch (t->type) {
        case GGML_TYPE_F32: {
            float v;
            std::memcpy(&v, p, sizeof(v));
            return v;
        }
        case GGML_TYPE_F16: {
            ggml_fp16_t h;
            std::memcpy(&h, p, sizeof(h));
            return ggml_fp16_to_fp32(h);
        }
        case GGML_TYPE_BF16: {
            ggml_bf16_t b;
            std::memcpy(&b, p, sizeof(b));
            return ggml_bf16_to_fp32(b);
        }
        case GGML_TYPE_I32: {
            int32_t v;
            std::memcpy(&v, p, sizeof(v));
            return v;
        }
        case GGML_TYPE_I64: {
            int64_t v;
            std::memcpy(&v, p, sizeof(v));
            return static_cast<double>(v);
        }
        default: ADD_FAILURE() << "get: unsupported type " << ggml_type_name(t->type); return 0.0;
    }
}

inline void set(ggml_tensor * t, double v, int64_t i0, int64_t i1 = 0, int64_t i2 = 0, int64_t i3 = 0) {
    char * p = addr(t, i0, i1, i2, i3);
    switch (t->type) {
        case GGML_TYPE_F32: {
            const auto f = static_cast<float>(v);
            std::memcpy(p, &f, sizeof(f));
            return;
        }
        case GGML_TYPE_F16: {
            const ggml_fp16_t h = ggml_fp32_to_fp16(static_cast<float>(v));
            std::memcpy(p, &h, sizeof(h));
            return;
        }
        case GGML_TYPE_BF16: {
            const ggml_bf16_t b = ggml_fp32_to_bf16(static_cast<float>(v));
            std::memcpy(p, &b, sizeof(b));
            return;
        }
        case GGML_TYPE_I32: {
            const auto i = static_cast<int32_t>(v);
            std::memcpy(p, &i, sizeof(i));
            return;
        }
        case GGML_TYPE_I64: {
            const auto i = static_cast<int64_t>(v);
            std::memcpy(p, &i, sizeof(i));
            return;
        }
        default: ADD_FAILURE() << "set: unsupported type " << ggml_type_name(t->type); return;
    }
}

// Calls f(i0, i1, i2, i3) for every element of t, i0 fastest.
template <class F>
void for_each(const ggml_tensor * t, F f) {
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3) {
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2) {
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                    f(i0, i1, i2, i3);
                }
            }
        }
    }
}

// Uniform values in [lo, hi) in every element of t (t may be a view).
inline void fill(ggml_tensor * t, std::mt19937 & rng, double lo = -1.0, double hi = 1.0) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for_each(t, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(t, dist(rng), i0, i1, i2, i3); });
}

// Uniform floats in [lo, hi) in a contiguous buffer of n floats (for block-format sources).
inline std::vector<float> random_floats(std::mt19937 & rng, int64_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float>                    v(static_cast<size_t>(n));
    for (float & x : v) {
        x = dist(rng);
    }
    return v;
}

// All values of t in logical order.
inline std::vector<double> values(const ggml_tensor * t) {
    std::vector<double> v;
    for_each(t, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { v.push_back(get(t, i0, i1, i2, i3)); });
    return v;
}

// Builds the graph of `out` and computes it on the CPU with n_threads.
inline ggml_status compute(ggml_context * ctx, ggml_tensor * out, int n_threads) {
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    return ggml_graph_compute_with_ctx(ctx, gf, n_threads);
}

// Absolute + relative tolerance for results stored in `type`.
struct Tol {
    double abs, rel;
};

inline Tol tol_for(ggml_type type) {
    switch (type) {
        case GGML_TYPE_F16:  return {1e-4, 2e-3};
        case GGML_TYPE_BF16: return {1e-3, 1.6e-2};
        default:             return {1e-6, 2e-5};
    }
}

using RefFn = std::function<double(int64_t, int64_t, int64_t, int64_t)>;

// Every element of out must match ref within tol; NaN matches NaN and infinities must match exactly. Reports at
// most a few mismatches.
inline void expect_all_near(const ggml_tensor * out, const RefFn & ref, Tol tol) {
    int failures = 0;
    for_each(out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const double want = ref(i0, i1, i2, i3);
        const double got  = get(out, i0, i1, i2, i3);
        bool         ok;
        if (std::isnan(want) || std::isinf(want)) {
            ok = std::isnan(want) ? std::isnan(got) : got == want;
        } else {
            ok = std::fabs(got - want) <= tol.abs + tol.rel * std::fabs(want);
        }
        if (!ok && failures++ < 5) {
            ADD_FAILURE() << ggml_op_desc(out) << " at (" << i0 << ", " << i1 << ", " << i2 << ", " << i3
                          << "): got " << got << ", want " << want;
        }
    });
    EXPECT_EQ(failures, 0) << "mismatches in " << ggml_op_desc(out);
}

inline void expect_all_near(const ggml_tensor * out, const RefFn & ref) {
    expect_all_near(out, ref, tol_for(out->type));
}

// The scalar reference's result for out (tools/conformance/reference): computes every node of gf with it, in order,
// and returns out's values in logical order (i0 fastest). Run it before the kernels when the graph works in place.
inline std::vector<double> reference_values(ggml_cgraph * gf, const ggml_tensor * out) {
    EXPECT_TRUE(switchyard::testing::reference::compute_graph(gf));
    return values(out);
}

// A RefFn over values in logical order (as returned by values / reference_values) for a tensor shaped like out.
inline RefFn from_values(const ggml_tensor * out, std::vector<double> v) {
    const int64_t ne0 = out->ne[0], ne1 = out->ne[1], ne2 = out->ne[2];
    return [ne0, ne1, ne2, v = std::move(v)](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return v[static_cast<size_t>(((i3 * ne2 + i2) * ne1 + i1) * ne0 + i0)];
    };
}

// The thread counts every kernel test runs with.
inline const std::vector<int> & thread_counts() {
    static const std::vector<int> counts = {1, 3};
    return counts;
}

} // namespace switchyard::kernel_test
