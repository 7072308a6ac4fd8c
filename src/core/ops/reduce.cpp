// Reductions: SUM (everything -> one element of a's type), SUM_ROWS (each row -> one element, a's type),
// MEAN (each row -> one F32 element), ARGMAX (each row of a matrix -> I32 index), and the running sum CUMSUM
// (a F32; the result has a's shape, element i of a row the sum of elements 0..i of that row), and COUNT_EQUAL
// (a and b of one shape and type, F32 or I32 -> an I64 scalar [1], the number of positions where they are equal).
// No op parameters.
#include "core/ops/op_common.h"

#include <cstdint>

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_sum(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_sum";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return set_op(new_result(ctx, a->type, {1, 1, 1, 1}, name), GGML_OP_SUM, {a});
}

struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_sum_rows";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return set_op(new_result(ctx, a->type, {1, a->ne[1], a->ne[2], a->ne[3]}, name), GGML_OP_SUM_ROWS, {a});
}

struct ggml_tensor * ggml_cumsum(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_cumsum";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->type == GGML_TYPE_F32, name, "a %s must be f32", shape(a));
    return set_op(new_result(ctx, a->type, ne_of(a), name), GGML_OP_CUMSUM, {a});
}

struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_mean";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    return set_op(new_result(ctx, GGML_TYPE_F32, {1, a->ne[1], a->ne[2], a->ne[3]}, name), GGML_OP_MEAN, {a});
}

struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_argmax";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(ggml_is_matrix(a), name, "a %s must be a matrix (ne[2] = ne[3] = 1)", shape(a));
    shape_check(a->ne[0] <= INT32_MAX, name, "rows of a %s are too long for i32 indices", shape(a));
    return set_op(new_result(ctx, GGML_TYPE_I32, {a->ne[1], 1, 1, 1}, name), GGML_OP_ARGMAX, {a});
}

struct ggml_tensor * ggml_count_equal(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_count_equal";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_are_same_shape(a, b), name, "a %s and b %s differ in shape", shape(a), shape(b));
    return set_op(new_result(ctx, GGML_TYPE_I64, {1, 1, 1, 1}, name), GGML_OP_COUNT_EQUAL, {a, b});
}

} // extern "C"
