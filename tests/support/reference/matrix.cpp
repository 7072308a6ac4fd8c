// Reference matrix products (double accumulation).
#include "support/reference/util.h"

namespace switchyard::testing::reference {

namespace {

bool mul_mat(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    const int64_t       r2 = b->ne[2] / a->ne[2], r3 = b->ne[3] / a->ne[3];
    for_each(node, [&](int64_t n, int64_t m, int64_t i2, int64_t i3) {
        double acc = 0;
        for (int64_t k = 0; k < a->ne[0]; ++k) {
            acc += static_cast<double>(get(a, k, n, i2 / r2, i3 / r3)) * get(b, k, m, i2, i3);
        }
        set(node, n, m, i2, i3, static_cast<float>(acc));
    });
    return true;
}

bool mul_mat_id(ggml_tensor * node) {
    const ggml_tensor * as = node->src[0], *b = node->src[1], *ids = node->src[2];
    for_each(node, [&](int64_t n, int64_t e, int64_t t, int64_t) {
        const int64_t expert = get_index(ids, e, t, 0, 0);
        double        acc    = 0;
        for (int64_t k = 0; k < as->ne[0]; ++k) {
            acc += static_cast<double>(get(as, k, n, expert, 0)) * get(b, k, e % b->ne[1], t, 0);
        }
        set(node, n, e, t, 0, static_cast<float>(acc));
    });
    return true;
}

bool out_prod(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    const int64_t       r2 = node->ne[2] / a->ne[2], r3 = node->ne[3] / a->ne[3];
    for_each(node, [&](int64_t m, int64_t p, int64_t i2, int64_t i3) {
        double acc = 0;
        for (int64_t k = 0; k < a->ne[1]; ++k) {
            acc += static_cast<double>(get(a, m, k, i2 / r2, i3 / r3)) * get(b, p, k, i2, i3);
        }
        set(node, m, p, i2, i3, static_cast<float>(acc));
    });
    return true;
}

} // namespace

bool matrix(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_MUL_MAT:    return mul_mat(node);
        case GGML_OP_MUL_MAT_ID: return mul_mat_id(node);
        case GGML_OP_OUT_PROD:   return out_prod(node);
        default:                 return false;
    }
}

} // namespace switchyard::testing::reference
