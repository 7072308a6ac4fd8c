// DeepSeek V3.2 / V4 ops: the lightning indexer of sparse attention (DSA) and the three hyper-connection ops of V4.
// Shapes, types, sources and op_params as upstream's constructors (ggml.c); no op here has a gradient.
//
// LIGHTNING_INDEXER: q F32 [n_embd, n_head, n_tokens, ne3], k [n_embd, 1, n_kv, ne3] (its type is left to the
//                    backends: upstream's CPU kernel takes F32 or any type with a to-float conversion), weights F32
//                    [n_head, n_tokens, 1, ne3], mask F16 [n_kv, n_tokens, 1, ne33] with ne3 % ne33 == 0 ->
//                    F32 [n_kv, n_tokens, 1, ne3]: dst[kv, t, 0, s] = sum_h relu(q[:, h, t, s] . k[:, 0, kv, s]) *
//                    weights[h, t, 0, s] + mask[kv, t, 0, s % ne33]. src = {q, k, weights, mask}; the mask is
//                    required (upstream reads its type).
// DSV4_HC_COMB:      mixes F32 [(2 + hc)*hc, n_tokens], scale F32 [>= 3], base F32 [(2 + hc)*hc] -> F32 [hc, hc,
//                    n_tokens]; hc must be 4. op_params: [0] eps (f32), [1] n_iter (>= 1). src = {mixes, scale,
//                    base}.
// DSV4_HC_PRE:       x F32 [n_embd, hc, n_tokens], weights F32 [hc, n_tokens] -> F32 [n_embd, n_tokens]; gated
//                    (op_params[1] = 1): a gate F32 [n_embd, hc, n_tokens] in place of the weights, each weight
//                    sigmoid(gate[i, h, t]). op_params[0] = scale (f32; 1 ungated) multiplies the sum.
// DSV4_HC_POST:      x F32 [n_embd, n_tokens], residual F32 [n_embd, hc, n_tokens], post F32 [hc, n_tokens], comb F32
//                    [hc, hc, n_tokens] or NULL (the identity) -> F32 [n_embd, hc, n_tokens]. src = {x, residual,
//                    post, comb}.
// The formulas are in ggml.h and in the CPU kernels (cpu/kernels/flash_attn/deepseek.cpp).
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

// The number of streams hc with (2 + hc)*hc == mix_dim, 0 when there is none.
int64_t streams_of_mix_dim(int64_t mix_dim) {
    for (int64_t hc = 1; (2 + hc) * hc <= mix_dim; ++hc) {
        if ((2 + hc) * hc == mix_dim) {
            return hc;
        }
    }
    return 0;
}

bool is_single(const ggml_tensor * t, int from_dim) {
    for (int d = from_dim; d < GGML_MAX_DIMS; ++d) {
        if (t->ne[d] != 1) {
            return false;
        }
    }
    return true;
}

// weights [hc, n_tokens] (plain) or a gate [n_embd, hc, n_tokens] (gated); op_params [0] scale, [1] gated
ggml_tensor * hc_pre_impl(ggml_context * ctx, ggml_tensor * x, ggml_tensor * weights, float scale, bool gated,
                          const char * name) {
    if (!inputs_ok(name, {x, weights})) {
        return nullptr;
    }
    shape_check(x->type == GGML_TYPE_F32 && weights->type == GGML_TYPE_F32, name, "x %s and %s %s must be f32",
                shape(x), gated ? "gate" : "weights", shape(weights));
    const int64_t n_embd = x->ne[0], hc = x->ne[1], n_tokens = x->ne[2];
    shape_check(hc > 0 && x->ne[3] == 1, name, "x %s must be [n_embd, hc, n_tokens] with hc > 0", shape(x));
    if (gated) {
        shape_check(weights->ne[0] == n_embd && weights->ne[1] == hc && weights->ne[2] == n_tokens &&
                        is_single(weights, 3),
                    name, "gate %s must be [n_embd, hc, n_tokens] for x %s", shape(weights), shape(x));
    } else {
        shape_check(weights->ne[0] == hc && weights->ne[1] == n_tokens && is_single(weights, 2), name,
                    "weights %s must be [hc, n_tokens] for x %s", shape(weights), shape(x));
    }
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, {n_embd, n_tokens, 1, 1}, name), GGML_OP_DSV4_HC_PRE,
                             {x, weights});
    t = with_f32(t, {scale});
    if (t != nullptr) {
        t->op_params[1] = gated ? 1 : 0;
    }
    return t;
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_lightning_indexer(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                            struct ggml_tensor * weights, struct ggml_tensor * mask) {
    const char * name = "ggml_lightning_indexer";
    if (!inputs_ok(name, {q, k, weights, mask})) {
        return nullptr;
    }
    shape_check(q->type == GGML_TYPE_F32 && weights->type == GGML_TYPE_F32 && mask->type == GGML_TYPE_F16, name,
                "q %s and weights %s must be f32, mask %s f16", shape(q), shape(weights), shape(mask));
    const int64_t n_kv = k->ne[2];
    shape_check(k->ne[0] == q->ne[0] && k->ne[1] == 1 && k->ne[3] == q->ne[3], name,
                "k %s must be [n_embd, 1, n_kv, ne3] for q %s", shape(k), shape(q));
    shape_check(weights->ne[0] == q->ne[1] && weights->ne[1] == q->ne[2] && weights->ne[2] == 1 &&
                    weights->ne[3] == q->ne[3],
                name, "weights %s must be [n_head, n_tokens, 1, ne3] for q %s", shape(weights), shape(q));
    shape_check(mask->ne[0] == n_kv && mask->ne[1] == q->ne[2] && mask->ne[2] == 1 && mask->ne[3] > 0 &&
                    divisible(q->ne[3], mask->ne[3]),
                name, "mask %s must be [n_kv, n_tokens, 1, ne33] with ne33 dividing ne3, for q %s and k %s",
                shape(mask), shape(q), shape(k));
    ggml_tensor * t = new_result(ctx, GGML_TYPE_F32, {n_kv, q->ne[2], 1, q->ne[3]}, name);
    return set_op(t, GGML_OP_LIGHTNING_INDEXER, {q, k, weights, mask});
}

struct ggml_tensor * ggml_dsv4_hc_comb(struct ggml_context * ctx, struct ggml_tensor * mixes, struct ggml_tensor * scale,
                                       struct ggml_tensor * base, float eps, int32_t n_iter) {
    const char * name = "ggml_dsv4_hc_comb";
    if (!inputs_ok(name, {mixes, scale, base})) {
        return nullptr;
    }
    shape_check(mixes->type == GGML_TYPE_F32 && scale->type == GGML_TYPE_F32 && base->type == GGML_TYPE_F32, name,
                "mixes %s, scale %s and base %s must be f32", shape(mixes), shape(scale), shape(base));
    shape_check(n_iter > 0, name, "n_iter = %d must be at least 1", n_iter);
    const int64_t mix_dim = mixes->ne[0];
    const int64_t hc      = streams_of_mix_dim(mix_dim);
    shape_check(hc == 4 && is_single(mixes, 2), name,
                "mixes %s must be [(2 + hc)*hc, n_tokens] with hc = 4 streams (24 mixes per token)", shape(mixes));
    shape_check(scale->ne[0] >= 3 && is_single(scale, 1), name, "scale %s must be a vector of at least 3",
                shape(scale));
    shape_check(base->ne[0] == mix_dim && is_single(base, 1), name, "base %s must be a vector of %lld for mixes %s",
                shape(base), static_cast<long long>(mix_dim), shape(mixes));
    ggml_tensor * t = new_result(ctx, GGML_TYPE_F32, {hc, hc, mixes->ne[1], 1}, name);
    t               = with_f32(set_op(t, GGML_OP_DSV4_HC_COMB, {mixes, scale, base}), {eps});
    if (t != nullptr) {
        t->op_params[1] = n_iter;
    }
    return t;
}

struct ggml_tensor * ggml_dsv4_hc_pre(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * weights) {
    return hc_pre_impl(ctx, x, weights, 1.0f, false, "ggml_dsv4_hc_pre");
}

struct ggml_tensor * ggml_dsv4_hc_pre_gated(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * gate,
                                            float scale) {
    return hc_pre_impl(ctx, x, gate, scale, true, "ggml_dsv4_hc_pre_gated");
}

struct ggml_tensor * ggml_dsv4_hc_post(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * residual,
                                       struct ggml_tensor * post, struct ggml_tensor * comb) {
    const char * name = "ggml_dsv4_hc_post";
    if (!inputs_ok(name, {x, residual, post})) { // comb may be NULL: the identity, as upstream
        return nullptr;
    }
    for (const ggml_tensor * in : {x, residual, post, comb}) {
        shape_check(in == nullptr || in->type == GGML_TYPE_F32, name, "input %s must be f32", shape(in));
    }
    const int64_t n_embd = x->ne[0], n_tokens = x->ne[1], hc = residual->ne[1];
    shape_check(is_single(x, 2), name, "x %s must be [n_embd, n_tokens]", shape(x));
    shape_check(hc > 0 && residual->ne[0] == n_embd && residual->ne[2] == n_tokens && residual->ne[3] == 1, name,
                "residual %s must be [n_embd, hc, n_tokens] with hc > 0 for x %s", shape(residual), shape(x));
    shape_check(post->ne[0] == hc && post->ne[1] == n_tokens && is_single(post, 2), name,
                "post %s must be [hc, n_tokens] for residual %s", shape(post), shape(residual));
    shape_check(comb == nullptr || (comb->ne[0] == hc && comb->ne[1] == hc && comb->ne[2] == n_tokens && comb->ne[3] == 1),
                name, "comb %s must be [hc, hc, n_tokens] for residual %s", shape(comb), shape(residual));
    ggml_tensor * t = new_result(ctx, GGML_TYPE_F32, {n_embd, hc, n_tokens, 1}, name);
    return set_op(t, GGML_OP_DSV4_HC_POST, {x, residual, post, comb});
}

} // extern "C"
