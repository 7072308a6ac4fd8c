// Reference FILL (every element the constant op_params f32 [0]), TRI (square matrices, zeros outside the part
// op_params[0] keeps) and DIAG (a row per matrix -> that row on the diagonal of a square matrix).
#include "conformance/reference/util.h"

namespace switchyard::testing::reference {

namespace {

bool tri_keeps(ggml_tri_type type, int64_t col, int64_t row) {
    switch (type) {
        case GGML_TRI_TYPE_UPPER_DIAG: return col >= row;
        case GGML_TRI_TYPE_UPPER:      return col > row;
        case GGML_TRI_TYPE_LOWER_DIAG: return col <= row;
        case GGML_TRI_TYPE_LOWER:      return col < row;
    }
    return false;
}

} // namespace

bool fill(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    switch (node->op) {
        case GGML_OP_FILL: {
            const float c = param_f32(node, 0);
            for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(node, i0, i1, i2, i3, c); });
            return true;
        }
        case GGML_OP_TRI: {
            const auto type = static_cast<ggml_tri_type>(param_i32(node, 0));
            for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                set(node, i0, i1, i2, i3, tri_keeps(type, i0, i1) ? get(a, i0, i1, i2, i3) : 0.0f);
            });
            return true;
        }
        case GGML_OP_DIAG:
            for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                set(node, i0, i1, i2, i3, i0 == i1 ? get(a, i0, 0, i2, i3) : 0.0f);
            });
            return true;
        default: return false;
    }
}

} // namespace switchyard::testing::reference
