// Ops with their own small shape rules: REPEAT, CONCAT, SCALE, CLAMP, LEAKY_RELU, ARANGE, TIMESTEP_EMBEDDING,
// ARGSORT and TOP_K.
//
// REPEAT:     a tiled to a shape it divides (ggml_can_repeat(a, shape)); a's type; src = {a}; no parameters.
// CONCAT:     a and b of one type, equal except along `dim`; op_params[0] = dim.
// SCALE:      s*a + b; op_params (f32) {s, b}; a must have packed rows (ggml_is_padded_1d-like layout).
// CLAMP:      op_params (f32) {min, max}; a new tensor like a (ggml_clamp_inplace: a view of a), as upstream 0.25.1.
// LEAKY_RELU: op_params[0] = negative_slope (f32).
// ARANGE:     F32 [ceil((stop - start) / step)], op_params (f32) {start, stop, step}; no sources.
// TIMESTEP_EMBEDDING: timesteps [N] -> F32 [dim, N], op_params (i32) {dim, max_period}.
// ARGSORT:    I32 indices with a's shape, op_params[0] = ggml_sort_order. ggml_argsort_top_k is no op of its
//             own: a descending ARGSORT and a view of its first k columns (I32 [k, ne1, ne2, ne3], strides of the
//             full argsort), as upstream.
// TOP_K:      I32 [k, ne1, ne2, ne3]; no parameters (k is the result's ne[0]).
#include "core/ops/op_common.h"

#include <cmath>
#include <cstdint>

namespace switchyard::ops {

namespace {

ggml_tensor * repeat_to(ggml_context * ctx, ggml_tensor * a, const Ne & ne, const char * name) {
    bool fits = ggml_is_empty(a);
    if (!fits) {
        fits = true;
        for (int i = 0; i < GGML_MAX_DIMS; ++i) {
            fits = fits && ne[static_cast<size_t>(i)] % a->ne[i] == 0;
        }
    }
    shape_check(fits, name, "a %s does not divide the target shape [%lld, %lld, %lld, %lld]", shape(a),
                static_cast<long long>(ne[0]), static_cast<long long>(ne[1]), static_cast<long long>(ne[2]),
                static_cast<long long>(ne[3]));
    return set_op(new_result(ctx, a->type, ne, name), GGML_OP_REPEAT, {a});
}

ggml_tensor * scale_impl(ggml_context * ctx, ggml_tensor * a, float s, float b, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(is_padded_1d(a), name, "a %s must have packed elements, planes and volumes", shape(a));
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_SCALE, {a}), {s, b});
}

ggml_tensor * clamp_impl(ggml_context * ctx, ggml_tensor * a, float min, float max, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_CLAMP, {a}), {min, max});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (!inputs_ok("ggml_repeat", {a, b})) {
        return nullptr;
    }
    return repeat_to(ctx, a, ne_of(b), "ggml_repeat");
}

struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                    int64_t ne2, int64_t ne3) {
    if (!inputs_ok("ggml_repeat_4d", {a})) {
        return nullptr;
    }
    return repeat_to(ctx, a, {ne0, ne1, ne2, ne3}, "ggml_repeat_4d");
}

struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim) {
    const char * name = "ggml_concat";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(dim >= 0 && dim < GGML_MAX_DIMS, name, "dim %d is not in [0, %d)", dim, GGML_MAX_DIMS);
    shape_check(a->type == b->type, name, "a %s and b %s differ in type", shape(a), shape(b));
    Ne ne = ne_of(a);
    for (int d = 0; d < GGML_MAX_DIMS; ++d) {
        shape_check(d == dim || a->ne[d] == b->ne[d], name, "a %s and b %s differ in dim %d (concatenating along %d)",
                    shape(a), shape(b), d, dim);
    }
    ne[static_cast<size_t>(dim)] += b->ne[dim];
    return with_i32(set_op(new_result(ctx, a->type, ne, name), GGML_OP_CONCAT, {a, b}), {dim});
}

struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return scale_impl(ctx, a, s, 0.0f, false, "ggml_scale");
}

struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return scale_impl(ctx, a, s, 0.0f, true, "ggml_scale_inplace");
}

struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return scale_impl(ctx, a, s, b, false, "ggml_scale_bias");
}

struct ggml_tensor * ggml_scale_bias_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return scale_impl(ctx, a, s, b, true, "ggml_scale_bias_inplace");
}

struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max) {
    return clamp_impl(ctx, a, min, max, false, "ggml_clamp");
}

struct ggml_tensor * ggml_clamp_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max) {
    return clamp_impl(ctx, a, min, max, true, "ggml_clamp_inplace");
}

struct ggml_tensor * ggml_leaky_relu(struct ggml_context * ctx, struct ggml_tensor * a, float negative_slope,
                                     bool inplace) {
    const char * name = "ggml_leaky_relu";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return with_f32(set_op(like(ctx, a, inplace, name), GGML_OP_LEAKY_RELU, {a}), {negative_slope});
}

struct ggml_tensor * ggml_arange(struct ggml_context * ctx, float start, float stop, float step) {
    const char * name = "ggml_arange";
    shape_check(stop > start, name, "stop %g must be greater than start %g", static_cast<double>(stop),
                static_cast<double>(start));
    shape_check(step > 0.0f, name, "step %g must be positive", static_cast<double>(step));
    const auto steps = static_cast<int64_t>(std::ceil((stop - start) / step));
    return with_f32(set_op(new_result(ctx, GGML_TYPE_F32, {steps, 1, 1, 1}, name), GGML_OP_ARANGE, {}),
                    {start, stop, step});
}

struct ggml_tensor * ggml_timestep_embedding(struct ggml_context * ctx, struct ggml_tensor * timesteps, int dim,
                                             int max_period) {
    const char * name = "ggml_timestep_embedding";
    if (!inputs_ok(name, {timesteps})) {
        return nullptr;
    }
    shape_check(dim >= 0, name, "dim %d must not be negative", dim);
    ggml_tensor * t = new_result(ctx, GGML_TYPE_F32, {dim, timesteps->ne[0], 1, 1}, name);
    return with_i32(set_op(t, GGML_OP_TIMESTEP_EMBEDDING, {timesteps}), {dim, max_period});
}

struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order) {
    const char * name = "ggml_argsort";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->ne[0] <= INT32_MAX, name, "rows of a %s are too long for i32 indices", shape(a));
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_I32, ne_of(a), name), GGML_OP_ARGSORT, {a});
    return with_i32(t, {static_cast<int32_t>(order)});
}

struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    const char * name = "ggml_argsort_top_k";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(k >= 0 && a->ne[0] >= k, name, "k = %d must be in [0, a->ne[0]] for a %s", k, shape(a));
    ggml_tensor * sorted = ggml_argsort(ctx, a, GGML_SORT_ORDER_DESC);
    if (sorted == nullptr) {
        return nullptr;
    }
    return ggml_view_4d(ctx, sorted, k, sorted->ne[1], sorted->ne[2], sorted->ne[3], sorted->nb[1], sorted->nb[2],
                        sorted->nb[3], 0);
}

struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    const char * name = "ggml_top_k";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(k >= 0 && a->ne[0] >= k, name, "k = %d must be in [0, a->ne[0]] for a %s", k, shape(a));
    return set_op(new_result(ctx, GGML_TYPE_I32, {k, a->ne[1], a->ne[2], a->ne[3]}, name), GGML_OP_TOP_K, {a});
}

} // extern "C"
