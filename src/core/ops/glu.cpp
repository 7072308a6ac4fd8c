// GLU: gated linear units. op_params: [0] (int32) ggml_glu_op, [1] (int32) swapped; SWIGLU_OAI adds [2] alpha
// and [3] limit (f32), SWIGLU_CLAMP [3] limit.
//
// Fused form (b == NULL): each row of a holds [x | gate] (gate first when swapped); the result has half of a's
// row length (a->ne[0] / 2) and a's other extents. Split form: a is x, b the gate, same shape and type; the
// result has a's shape. a (and b) must be contiguous for dims >= 1 (ggml_is_contiguous_1). Result type = a's.
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

ggml_tensor * glu_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, ggml_glu_op op, bool swapped,
                       const char * name) {
    shape_check(op >= 0 && op < GGML_GLU_OP_COUNT, name, "unknown glu op %d", static_cast<int>(op));
    shape_check(ggml_is_contiguous_1(a), name, "a %s must be contiguous in dims >= 1", shape(a));
    if (b) {
        shape_check(ggml_is_contiguous_1(b), name, "b %s must be contiguous in dims >= 1", shape(b));
        shape_check(ggml_are_same_shape(a, b) && a->type == b->type, name,
                    "b %s must have the shape and type of a %s", shape(b), shape(a));
    }
    Ne ne = ne_of(a);
    if (!b) {
        ne[0] = a->ne[0] / 2;
    }
    ggml_tensor * t = set_op(new_result(ctx, a->type, ne, name), GGML_OP_GLU, {a, b});
    return with_i32(t, {static_cast<int32_t>(op), swapped ? 1 : 0});
}

ggml_tensor * fused(ggml_context * ctx, ggml_tensor * a, ggml_glu_op op, bool swapped, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return glu_impl(ctx, a, nullptr, op, swapped, name);
}

ggml_tensor * split(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, ggml_glu_op op, const char * name) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    return glu_impl(ctx, a, b, op, false, name);
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped) {
    return fused(ctx, a, op, swapped, "ggml_glu");
}

struct ggml_tensor * ggml_reglu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_REGLU, false, "ggml_reglu");
}

struct ggml_tensor * ggml_reglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_REGLU, true, "ggml_reglu_swapped");
}

struct ggml_tensor * ggml_geglu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU, false, "ggml_geglu");
}

struct ggml_tensor * ggml_geglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU, true, "ggml_geglu_swapped");
}

struct ggml_tensor * ggml_swiglu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_SWIGLU, false, "ggml_swiglu");
}

struct ggml_tensor * ggml_swiglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_SWIGLU, true, "ggml_swiglu_swapped");
}

struct ggml_tensor * ggml_geglu_erf(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU_ERF, false, "ggml_geglu_erf");
}

struct ggml_tensor * ggml_geglu_erf_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU_ERF, true, "ggml_geglu_erf_swapped");
}

struct ggml_tensor * ggml_geglu_quick(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU_QUICK, false, "ggml_geglu_quick");
}

struct ggml_tensor * ggml_geglu_quick_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {
    return fused(ctx, a, GGML_GLU_OP_GEGLU_QUICK, true, "ggml_geglu_quick_swapped");
}

struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                    enum ggml_glu_op op) {
    return split(ctx, a, b, op, "ggml_glu_split");
}

struct ggml_tensor * ggml_reglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return split(ctx, a, b, GGML_GLU_OP_REGLU, "ggml_reglu_split");
}

struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return split(ctx, a, b, GGML_GLU_OP_GEGLU, "ggml_geglu_split");
}

struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return split(ctx, a, b, GGML_GLU_OP_SWIGLU, "ggml_swiglu_split");
}

struct ggml_tensor * ggml_geglu_erf_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return split(ctx, a, b, GGML_GLU_OP_GEGLU_ERF, "ggml_geglu_erf_split");
}

struct ggml_tensor * ggml_geglu_quick_split(struct ggml_context * ctx, struct ggml_tensor * a,
                                            struct ggml_tensor * b) {
    return split(ctx, a, b, GGML_GLU_OP_GEGLU_QUICK, "ggml_geglu_quick_split");
}

// b == NULL selects the fused form (a holds [x | gate]), as upstream.
struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     float alpha, float limit) {
    ggml_tensor * t = b ? split(ctx, a, b, GGML_GLU_OP_SWIGLU_OAI, "ggml_swiglu_oai")
                        : fused(ctx, a, GGML_GLU_OP_SWIGLU_OAI, false, "ggml_swiglu_oai");
    if (t) {
        set_op_param_f32(t, 2, alpha);
        set_op_param_f32(t, 3, limit);
    }
    return t;
}

// b == NULL selects the fused form, as ggml_swiglu_oai.
struct ggml_tensor * ggml_swiglu_clamp(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                       float limit) {
    ggml_tensor * t = b ? split(ctx, a, b, GGML_GLU_OP_SWIGLU_CLAMP, "ggml_swiglu_clamp")
                        : fused(ctx, a, GGML_GLU_OP_SWIGLU_CLAMP, false, "ggml_swiglu_clamp");
    if (t) {
        set_op_param_f32(t, 3, limit);
    }
    return t;
}

} // extern "C"
