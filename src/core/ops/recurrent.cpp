// State-space and linear-attention ops: recurrences that carry a state from token to token and return the outputs
// and the final state in one tensor. Shapes, sources and op_params as upstream's constructors (ggml.c).
//
// SSM_CONV:          sx F32 [d_conv - 1 + n_t, d_inner, n_s], c [d_conv, d_inner] -> F32 [d_inner, n_t, n_s]:
//                    dst[i, t, s] = sum_k sx[t + k, i, s] * c[k, i] (the causal 1-d convolution of Mamba).
// SSM_SCAN:          s [d_state, head_dim, n_head, n_states], x [head_dim, n_head, n_t, n_s], dt [n_head, n_t, n_s],
//                    A [d_state or 1, n_head], B and C [d_state, n_group, n_t, n_s], ids I32 [n_s] (which state each
//                    sequence starts from), op_params[0] = K (>= 1) -> F32 1-d: y [head_dim, n_head, n_t, n_s] then
//                    K slots of states [d_state, head_dim, n_head, n_s]: slot 0 the final states, slot i (0 < i <
//                    min(K, n_t)) the states i tokens earlier, later slots left unwritten. A [1, n_head] is Mamba-2
//                    (one decay per head), A [d_state, n_head] Mamba-1 (K = 1 only). src = {s, x, dt, A, B, C, ids}.
// RWKV_WKV6:         k, v, r, td [S, H, T], tf [S, H], state [S*S*H, n_seqs] -> F32 [S*H, T + S*n_seqs]: T rows of
//                    outputs, then the states. The T tokens are n_seqs sequences of T / n_seqs tokens each (the
//                    kernels refuse other splits; the constructors check what upstream's check).
// GATED_LINEAR_ATTN: k, v, q, g [S, H, T], state as RWKV_WKV6, op_params[0] = scale (f32) -> as RWKV_WKV6.
// RWKV_WKV7:         r, w, k, v, a, b [S, H, T], state as RWKV_WKV6 -> as RWKV_WKV6.
// SOLVE_TRI:         A F32 [n, n, B2, B3], B F32 [k, n, B2, B3] -> X F32 like B with A X = B. Upstream accepts only
//                    left = true, lower = true, uni = false (a lower triangular A with its own diagonal); so do we.
// GATED_DELTA_NET:   q, k [S_v, H_k, n_t, n_sq], v [S_v, H, n_t, n_s], g [1 or S_v, H, n_t, n_s], beta [1, H, n_t,
//                    n_s], state [S_v, S_v, H, n_s], op_params[0] = K (state snapshots, >= 1) -> F32 [S_v*H,
//                    n_t*n_s + K*S_v*n_s]: the outputs [S_v, H, n_t, n_s], then K states [S_v, S_v, H, n_s] (slot 0
//                    the last, slot i the state i tokens earlier). Head h reads q and k head h % H_k; H_k need not
//                    divide H, n_sq must divide n_s.
#include "core/ops/op_common.h"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

// The token-major recurrences of RWKV and GLA, checked as upstream checks them: every input contiguous, the
// `shaped` ones [S, H, T] in their first three extents (S, H, T from the first), the state S*S*H values per
// sequence (its ne[1] sequences). Returns the result [S*H, T + S*n_seqs]. Whether the T tokens split evenly into
// the sequences, and the shapes upstream leaves unchecked, are the kernels' to refuse (supports_op).
ggml_tensor * linear_attn_result(ggml_context * ctx, std::initializer_list<const ggml_tensor *> shaped,
                                 std::initializer_list<const ggml_tensor *> others, const ggml_tensor * state,
                                 const char * name) {
    const ggml_tensor * first = *shaped.begin();
    const int64_t       S = first->ne[0], H = first->ne[1], T = first->ne[2];
    for (const ggml_tensor * t : shaped) {
        shape_check(ggml_is_contiguous(t), name, "input %s must be contiguous", shape(t));
        shape_check(t->ne[0] == S && t->ne[1] == H && t->ne[2] == T, name,
                    "input %s must be [S, H, T] = [%lld, %lld, %lld]", shape(t), static_cast<long long>(S),
                    static_cast<long long>(H), static_cast<long long>(T));
    }
    for (const ggml_tensor * t : others) {
        shape_check(ggml_is_contiguous(t), name, "input %s must be contiguous", shape(t));
    }
    shape_check(ggml_is_contiguous(state), name, "state %s must be contiguous", shape(state));
    const int64_t n_seqs = state->ne[1];
    shape_check(ggml_nelements(state) == S * S * H * n_seqs, name, "state %s must hold S*S*H = %lld values per sequence",
                shape(state), static_cast<long long>(S * S * H));
    return new_result(ctx, GGML_TYPE_F32, {S * H, T + S * n_seqs, 1, 1}, name);
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c) {
    const char * name = "ggml_ssm_conv";
    if (!inputs_ok(name, {sx, c})) {
        return nullptr;
    }
    shape_check(ggml_is_3d(sx) && ggml_is_matrix(c), name, "sx %s must be 3-d and c %s a matrix", shape(sx), shape(c));
    const int64_t d_conv = c->ne[0], d_inner = c->ne[1];
    const int64_t n_t = sx->ne[0] - d_conv + 1;
    shape_check(sx->ne[1] == d_inner && n_t >= 0, name, "sx %s must be [d_conv - 1 + n_t, d_inner, n_s] for c %s",
                shape(sx), shape(c));
    return set_op(new_result(ctx, GGML_TYPE_F32, {d_inner, n_t, sx->ne[2], 1}, name), GGML_OP_SSM_CONV, {sx, c});
}

struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                   struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                   struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K) {
    const char * name = "ggml_ssm_scan";
    if (!inputs_ok(name, {s, x, dt, A, B, C, ids})) {
        return nullptr;
    }
    shape_check(K >= 1 && K <= INT32_MAX, name, "K = %lld states to keep must be in [1, INT32_MAX]",
                static_cast<long long>(K));
    shape_check(ggml_is_contiguous(s) && ggml_is_contiguous(dt) && ggml_is_contiguous(A), name,
                "s %s, dt %s and A %s must be contiguous", shape(s), shape(dt), shape(A));
    for (const ggml_tensor * t : {x, B, C}) {
        shape_check(t->nb[0] == ggml_type_size(t->type) && t->nb[1] == t->ne[0] * t->nb[0], name,
                    "x, B and C must have packed rows and planes (%s)", shape(t));
    }
    shape_check(ggml_are_same_shape(B, C), name, "B %s and C %s differ in shape", shape(B), shape(C));
    shape_check(ids->type == GGML_TYPE_I32 && ggml_is_vector(ids), name, "ids %s must be an i32 vector", shape(ids));
    const int64_t d_state = s->ne[0], head_dim = x->ne[0], n_head = x->ne[1], n_t = x->ne[2], n_s = x->ne[3];
    shape_check(ggml_is_3d(dt) && dt->ne[0] == n_head && dt->ne[1] == n_t && dt->ne[2] == n_s, name,
                "dt %s must be [n_head, n_t, n_s] for x %s", shape(dt), shape(x));
    shape_check(s->ne[1] == head_dim && s->ne[2] == n_head, name, "s %s must be [d_state, head_dim, n_head, n] for x %s",
                shape(s), shape(x));
    shape_check(B->ne[0] == d_state && B->ne[2] == n_t && B->ne[3] == n_s, name,
                "B %s must be [d_state, n_group, n_t, n_s] for s %s and x %s", shape(B), shape(s), shape(x));
    shape_check(ids->ne[0] == n_s, name, "ids %s must name one state per sequence of x %s", shape(ids), shape(x));
    shape_check(ggml_is_matrix(A) && A->ne[1] == n_head && (A->ne[0] == 1 || A->ne[0] == d_state), name,
                "A %s must be [1, n_head] (Mamba-2) or [d_state, n_head] (Mamba-1) for s %s", shape(A), shape(s));
    shape_check(A->ne[0] == 1 || K == 1, name, "K = %lld kept states needs Mamba-2's A [1, n_head], not A %s",
                static_cast<long long>(K), shape(A));
    const int64_t n = ggml_nelements(x) + K * d_state * head_dim * n_head * n_s;
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, {n, 1, 1, 1}, name), GGML_OP_SSM_SCAN, {s, x, dt, A, B, C, ids});
    return with_i32(t, {static_cast<int32_t>(K)});
}

struct ggml_tensor * ggml_rwkv_wkv6(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
                                    struct ggml_tensor * r, struct ggml_tensor * tf, struct ggml_tensor * td,
                                    struct ggml_tensor * state) {
    const char * name = "ggml_rwkv_wkv6";
    if (!inputs_ok(name, {k, v, r, tf, td, state})) {
        return nullptr;
    }
    // tf's shape is unchecked, as upstream: llama.cpp asks whether a backend supports the op with its real
    // time_first [S, H] and made-up k, v, r and td; the kernels check it
    ggml_tensor * t = linear_attn_result(ctx, {k, v, r, td}, {tf}, state, name);
    return set_op(t, GGML_OP_RWKV_WKV6, {k, v, r, tf, td, state});
}

struct ggml_tensor * ggml_gated_linear_attn(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
                                            struct ggml_tensor * q, struct ggml_tensor * g, struct ggml_tensor * state,
                                            float scale) {
    const char * name = "ggml_gated_linear_attn";
    if (!inputs_ok(name, {k, v, q, g, state})) {
        return nullptr;
    }
    ggml_tensor * t = linear_attn_result(ctx, {k, v, q, g}, {}, state, name);
    return with_f32(set_op(t, GGML_OP_GATED_LINEAR_ATTN, {k, v, q, g, state}), {scale});
}

struct ggml_tensor * ggml_rwkv_wkv7(struct ggml_context * ctx, struct ggml_tensor * r, struct ggml_tensor * w,
                                    struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * a,
                                    struct ggml_tensor * b, struct ggml_tensor * state) {
    const char * name = "ggml_rwkv_wkv7";
    if (!inputs_ok(name, {r, w, k, v, a, b, state})) {
        return nullptr;
    }
    ggml_tensor * t = linear_attn_result(ctx, {k, w, v, a, b}, {r}, state, name);
    return set_op(t, GGML_OP_RWKV_WKV7, {r, w, k, v, a, b, state});
}

struct ggml_tensor * ggml_solve_tri(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, bool left,
                                    bool lower, bool uni) {
    const char * name = "ggml_solve_tri";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32, name, "a %s and b %s must be f32", shape(a),
                shape(b));
    shape_check(ggml_is_contiguous(a) && ggml_is_contiguous(b), name, "a %s and b %s must be contiguous", shape(a),
                shape(b));
    shape_check(a->ne[0] == a->ne[1], name, "a %s must be square", shape(a));
    shape_check(a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3], name,
                "b %s must be [k, n, B2, B3] for a %s = [n, n, B2, B3]", shape(b), shape(a));
    shape_check(left && lower && !uni, name,
                "only left = true, lower = true, uni = false is supported (as upstream); got left = %d, lower = %d, uni = %d",
                left ? 1 : 0, lower ? 1 : 0, uni ? 1 : 0);
    return set_op(new_result(ctx, GGML_TYPE_F32, ne_of(b), name), GGML_OP_SOLVE_TRI, {a, b});
}

struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
                                          struct ggml_tensor * state, int64_t K) {
    const char * name = "ggml_gated_delta_net";
    if (!inputs_ok(name, {q, k, v, g, beta, state})) {
        return nullptr;
    }
    for (const ggml_tensor * t : {q, k, v, g, beta, state}) {
        shape_check(t->type == GGML_TYPE_F32, name, "input %s must be f32", shape(t));
    }
    shape_check(ggml_is_contiguous_rows(q) && ggml_is_contiguous_rows(k) && ggml_is_contiguous_rows(v), name,
                "q %s, k %s and v %s must have adjacent elements in each row", shape(q), shape(k), shape(v));
    shape_check(ggml_is_contiguous(g) && ggml_is_contiguous(beta) && ggml_is_contiguous(state), name,
                "g %s, beta %s and state %s must be contiguous", shape(g), shape(beta), shape(state));
    // as upstream, only g's and beta's first extent and the state are checked here; q, k and the other extents of
    // g and beta are the kernels' to check
    const int64_t S_v = v->ne[0], H = v->ne[1], n_t = v->ne[2], n_s = v->ne[3];
    shape_check(g->ne[0] == 1 || g->ne[0] == S_v, name, "g %s must be [1 or S_v, ...] for v %s", shape(g), shape(v));
    shape_check(beta->ne[0] == 1, name, "beta %s must be [1, ...]", shape(beta));
    shape_check(state->ne[0] == S_v && state->ne[1] == S_v && state->ne[2] == H && state->ne[3] == n_s, name,
                "state %s must be [S_v, S_v, H, n_s] for v %s", shape(state), shape(v));
    shape_check(K >= 1 && K <= INT32_MAX, name, "the snapshot count K = %lld must be at least 1",
                static_cast<long long>(K));
    ggml_tensor * t = new_result(ctx, GGML_TYPE_F32, {S_v * H, n_t * n_s + K * S_v * n_s, 1, 1}, name);
    t               = set_op(t, GGML_OP_GATED_DELTA_NET, {q, k, v, g, beta, state});
    return with_i32(t, {static_cast<int32_t>(K)});
}

} // extern "C"
