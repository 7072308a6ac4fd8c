// Reference DeepSeek V3.2 / V4 ops: LIGHTNING_INDEXER and the hyper-connection ops DSV4_HC_COMB, DSV4_HC_PRE and
// DSV4_HC_POST, written from their definitions (ggml.h) in double precision, element by element (no shared code
// with the kernels). The indexer's score is the non-fused form upstream models use when the op is missing: per
// head the product of the query and key rows, relu, times the head's weight, summed over heads, plus the mask.
#include "conformance/reference/util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace switchyard::testing::reference {

namespace {

bool lightning_indexer(ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *w = node->src[2], *mask = node->src[3];
    for_each(node, [&](int64_t kv, int64_t t, int64_t, int64_t s) {
        double score = 0;
        for (int64_t h = 0; h < q->ne[1]; ++h) {
            double qk = 0;
            for (int64_t e = 0; e < q->ne[0]; ++e) {
                qk += static_cast<double>(get(q, e, h, t, s)) * get(k, e, 0, kv, s);
            }
            score += std::max(qk, 0.0) * get(w, h, t, 0, s);
        }
        score += get(mask, kv, t, 0, s % mask->ne[3]);
        set(node, kv, t, 0, s, static_cast<float>(score));
    });
    return true;
}

// comb[dst][src] for one token: softmax over dst of the affine logits, plus eps, then Sinkhorn iterations.
bool dsv4_hc_comb(ggml_tensor * node) {
    const ggml_tensor * mixes = node->src[0], *scale = node->src[1], *base = node->src[2];
    const double        eps    = param_f32(node, 0);
    const int32_t       n_iter = param_i32(node, 1);
    constexpr int       hc     = 4;
    for (int64_t t = 0; t < mixes->ne[1]; ++t) {
        std::array<std::array<double, hc>, hc> c{}; // c[dst][src]
        for (int src = 0; src < hc; ++src) {
            double logit[hc], max = -std::numeric_limits<double>::infinity(), sum = 0;
            for (int dst = 0; dst < hc; ++dst) {
                const int64_t j = 2 * hc + dst + hc * src;
                logit[dst]      = static_cast<double>(get(mixes, j, t, 0, 0)) * get(scale, 2, 0, 0, 0) + get(base, j, 0, 0, 0);
                max             = std::max(max, logit[dst]);
            }
            for (int dst = 0; dst < hc; ++dst) sum += std::exp(logit[dst] - max);
            for (int dst = 0; dst < hc; ++dst) c[dst][src] = std::exp(logit[dst] - max) / sum + eps;
        }
        auto over_src = [&] { // each dst's values over src sum to (about) 1
            for (int dst = 0; dst < hc; ++dst) {
                double sum = eps;
                for (int src = 0; src < hc; ++src) sum += c[dst][src];
                for (int src = 0; src < hc; ++src) c[dst][src] /= sum;
            }
        };
        auto over_dst = [&] {
            for (int src = 0; src < hc; ++src) {
                double sum = eps;
                for (int dst = 0; dst < hc; ++dst) sum += c[dst][src];
                for (int dst = 0; dst < hc; ++dst) c[dst][src] /= sum;
            }
        };
        over_src();
        for (int32_t i = 1; i < n_iter; ++i) {
            over_dst();
            over_src();
        }
        for (int dst = 0; dst < hc; ++dst) {
            for (int src = 0; src < hc; ++src) set(node, dst, src, t, 0, static_cast<float>(c[dst][src]));
        }
    }
    return true;
}

bool dsv4_hc_pre(ggml_tensor * node) {
    const ggml_tensor * x = node->src[0], *w = node->src[1];
    float               scale;
    std::memcpy(&scale, &node->op_params[0], sizeof scale);
    const bool gated = node->op_params[1] != 0;
    for_each(node, [&](int64_t i, int64_t t, int64_t, int64_t) {
        double sum = 0;
        for (int64_t h = 0; h < x->ne[1]; ++h) {
            const double wv = gated ? 1.0 / (1.0 + std::exp(-static_cast<double>(get(w, i, h, t, 0)))) : get(w, h, t, 0, 0);
            sum += static_cast<double>(get(x, i, h, t, 0)) * wv;
        }
        set(node, i, t, 0, 0, static_cast<float>(scale * sum));
    });
    return true;
}

bool dsv4_hc_post(ggml_tensor * node) {
    const ggml_tensor * x = node->src[0], *res = node->src[1], *post = node->src[2], *comb = node->src[3];
    for_each(node, [&](int64_t i, int64_t dst, int64_t t, int64_t) {
        double sum = static_cast<double>(get(x, i, t, 0, 0)) * get(post, dst, t, 0, 0);
        for (int64_t src = 0; src < res->ne[1]; ++src) {
            const double c = comb == nullptr ? (src == dst ? 1.0 : 0.0) : get(comb, dst, src, t, 0); // NULL: identity
            sum += static_cast<double>(get(res, i, src, t, 0)) * c;
        }
        set(node, i, dst, t, 0, static_cast<float>(sum));
    });
    return true;
}

} // namespace

bool deepseek(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_LIGHTNING_INDEXER: return lightning_indexer(node);
        case GGML_OP_DSV4_HC_COMB:      return dsv4_hc_comb(node);
        case GGML_OP_DSV4_HC_PRE:       return dsv4_hc_pre(node);
        case GGML_OP_DSV4_HC_POST:      return dsv4_hc_post(node);
        default: return false;
    }
}

} // namespace switchyard::testing::reference
