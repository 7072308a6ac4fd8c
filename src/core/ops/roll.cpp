// ROLL: a cyclic shift of every dimension. The result has a's shape and type; element i of dimension d moves to
// (i + shift_d) mod ne_d, i.e. dst[i0, i1, i2, i3] = a[(i0 - shift0) mod ne0, ...]. op_params (i32) [0..3] =
// {shift0, shift1, shift2, shift3}, each smaller than its extent in magnitude (|shift_d| < ne_d, as upstream).
// a's elements within a row must be adjacent (nb[0] = the type size).
#include "core/ops/op_common.h"

#include <cstdlib>

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_roll(struct ggml_context * ctx, struct ggml_tensor * a, int shift0, int shift1, int shift2,
                               int shift3) {
    const char * name = "ggml_roll";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->nb[0] == ggml_type_size(a->type), name, "a %s must have adjacent elements in each row (nb[0] = %zu)",
                shape(a), a->nb[0]);
    const int shifts[GGML_MAX_DIMS] = {shift0, shift1, shift2, shift3};
    for (int d = 0; d < GGML_MAX_DIMS; ++d) {
        shape_check(std::abs(static_cast<int64_t>(shifts[d])) < a->ne[d], name,
                    "shift%d = %d must be smaller than ne[%d] of a %s in magnitude", d, shifts[d], d, shape(a));
    }
    return with_i32(set_op(like(ctx, a, false, name), GGML_OP_ROLL, {a}), {shift0, shift1, shift2, shift3});
}

} // extern "C"
