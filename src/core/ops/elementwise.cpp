// Element-wise ops: DUP, the broadcasting binary ops (ADD, SUB, MUL, DIV), ADD_ID, ADD1, and the plain unary
// math ops (SQR, SQRT, LOG, SIN, COS).
//
// Broadcasting rule: b repeats into a, i.e. a->ne[i] % b->ne[i] == 0 in every dimension (ggml_can_repeat(b, a));
// the result has a's shape and type. `_inplace` variants return a view of a.
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

ggml_tensor * unary_math(ggml_context * ctx, ggml_tensor * a, ggml_op op, bool inplace, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return set_op(like(ctx, a, inplace, name), op, {a});
}

ggml_tensor * broadcast_binary(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, ggml_op op, bool inplace,
                               const char * name) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_can_repeat(b, a), name, "b %s cannot be broadcast to a %s (a->ne[i] %% b->ne[i] != 0)",
                shape(b), shape(a));
    return set_op(like(ctx, a, inplace, name), op, {a, b});
}

ggml_tensor * add1_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, bool inplace, const char * name) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_is_scalar(b), name, "b %s must be a scalar", shape(b));
    shape_check(is_padded_1d(a), name, "a %s must have packed rows, planes and volumes", shape(a));
    return set_op(like(ctx, a, inplace, name), GGML_OP_ADD1, {a, b});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_DUP, false, "ggml_dup");
}

struct ggml_tensor * ggml_dup_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_DUP, true, "ggml_dup_inplace");
}

struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_ADD, false, "ggml_add");
}

struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_ADD, true, "ggml_add_inplace");
}

// a (quantized, F16 or BF16) + b, stored as `type`; b must repeat along whole rows.
struct ggml_tensor * ggml_add_cast(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   enum ggml_type type) {
    const char * name = "ggml_add_cast";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(can_repeat_rows(b, a), name, "b %s cannot be broadcast row-wise to a %s", shape(b),
                shape(a));
    shape_check(ggml_is_quantized(a->type) || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16, name,
                "a %s must be quantized, f16 or bf16", shape(a));
    return set_op(new_result(ctx, type, ne_of(a), name), GGML_OP_ADD, {a, b});
}

struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 struct ggml_tensor * ids) {
    const char * name = "ggml_add_id";
    if (!inputs_ok(name, {a, b, ids})) {
        return nullptr;
    }
    shape_check(a->ne[0] == b->ne[0], name, "rows of a %s and b %s differ in length", shape(a), shape(b));
    shape_check(a->ne[1] == ids->ne[0] && a->ne[2] == ids->ne[1], name,
                "ids %s must be [a->ne[1], a->ne[2]] for a %s", shape(ids), shape(a));
    shape_check(ids->type == GGML_TYPE_I32, name, "ids %s must be i32", shape(ids));
    return set_op(like(ctx, a, false, name), GGML_OP_ADD_ID, {a, b, ids});
}

struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return add1_impl(ctx, a, b, false, "ggml_add1");
}

struct ggml_tensor * ggml_add1_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return add1_impl(ctx, a, b, true, "ggml_add1_inplace");
}

struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_SUB, false, "ggml_sub");
}

struct ggml_tensor * ggml_sub_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_SUB, true, "ggml_sub_inplace");
}

struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_MUL, false, "ggml_mul");
}

struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_MUL, true, "ggml_mul_inplace");
}

struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_DIV, false, "ggml_div");
}

struct ggml_tensor * ggml_div_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return broadcast_binary(ctx, a, b, GGML_OP_DIV, true, "ggml_div_inplace");
}

struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SQR, false, "ggml_sqr");
}

struct ggml_tensor * ggml_sqr_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SQR, true, "ggml_sqr_inplace");
}

struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SQRT, false, "ggml_sqrt");
}

struct ggml_tensor * ggml_sqrt_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SQRT, true, "ggml_sqrt_inplace");
}

struct ggml_tensor * ggml_log(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_LOG, false, "ggml_log");
}

struct ggml_tensor * ggml_log_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_LOG, true, "ggml_log_inplace");
}

struct ggml_tensor * ggml_sin(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SIN, false, "ggml_sin");
}

struct ggml_tensor * ggml_sin_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_SIN, true, "ggml_sin_inplace");
}

struct ggml_tensor * ggml_cos(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_COS, false, "ggml_cos");
}

struct ggml_tensor * ggml_cos_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return unary_math(ctx, a, GGML_OP_COS, true, "ggml_cos_inplace");
}

} // extern "C"
