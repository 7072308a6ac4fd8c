// State-space and linear-attention kernels: SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN,
// RWKV_WKV7, SOLVE_TRI, GATED_DELTA_NET. Shapes and sources are those of the constructors (core/ops/recurrent.cpp);
// everything F32. The recurrences keep upstream's order of operations (a token at a time, each state element
// updated once per token), so results do not depend on the thread count: threads split independent items
// (channels, heads, head x sequence pairs, right-hand-side columns), never a sum.
//
// SSM_CONV:  dst[i, t, s] = sum_k sx[t + k, i, s] c[k, i]. Threads split the channels i.
// SSM_SCAN:  per sequence s (starting from state ids[s]), token t, head h, with dts = softplus(dt[h, t, s]) and
//            group g = h / (n_head / n_group): state[j, d, h] = state[j, d, h] exp(dts A[j or 0, h]) +
//            B[j, g, t, s] x[d, h, t, s] dts; y[d, h, t, s] = sum_j state[j, d, h] C[j, g, t, s]. The final state
//            goes to slot 0; with K > 1 the state after token t also to slot n_t - 1 - t when below K (as
//            GATED_DELTA_NET). Threads split the heads.
// RWKV_WKV6: per token t of sequence n, head h, with S[i, j] the state (i along k, j along v; stored at
//            h*S*S + i*S + j): out[j] = sum_i r[i] (tf[i] k[i] v[j] + S[i, j]); S[i, j] = S[i, j] td[i] + k[i] v[j].
// GLA:       S[i, j] = S[i, j] g[i] + k[i] v[j]; out[j] = sum_i S[i, j] q[i] scale.
// RWKV_WKV7: with S[i, j] (i along v, j along k): sa = sum_j a[j] S[i, j]; S[i, j] = S[i, j] w[j] + v[i] k[j] +
//            sa b[j]; out[i] = sum_j S[i, j] r[j]. The three split the heads.
// SOLVE_TRI: forward substitution, X[i, c] = (B[i, c] - sum_{m<i} A[i, m] X[m, c]) / A[i, i] (a zero diagonal gives
//            inf / nan, as the division does). Threads split the (batch, column) pairs.
// GATED_DELTA_NET: per (head h, sequence s), state M[i, j] (i along k, j along v; stored at j*S_v + i): per token,
//            M[i, j] *= exp(g[i] or g[0]); delta[j] = (v[j] - sum_i M[i, j] k[i]) beta; M[i, j] += k[i] delta[j];
//            out[j] = sum_i M[i, j] q[i] / sqrt(S_v). q and k head h % H_k, sequence s / (n_s / n_sq). The final
//            state goes to slot 0; with K > 1 the state after token t also to slot n_t - 1 - t when below K (older
//            slots are left as they are). Threads split the (head, sequence) pairs; scratch: S_v floats per
//            thread (delta), plus a state when K > 1.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

const float * fptr(const ggml_tensor * t) {
    return static_cast<const float *>(t->data);
}

const float * fat(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return reinterpret_cast<const float *>(elem_ptr(t, i0, i1, i2, i3));
}

bool all_f32(const ggml_tensor * dst, int n_src) {
    if (dst->type != GGML_TYPE_F32 || !ggml_is_contiguous(dst)) {
        return false;
    }
    for (int i = 0; i < n_src; ++i) {
        if (dst->src[i] == nullptr || dst->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

float softplus(float x) {
    return x > 20.0f ? x : std::log1p(std::exp(x));
}

// ---- SSM_CONV ----

void ssm_conv_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * sx     = dst->src[0];
    const ggml_tensor * c      = dst->src[1];
    const int64_t       d_conv = c->ne[0];
    const Range         rows   = thread_range(p, dst->ne[0]);
    for (int64_t s = 0; s < dst->ne[2]; ++s) {
        for (int64_t t = 0; t < dst->ne[1]; ++t) {
            float * out = reinterpret_cast<float *>(elem_ptr(dst, 0, t, s, 0));
            for (int64_t i = rows.begin; i < rows.end; ++i) {
                const float * x = fat(sx, t, i, s, 0);
                const float * w = fat(c, 0, i, 0, 0);
                float         sum = 0.0f;
                for (int64_t k = 0; k < d_conv; ++k) {
                    sum += x[k] * w[k];
                }
                out[i] = sum;
            }
        }
    }
}

bool ssm_conv_supports(const ggml_tensor * dst) {
    const ggml_tensor * sx = dst->src[0];
    const ggml_tensor * c  = dst->src[1];
    return all_f32(dst, 2) && is_f32_rows(sx) && is_f32_rows(c) && c->ne[1] == dst->ne[0] && sx->ne[1] == dst->ne[0] &&
           sx->ne[0] == c->ne[0] - 1 + dst->ne[1] && sx->ne[2] == dst->ne[2];
}

// ---- SSM_SCAN ----

struct ScanShape {
    int64_t d_state, head_dim, n_head, n_group, n_t, n_s;
};

ScanShape scan_shape(const ggml_tensor * dst) {
    const ggml_tensor * s = dst->src[0];
    const ggml_tensor * x = dst->src[1];
    return {s->ne[0], s->ne[1], x->ne[1], dst->src[4]->ne[1], x->ne[2], x->ne[3]};
}

// One token of one head: updates the head_dim x d_state states of head h from `prev` into `cur` and writes y.
void scan_head(const ScanShape & sh, const float * prev, float * cur, const float * x, const float * A, bool per_state,
               const float * B, const float * C, float dts, int64_t h, float * y) {
    const int64_t g  = h / (sh.n_head / sh.n_group);
    const float * Bg = B + g * sh.d_state;
    const float * Cg = C + g * sh.d_state;
    const float   dA = per_state ? 0.0f : std::exp(dts * A[h]);
    for (int64_t d = 0; d < sh.head_dim; ++d) {
        const int64_t ii   = d + h * sh.head_dim;
        const float   x_dt = x[ii] * dts;
        float         sum  = 0.0f;
        for (int64_t j = 0; j < sh.d_state; ++j) {
            const int64_t i     = j + ii * sh.d_state;
            const float   decay = per_state ? std::exp(dts * A[j + h * sh.d_state]) : dA;
            const float   state = prev[i] * decay + Bg[j] * x_dt;
            sum += state * Cg[j];
            cur[i] = state;
        }
        y[ii] = sum;
    }
}

void ssm_scan_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * s   = dst->src[0];
    const ggml_tensor * x   = dst->src[1];
    const ggml_tensor * dt  = dst->src[2];
    const ggml_tensor * A   = dst->src[3];
    const ggml_tensor * B   = dst->src[4];
    const ggml_tensor * C   = dst->src[5];
    const ggml_tensor * ids = dst->src[6];
    const ScanShape     sh  = scan_shape(dst);
    const bool          per_state  = A->ne[0] != 1;
    const int64_t       head_elems = sh.head_dim * sh.n_head;
    const int64_t       state_size = sh.d_state * head_elems;
    float *             y_base     = static_cast<float *>(dst->data);
    float *             s_base     = y_base + head_elems * sh.n_t * sh.n_s;
    const int64_t       n_keep     = dst->op_params[0]; // K: state slots
    const Range         heads      = thread_range(p, sh.n_head);
    for (int64_t seq = 0; seq < sh.n_s; ++seq) {
        int32_t id;
        std::memcpy(&id, elem_ptr(ids, seq, 0, 0, 0), sizeof(id));
        if (!index_in_range(id, s->ne[3])) {
            report_data_error(p, "state id %d out of range [0, %lld) at %lld of src6 '%s'", id,
                              static_cast<long long>(s->ne[3]), static_cast<long long>(seq), ids->name);
            return;
        }
        const float * prev = reinterpret_cast<const float *>(elem_ptr(s, 0, 0, 0, id));
        float *       cur  = s_base + seq * state_size;
        for (int64_t t = 0; t < sh.n_t; ++t) {
            const float * xt = fat(x, 0, 0, t, seq);
            const float * dtt = fat(dt, 0, t, seq, 0);
            const float * Bt = fat(B, 0, 0, t, seq);
            const float * Ct = fat(C, 0, 0, t, seq);
            float *       y  = y_base + (seq * sh.n_t + t) * head_elems;
            for (int64_t h = heads.begin; h < heads.end; ++h) {
                scan_head(sh, prev, cur, xt, fptr(A), per_state, Bt, Ct, softplus(dtt[h]), h, y);
            }
            const int64_t slot = sh.n_t - 1 - t;
            if (slot > 0 && slot < n_keep) {
                const int64_t head_state = sh.d_state * sh.head_dim;
                float *       snapshot   = s_base + (slot * sh.n_s + seq) * state_size;
                std::memcpy(snapshot + heads.begin * head_state, cur + heads.begin * head_state,
                            static_cast<size_t>((heads.end - heads.begin) * head_state) * sizeof(float));
            }
            prev = cur; // later tokens continue from this sequence's own state
        }
    }
}

bool ssm_scan_supports(const ggml_tensor * dst) {
    if (!all_f32(dst, 6) || dst->src[6] == nullptr || dst->src[6]->type != GGML_TYPE_I32) {
        return false;
    }
    const ggml_tensor * s = dst->src[0];
    const ggml_tensor * x = dst->src[1];
    const ggml_tensor * B = dst->src[4];
    const ggml_tensor * C = dst->src[5];
    const ggml_tensor * A  = dst->src[3];
    const ggml_tensor * dt = dst->src[2];
    const ScanShape     sh = scan_shape(dst);
    const int64_t       K  = dst->op_params[0];
    const auto packed = [](const ggml_tensor * t) { return t->nb[0] == sizeof(float) && t->nb[1] == t->ne[0] * sizeof(float); };
    return ggml_is_contiguous(s) && ggml_is_contiguous(dt) && ggml_is_contiguous(A) && packed(x) &&
           packed(B) && packed(C) && ggml_are_same_shape(B, C) && x->ne[0] == sh.head_dim && s->ne[2] == sh.n_head &&
           B->ne[0] == sh.d_state && B->ne[2] == sh.n_t && B->ne[3] == sh.n_s && sh.n_group > 0 &&
           sh.n_head % sh.n_group == 0 && dst->src[6]->ne[0] == sh.n_s && A->ne[1] == sh.n_head &&
           (A->ne[0] == 1 || A->ne[0] == sh.d_state) && dt->ne[0] == sh.n_head && dt->ne[1] == sh.n_t &&
           dt->ne[2] == sh.n_s && K >= 1 && (A->ne[0] == 1 || K == 1) &&
           ggml_nelements(dst) == ggml_nelements(x) + K * sh.d_state * sh.head_dim * sh.n_head * sh.n_s;
}

// ---- RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7 ----

// Extents shared by the three: S per head, H heads, T tokens in n_seqs sequences; `state` the input state.
struct AttnShape {
    int64_t S, H, T, n_seqs;
};

AttnShape attn_shape(const ggml_tensor * dst, const ggml_tensor * state) {
    const ggml_tensor * v = dst->src[1];
    return {v->ne[0], v->ne[1], v->ne[2], state->ne[1]};
}

// The state a token reads (the input state at a sequence's first token, else the running one) and writes.
struct StatePair {
    const float * prev;
    float *       cur;
};

StatePair states_at(const AttnShape & a, const ggml_tensor * state, ggml_tensor * dst, int64_t t) {
    const int64_t per_seq = a.T / a.n_seqs;
    const int64_t offset  = (t / per_seq) * a.S * a.S * a.H;
    float *       cur     = static_cast<float *>(dst->data) + a.T * a.S * a.H + offset;
    return {t % per_seq ? cur : fptr(state) + offset, cur};
}

void wkv6_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * state = dst->src[5];
    const AttnShape     a     = attn_shape(dst, state);
    if (ggml_nelements(dst->src[3]) != a.S * a.H) { // see wkv6_supports
        report_data_error(p, "time_first src3 '%s' holds %lld values, not S*H = %lld", dst->src[3]->name,
                          static_cast<long long>(ggml_nelements(dst->src[3])), static_cast<long long>(a.S * a.H));
        return;
    }
    const float *k = fptr(dst->src[0]), *v = fptr(dst->src[1]), *r = fptr(dst->src[2]);
    const float *tf = fptr(dst->src[3]), *td = fptr(dst->src[4]);
    float *      out   = static_cast<float *>(dst->data);
    const Range  heads = thread_range(p, a.H);
    for (int64_t t = 0; t < a.T; ++t) {
        const StatePair st = states_at(a, state, dst, t);
        for (int64_t h = heads.begin; h < heads.end; ++h) {
            const int64_t th = (t * a.H + h) * a.S;
            float *       o  = out + th;
            std::fill(o, o + a.S, 0.0f);
            for (int64_t i = 0; i < a.S; ++i) {
                const int64_t row = (h * a.S + i) * a.S;
                const float   ki = k[th + i], ri = r[th + i], tfi = tf[h * a.S + i], tdi = td[th + i];
                for (int64_t j = 0; j < a.S; ++j) {
                    const float kv   = v[th + j] * ki;
                    const float prev = st.prev[row + j];
                    o[j] += (kv * tfi + prev) * ri;
                    st.cur[row + j] = prev * tdi + kv;
                }
            }
        }
    }
}

void gla_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * state = dst->src[4];
    const AttnShape     a     = attn_shape(dst, state);
    const float *k = fptr(dst->src[0]), *v = fptr(dst->src[1]), *q = fptr(dst->src[2]), *g = fptr(dst->src[3]);
    const float  scale = op_f32(dst, 0);
    float *      out   = static_cast<float *>(dst->data);
    const Range  heads = thread_range(p, a.H);
    for (int64_t t = 0; t < a.T; ++t) {
        const StatePair st = states_at(a, state, dst, t);
        for (int64_t h = heads.begin; h < heads.end; ++h) {
            const int64_t th = (t * a.H + h) * a.S;
            float *       o  = out + th;
            std::fill(o, o + a.S, 0.0f);
            for (int64_t i = 0; i < a.S; ++i) {
                const int64_t row = (h * a.S + i) * a.S;
                const float   ki = k[th + i], qi = q[th + i] * scale, gi = g[th + i];
                for (int64_t j = 0; j < a.S; ++j) {
                    const float next = st.prev[row + j] * gi + v[th + j] * ki;
                    o[j] += next * qi;
                    st.cur[row + j] = next;
                }
            }
        }
    }
}

void wkv7_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * state = dst->src[6];
    const AttnShape     a     = attn_shape(dst, state);
    const float *r = fptr(dst->src[0]), *w = fptr(dst->src[1]), *k = fptr(dst->src[2]);
    const float *v = fptr(dst->src[3]), *aa = fptr(dst->src[4]), *b = fptr(dst->src[5]);
    float *      out   = static_cast<float *>(dst->data);
    const Range  heads = thread_range(p, a.H);
    for (int64_t t = 0; t < a.T; ++t) {
        const StatePair st = states_at(a, state, dst, t);
        for (int64_t h = heads.begin; h < heads.end; ++h) {
            const int64_t th = (t * a.H + h) * a.S;
            for (int64_t i = 0; i < a.S; ++i) {
                const int64_t row = (h * a.S + i) * a.S;
                float         sa  = 0.0f;
                for (int64_t j = 0; j < a.S; ++j) {
                    sa += aa[th + j] * st.prev[row + j];
                }
                const float vi     = v[th + i];
                float       result = 0.0f;
                for (int64_t j = 0; j < a.S; ++j) {
                    const float next = st.prev[row + j] * w[th + j] + vi * k[th + j] + sa * b[th + j];
                    st.cur[row + j]  = next;
                    result += next * r[th + j];
                }
                out[th + i] = result;
            }
        }
    }
}

// The n_inputs token inputs [S, H, T] and the state [S*S*H, n_seqs] (src[n_inputs]), all contiguous F32.
bool linear_attn_supports(const ggml_tensor * dst, int n_inputs, std::initializer_list<int> token_inputs) {
    if (!all_f32(dst, n_inputs + 1)) {
        return false;
    }
    const ggml_tensor * state = dst->src[n_inputs];
    const AttnShape     a     = attn_shape(dst, state);
    for (int i : token_inputs) {
        const ggml_tensor * t = dst->src[i];
        if (!ggml_is_contiguous(t) || t->ne[0] != a.S || t->ne[1] != a.H || t->ne[2] != a.T || t->ne[3] != 1) {
            return false;
        }
    }
    return ggml_is_contiguous(state) && a.n_seqs > 0 && a.T % a.n_seqs == 0 &&
           ggml_nelements(state) == a.S * a.S * a.H * a.n_seqs && dst->ne[0] == a.S * a.H &&
           dst->ne[1] == a.T + a.S * a.n_seqs;
}

// time_first's size is checked when computing (wkv6_compute), not here: llama.cpp asks whether the CPU supports
// the op with a model's real time_first [S, H] beside made-up tokens of another S and H, to choose the buffer type
// of that weight, and upstream's CPU says yes.
bool wkv6_supports(const ggml_tensor * dst) {
    return linear_attn_supports(dst, 5, {0, 1, 2, 4}) && ggml_is_contiguous(dst->src[3]);
}

bool gla_supports(const ggml_tensor * dst) {
    return linear_attn_supports(dst, 4, {0, 1, 2, 3});
}

bool wkv7_supports(const ggml_tensor * dst) {
    return linear_attn_supports(dst, 6, {0, 1, 2, 3, 4, 5});
}

// ---- SOLVE_TRI ----

void solve_tri_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * A = dst->src[0];
    const ggml_tensor * B = dst->src[1];
    const int64_t       k = B->ne[0], n = B->ne[1];
    const Range         items = thread_range(p, k * B->ne[2] * B->ne[3]);
    for (int64_t item = items.begin; item < items.end; ++item) {
        const int64_t col = item % k, i2 = (item / k) % B->ne[2], i3 = item / (k * B->ne[2]);
        for (int64_t i = 0; i < n; ++i) {
            const float * a_row = fat(A, 0, i, i2, i3);
            float         sum   = 0.0f;
            for (int64_t m = 0; m < i; ++m) {
                sum += a_row[m] * *fat(dst, col, m, i2, i3);
            }
            *reinterpret_cast<float *>(elem_ptr(dst, col, i, i2, i3)) = (*fat(B, col, i, i2, i3) - sum) / a_row[i];
        }
    }
}

bool solve_tri_supports(const ggml_tensor * dst) {
    const ggml_tensor * A = dst->src[0];
    const ggml_tensor * B = dst->src[1];
    return all_f32(dst, 2) && is_f32_rows(A) && is_f32_rows(B) && A->ne[0] == A->ne[1] && A->ne[1] == B->ne[1] &&
           A->ne[2] == B->ne[2] && A->ne[3] == B->ne[3] && ggml_are_same_shape(B, dst);
}

// ---- GATED_DELTA_NET ----

int64_t delta_net_slot_floats(const ggml_tensor * dst) {
    const int64_t S_v = dst->src[2]->ne[0];
    return S_v + (op_i32(dst, 0) > 1 ? S_v * S_v : 0);
}

size_t delta_net_work_size(const ggml_tensor * dst, int n_tasks) {
    return static_cast<size_t>(n_tasks) * scratch_floats(delta_net_slot_floats(dst));
}

// One token's update of the transposed state M (M[j*S_v + i] = S[i][j]), writing out[0..S_v).
void delta_net_token(int64_t S_v, float * M, float * delta, const float * q, const float * k, const float * v,
                     const float * g, bool per_key_gate, float beta, float scale, float * out) {
    if (per_key_gate) {
        for (int64_t i = 0; i < S_v; ++i) delta[i] = std::exp(g[i]);
        for (int64_t j = 0; j < S_v; ++j)
            for (int64_t i = 0; i < S_v; ++i) M[j * S_v + i] *= delta[i];
    } else {
        const float decay = std::exp(g[0]);
        for (int64_t e = 0; e < S_v * S_v; ++e) M[e] *= decay;
    }
    for (int64_t j = 0; j < S_v; ++j) {
        float sum = 0.0f;
        for (int64_t i = 0; i < S_v; ++i) sum += M[j * S_v + i] * k[i];
        delta[j] = (v[j] - sum) * beta;
    }
    for (int64_t j = 0; j < S_v; ++j)
        for (int64_t i = 0; i < S_v; ++i) M[j * S_v + i] += k[i] * delta[j];
    for (int64_t j = 0; j < S_v; ++j) {
        float sum = 0.0f;
        for (int64_t i = 0; i < S_v; ++i) sum += M[j * S_v + i] * q[i];
        out[j] = sum * scale;
    }
}

void delta_net_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *q = dst->src[0], *k = dst->src[1], *v = dst->src[2];
    const ggml_tensor *g = dst->src[3], *beta = dst->src[4], *state = dst->src[5];
    const int64_t      S_v = v->ne[0], H = v->ne[1], n_t = v->ne[2], n_s = v->ne[3];
    const int64_t      K          = op_i32(dst, 0);
    const int64_t      state_size = S_v * S_v;
    const int64_t      snap_size  = state_size * H * n_s;
    const int64_t      rq3        = n_s / q->ne[3];
    const bool         per_key    = g->ne[0] == S_v && S_v != 1;
    const float        scale      = 1.0f / std::sqrt(static_cast<float>(S_v));
    float *            out_base   = static_cast<float *>(dst->data);
    float *            snaps      = out_base + S_v * H * n_t * n_s;
    float *            delta = reinterpret_cast<float *>(thread_slot(p, 0, scratch_floats(delta_net_slot_floats(dst))));
    const Range        items = thread_range(p, H * n_s);
    for (int64_t item = items.begin; item < items.end; ++item) {
        const int64_t h = item % H, s = item / H;
        float *       M = K > 1 ? delta + S_v : snaps + (s * H + h) * state_size;
        std::memcpy(M, fat(state, 0, 0, h, s), static_cast<size_t>(state_size) * sizeof(float));
        for (int64_t t = 0; t < n_t; ++t) {
            const float * qt = fat(q, 0, h % q->ne[1], t, s / rq3);
            const float * kt = fat(k, 0, h % k->ne[1], t, s / rq3);
            delta_net_token(S_v, M, delta, qt, kt, fat(v, 0, h, t, s), fat(g, 0, h, t, s), per_key, *fat(beta, 0, h, t, s),
                            scale, out_base + ((s * n_t + t) * H + h) * S_v);
            const int64_t slot = n_t - 1 - t;
            if (K > 1 && slot < K) {
                std::memcpy(snaps + slot * snap_size + (s * H + h) * state_size, M,
                            static_cast<size_t>(state_size) * sizeof(float));
            }
        }
    }
}

bool delta_net_supports(const ggml_tensor * dst) {
    if (!all_f32(dst, 6)) {
        return false;
    }
    const ggml_tensor *q = dst->src[0], *k = dst->src[1], *v = dst->src[2];
    const ggml_tensor *g = dst->src[3], *beta = dst->src[4], *state = dst->src[5];
    const int64_t      S_v = v->ne[0], H = v->ne[1], n_t = v->ne[2], n_s = v->ne[3];
    const int64_t      K = op_i32(dst, 0);
    return is_f32_rows(q) && is_f32_rows(k) && is_f32_rows(v) && ggml_is_contiguous(g) && ggml_is_contiguous(beta) &&
           ggml_is_contiguous(state) && ggml_are_same_shape(q, k) && q->ne[0] == S_v && q->ne[1] > 0 &&
           q->ne[2] == n_t && q->ne[3] > 0 && n_s % q->ne[3] == 0 && (g->ne[0] == 1 || g->ne[0] == S_v) &&
           g->ne[1] == H && g->ne[2] == n_t && g->ne[3] == n_s && beta->ne[0] == 1 && beta->ne[1] == H &&
           beta->ne[2] == n_t && beta->ne[3] == n_s && state->ne[0] == S_v && state->ne[1] == S_v && state->ne[2] == H &&
           state->ne[3] == n_s && K >= 1 && dst->ne[0] == S_v * H && dst->ne[1] == n_t * n_s + K * S_v * n_s;
}

} // namespace

KernelInfo recurrent(ggml_op op) {
    switch (op) {
        case GGML_OP_SSM_CONV:          return KernelInfo{ssm_conv_compute, nullptr, nullptr, ssm_conv_supports};
        case GGML_OP_SSM_SCAN:          return KernelInfo{ssm_scan_compute, nullptr, nullptr, ssm_scan_supports};
        case GGML_OP_RWKV_WKV6:         return KernelInfo{wkv6_compute, nullptr, nullptr, wkv6_supports};
        case GGML_OP_GATED_LINEAR_ATTN: return KernelInfo{gla_compute, nullptr, nullptr, gla_supports};
        case GGML_OP_RWKV_WKV7:         return KernelInfo{wkv7_compute, nullptr, nullptr, wkv7_supports};
        case GGML_OP_SOLVE_TRI:         return KernelInfo{solve_tri_compute, nullptr, nullptr, solve_tri_supports};
        case GGML_OP_GATED_DELTA_NET:
            return KernelInfo{delta_net_compute, nullptr, delta_net_work_size, delta_net_supports};
        default: return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
