// FLASH_ATTN_EXT: fused softmax(q*k^T*scale + mask*slope) * v, with optional logit soft-capping and sinks.
//
// q [Dk, n_batch, n_head, ne3], k [Dk, n_kv, n_head_kv, ne3], v [Dv, n_kv, n_head_kv, ne3];
// n_head % n_head_kv == 0. mask (optional): F16, contiguous, [n_kv, n_batch(+pad), ne32, ne33] with
// n_head % ne32 == 0 and ne3 % ne33 == 0; max_bias > 0 needs a mask.
// Result: F32 [Dv, n_head, n_batch, ne3] (heads and batch swapped, i.e. already permuted for the output
// projection). src = {q, k, v, mask, sinks}.
// op_params: (f32) [0] scale, [1] max_bias, [2] logit_softcap; (i32) [3] ggml_prec (ggml_prec_set_acc),
// [4] n_kv_max (ggml_flash_attn_ext_set_n_kv_max: a bound on the finite mask entries per row, a hint for sparse
// implementations; ours compute every key either way, so results do not depend on it).
//
// FLASH_ATTN_BACK: the gradients of the legacy attention softmax(mask(k^T q * 1/sqrt(D))) applied to v.
// q [D, N, n_head, ne3], k [D, M, n_head_kv, ne3], v [M, D, n_head_kv, ne3] (transposed), d [D, N, n_head, ne3] the
// gradient of the output; n_head % n_head_kv == 0. Result: F32 1-d, the gradients of q, k and v one after the
// other, each packed with its tensor's shape and starting on a GGML_MEM_ALIGN bound. src = {q, k, v, d}.
// op_params: (i32) [0] masked (causal: query i sees keys 0 .. M - N + i; needs M >= N).
#include "core/ops/op_common.h"

#include "base/abort.h"
#include "base/log.h"

namespace switchyard::ops {

namespace {

void check_attention(const ggml_tensor * q, const ggml_tensor * k, const ggml_tensor * v, const ggml_tensor * mask,
                     float max_bias, const char * name) {
    shape_check(k->ne[0] == q->ne[0], name, "q %s and k %s differ in head size", shape(q), shape(k));
    shape_check(divisible(q->ne[2], k->ne[2]) && divisible(q->ne[3], k->ne[3]), name,
                "k %s cannot be broadcast over the heads of q %s", shape(k), shape(q));
    shape_check(q->ne[3] == k->ne[3] && q->ne[3] == v->ne[3], name, "q %s, k %s and v %s differ in ne[3]",
                shape(q), shape(k), shape(v));
    if (mask) {
        shape_check(mask->type == GGML_TYPE_F16, name, "mask %s must be f16", shape(mask));
        shape_check(ggml_is_contiguous(mask), name, "mask %s must be contiguous", shape(mask));
        shape_check(divisible(q->ne[2], mask->ne[2]) && divisible(q->ne[3], mask->ne[3]), name,
                    "mask %s cannot be broadcast over dims 2 and 3 of q %s", shape(mask), shape(q));
    }
    shape_check(max_bias <= 0.0f || mask != nullptr, name, "max_bias %g > 0 needs a mask", static_cast<double>(max_bias));
}

void check_attention_back(const ggml_tensor * q, const ggml_tensor * k, const ggml_tensor * v, const ggml_tensor * d,
                          bool masked, const char * name) {
    shape_check(k->ne[0] == q->ne[0] && v->ne[1] == q->ne[0] && d->ne[0] == q->ne[0], name,
                "q %s, k %s, v %s (transposed) and d %s differ in head size", shape(q), shape(k), shape(v), shape(d));
    shape_check(v->ne[0] == k->ne[1] && v->ne[2] == k->ne[2], name, "v %s must be k %s transposed", shape(v),
                shape(k));
    shape_check(divisible(q->ne[2], k->ne[2]), name, "k %s cannot be broadcast over the heads of q %s", shape(k),
                shape(q));
    shape_check(k->ne[3] == q->ne[3] && v->ne[3] == q->ne[3], name, "q %s, k %s and v %s differ in ne[3]", shape(q),
                shape(k), shape(v));
    shape_check(ggml_are_same_shape(d, q), name, "d %s must be shaped like q %s", shape(d), shape(q));
    shape_check(!masked || k->ne[1] >= q->ne[1], name, "masked: k %s needs at least as many keys as q %s has rows",
                shape(k), shape(q));
}

// The packed gradients' size in F32 elements: q's, k's and v's, each padded to GGML_MEM_ALIGN bytes.
int64_t attention_back_elements(const ggml_tensor * q, const ggml_tensor * k, const ggml_tensor * v) {
    size_t bytes = 0;
    for (const ggml_tensor * t : {q, k, v}) {
        bytes += GGML_PAD(static_cast<size_t>(ggml_nelements(t)) * sizeof(float), GGML_MEM_ALIGN);
    }
    return static_cast<int64_t>(bytes / sizeof(float));
}

// Void helpers take a tensor that an earlier failure may have left NULL: log and skip.
bool attention_node(const ggml_tensor * a, const char * name) {
    if (!a) {
        log_error("[%s] tensor is NULL (an earlier constructor failed)\n", name);
        return false;
    }
    if (a->op != GGML_OP_FLASH_ATTN_EXT) {
        fatal("[%s] tensor '%s' has op %s, not FLASH_ATTN_EXT", name, a->name, ggml_op_name(a->op));
    }
    return true;
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                         struct ggml_tensor * v, struct ggml_tensor * mask, float scale,
                                         float max_bias, float logit_softcap) {
    const char * name = "ggml_flash_attn_ext";
    if (!inputs_ok(name, {q, k, v})) {
        return nullptr;
    }
    check_attention(q, k, v, mask, max_bias, name);
    const Ne      ne = {v->ne[0], q->ne[2], q->ne[1], q->ne[3]};
    ggml_tensor * t  = set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_FLASH_ATTN_EXT, {q, k, v, mask});
    return with_f32(t, {scale, max_bias, logit_softcap});
}

struct ggml_tensor * ggml_flash_attn_back(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * d, bool masked) {
    const char * name = "ggml_flash_attn_back";
    if (!inputs_ok(name, {q, k, v, d})) {
        return nullptr;
    }
    check_attention_back(q, k, v, d, masked, name);
    const Ne      ne = {attention_back_elements(q, k, v), 1, 1, 1};
    ggml_tensor * t  = set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_FLASH_ATTN_BACK, {q, k, v, d});
    return with_i32(t, {masked ? 1 : 0});
}

void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    if (attention_node(a, "ggml_flash_attn_ext_set_prec")) {
        set_op_param_i32(a, 3, static_cast<int32_t>(prec));
    }
}

void ggml_flash_attn_ext_set_n_kv_max(struct ggml_tensor * a, int32_t n_kv_max) {
    const char * name = "ggml_flash_attn_ext_set_n_kv_max";
    if (attention_node(a, name)) {
        if (n_kv_max < 0) {
            fatal("[%s] n_kv_max %d must not be negative", name, n_kv_max);
        }
        set_op_param_i32(a, 4, n_kv_max);
    }
}

enum ggml_prec ggml_flash_attn_ext_get_prec(const struct ggml_tensor * a) {
    if (!attention_node(a, "ggml_flash_attn_ext_get_prec")) {
        return GGML_PREC_DEFAULT;
    }
    return static_cast<ggml_prec>(get_op_param_i32(a, 3));
}

// sinks == NULL detaches the sinks (as upstream).
void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    const char * name = "ggml_flash_attn_ext_add_sinks";
    if (!a) {
        log_error("[%s] tensor is NULL (an earlier constructor failed)\n", name);
        return;
    }
    if (!sinks) {
        a->src[4] = nullptr;
        return;
    }
    attention_node(a, name);
    shape_check(a->src[4] == nullptr, name, "tensor '%s' already has sinks", a->name);
    shape_check(a->src[0]->ne[2] == sinks->ne[0], name, "sinks %s need one value per head of q %s",
                shape(sinks), shape(a->src[0]));
    shape_check(sinks->type == GGML_TYPE_F32, name, "sinks %s must be f32", shape(sinks));
    a->src[4] = sinks;
}

} // extern "C"
