// Reference matrix products (double accumulation). MUL_MAT and MUL_MAT_ID take the activations (src1) through
// the conversion upstream's CPU backend applies for the weight type (activations.h: q8_0 / q8_1 / q8_K levels,
// f16 / bf16 rounding): that is the product programs written for ggml get.
#include "conformance/reference/activations.h"
#include "conformance/reference/util.h"

#include <vector>

namespace switchyard::testing::reference {

namespace {

// Column (i1, i2, i3) of b as upstream's dot products see it for weights of type `weight`.
ConvertedActivations column(ggml_type weight, const ggml_tensor * b, int64_t i1, int64_t i2, int64_t i3) {
    std::vector<float> x(static_cast<size_t>(b->ne[0]));
    for (int64_t k = 0; k < b->ne[0]; ++k) {
        x[k] = get(b, k, i1, i2, i3);
    }
    return converted_activations(weight, x.data(), b->ne[0]);
}

// dot(row (i1, i2, i3) of a, column c) in double, with the q4_1 / q5_1 min term through the q8_1 blocks' s.
double product(const ggml_tensor * a, int64_t i1, int64_t i2, int64_t i3, const ConvertedActivations & c) {
    double acc = 0;
    for (int64_t k = 0; k < a->ne[0]; ++k) {
        acc += static_cast<double>(get(a, k, i1, i2, i3)) * c.values[k];
    }
    const char * row = static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
    for (size_t blk = 0; blk < c.min_term_excess.size(); ++blk) {
        ggml_fp16_t m; // q4_1 / q5_1 keep the block's min at byte 2
        std::memcpy(&m, row + blk * ggml_type_size(a->type) + 2, sizeof(m));
        acc += static_cast<double>(ggml_fp16_to_fp32(m)) * c.min_term_excess[blk];
    }
    return acc;
}

bool mul_mat(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    const int64_t       r2 = b->ne[2] / a->ne[2], r3 = b->ne[3] / a->ne[3];
    for (int64_t i3 = 0; i3 < node->ne[3]; ++i3) {
        for (int64_t i2 = 0; i2 < node->ne[2]; ++i2) {
            for (int64_t m = 0; m < node->ne[1]; ++m) {
                const ConvertedActivations c = column(a->type, b, m, i2, i3);
                for (int64_t n = 0; n < node->ne[0]; ++n) {
                    set(node, n, m, i2, i3, static_cast<float>(product(a, n, i2 / r2, i3 / r3, c)));
                }
            }
        }
    }
    return true;
}

bool mul_mat_id(ggml_tensor * node) {
    const ggml_tensor * as = node->src[0], *b = node->src[1], *ids = node->src[2];
    for (int64_t t = 0; t < node->ne[2]; ++t) {
        for (int64_t e = 0; e < node->ne[1]; ++e) {
            const int64_t              expert = get_index(ids, e, t, 0, 0);
            const ConvertedActivations c      = column(as->type, b, e % b->ne[1], t, 0);
            for (int64_t n = 0; n < node->ne[0]; ++n) {
                set(node, n, e, t, 0, static_cast<float>(product(as, n, expert, 0, c)));
            }
        }
    }
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
