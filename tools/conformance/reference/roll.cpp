// Reference ROLL: dst[i] = a[(i - shift) mod ne] in every dimension, shifts in op_params (i32) [0..3].
#include "conformance/reference/util.h"

namespace switchyard::testing::reference {

bool roll(ggml_tensor * node) {
    if (node->op != GGML_OP_ROLL) {
        return false;
    }
    const ggml_tensor * a = node->src[0];
    auto from = [&](int64_t i, int d) {
        const int64_t n = node->ne[d];
        return ((i - param_i32(node, d)) % n + n) % n;
    };
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        set(node, i0, i1, i2, i3, get(a, from(i0, 0), from(i1, 1), from(i2, 2), from(i3, 3)));
    });
    return true;
}

} // namespace switchyard::testing::reference
