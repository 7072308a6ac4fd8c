// Op cases of the state-space and linear-attention batch (issue 16): SSM_CONV, SSM_SCAN (Mamba-1 and Mamba-2),
// RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7, SOLVE_TRI and GATED_DELTA_NET. Small shapes with head and channel counts
// that do not divide evenly between 2 and 4 threads; inputs shaped as the models feed them where the recurrence
// would otherwise grow without bound (decays below 1, normalised keys, a well-conditioned triangle). Appended to the
// shared list by op_cases.cpp.
#include "conformance/op_cases.h"

#include <string>

namespace switchyard::testing {

namespace {

using B = CaseBuilder;

std::string dims(std::initializer_list<int64_t> v) {
    std::string s;
    for (int64_t x : v) {
        s.append(s.empty() ? "[" : ",");
        s.append(std::to_string(x));
    }
    s.append("]");
    return s;
}

void add_ssm(std::vector<OpCase> & cases) {
    struct Conv { int64_t d_conv, n_t, d_inner, n_s; };
    for (const Conv c : {Conv{4, 5, 12, 3}, Conv{4, 1, 7, 2}, Conv{3, 9, 5, 1}}) {
        cases.push_back({"SSM_CONV(d_conv=" + std::to_string(c.d_conv) + ",sx=" + dims({c.d_conv - 1 + c.n_t, c.d_inner, c.n_s}) + ")",
                         GGML_OP_SSM_CONV, [c](B & b) {
                             return ggml_ssm_conv(b.ctx(), b.input(GGML_TYPE_F32, c.d_conv - 1 + c.n_t, c.d_inner, c.n_s),
                                                  b.input(GGML_TYPE_F32, c.d_conv, c.d_inner));
                         }});
    }
    // d_state, head_dim, n_head, n_group, n_t, n_s, n_states, mamba1, K (kept states, at most n_t so that every
    // slot is written)
    struct Scan { int64_t d_state, head_dim, n_head, n_group, n_t, n_s, n_states; bool mamba1; int64_t K; };
    for (const Scan & s : {Scan{16, 4, 6, 2, 3, 2, 3, false, 3}, Scan{16, 2, 5, 1, 4, 1, 2, false, 2},
                         Scan{16, 2, 5, 1, 4, 2, 2, false, 1}, Scan{8, 1, 10, 1, 4, 2, 2, true, 1},
                         Scan{4, 1, 7, 1, 1, 3, 4, true, 1}}) {
        const std::string name = std::string("SSM_SCAN(") + (s.mamba1 ? "mamba1" : "mamba2") + ",d_state=" + std::to_string(s.d_state) +
                                 ",x=" + dims({s.head_dim, s.n_head, s.n_t, s.n_s}) + ",groups=" + std::to_string(s.n_group) +
                                 ",states=" + std::to_string(s.n_states) + ",K=" + std::to_string(s.K) + ")";
        cases.push_back({name, GGML_OP_SSM_SCAN, [s](B & b) {
                             ggml_tensor * st = b.input(GGML_TYPE_F32, s.d_state, s.head_dim, s.n_head, s.n_states);
                             ggml_tensor * x  = b.input(GGML_TYPE_F32, s.head_dim, s.n_head, s.n_t, s.n_s);
                             ggml_tensor * dt = b.input(GGML_TYPE_F32, s.n_head, s.n_t, s.n_s);
                             // A = -exp(A_log) in the models: negative, so the state decays
                             ggml_tensor * A  = ggml_neg(b.ctx(), b.input(GGML_TYPE_F32, s.mamba1 ? s.d_state : 1, s.n_head, 1, 1,
                                                                          InputKind::Positive));
                             ggml_tensor * Bm = b.input(GGML_TYPE_F32, s.d_state, s.n_group, s.n_t, s.n_s);
                             ggml_tensor * Cm = b.input(GGML_TYPE_F32, s.d_state, s.n_group, s.n_t, s.n_s);
                             ggml_tensor * ids = b.input(GGML_TYPE_I32, s.n_s, 1, 1, 1, InputKind::Indices, s.n_states);
                             return ggml_ssm_scan(b.ctx(), st, x, dt, A, Bm, Cm, ids, s.K);
                         }});
    }
}

// S head size, H heads, T tokens in n_seqs sequences
struct Attn { int64_t S, H, T, n_seqs; };

std::string attn_name(const char * op, const Attn & a) {
    return std::string(op) + "(S=" + std::to_string(a.S) + ",H=" + std::to_string(a.H) + ",T=" + std::to_string(a.T) +
           ",seqs=" + std::to_string(a.n_seqs) + ")";
}

void add_linear_attn(std::vector<OpCase> & cases) {
    const Attn shapes[] = {{8, 3, 6, 2}, {4, 5, 3, 1}, {16, 2, 4, 4}};
    for (const Attn a : shapes) {
        cases.push_back({attn_name("RWKV_WKV6", a), GGML_OP_RWKV_WKV6, [a](B & b) {
                             auto tok = [&](InputKind kind = InputKind::Uniform) { return b.input(GGML_TYPE_F32, a.S, a.H, a.T, 1, kind); };
                             ggml_tensor * k = tok(), *v = tok(), *r = tok();
                             ggml_tensor * tf = b.input(GGML_TYPE_F32, a.S, a.H);
                             // time_decay = exp(-exp(w)) in (0, 1)
                             ggml_tensor * td    = ggml_sigmoid(b.ctx(), tok());
                             ggml_tensor * state = b.input(GGML_TYPE_F32, a.S * a.S * a.H, a.n_seqs);
                             return ggml_rwkv_wkv6(b.ctx(), k, v, r, tf, td, state);
                         }});
        cases.push_back({attn_name("GATED_LINEAR_ATTN", a), GGML_OP_GATED_LINEAR_ATTN, [a](B & b) {
                             auto tok = [&]() { return b.input(GGML_TYPE_F32, a.S, a.H, a.T); };
                             ggml_tensor * k = tok(), *v = tok(), *q = tok();
                             ggml_tensor * g     = ggml_sigmoid(b.ctx(), tok());
                             ggml_tensor * state = b.input(GGML_TYPE_F32, a.S * a.S * a.H, a.n_seqs);
                             return ggml_gated_linear_attn(b.ctx(), k, v, q, g, state, 0.35f);
                         }});
        cases.push_back({attn_name("RWKV_WKV7", a), GGML_OP_RWKV_WKV7, [a](B & b) {
                             auto tok = [&]() { return b.input(GGML_TYPE_F32, a.S, a.H, a.T); };
                             ggml_tensor * r = tok();
                             ggml_tensor * w = ggml_sigmoid(b.ctx(), tok());
                             ggml_tensor * k = tok(), *v = tok();
                             // a = -kk, b = kk * iclr in the model: kept small here
                             ggml_tensor * aa = ggml_scale(b.ctx(), tok(), 0.3f);
                             ggml_tensor * bb = ggml_scale(b.ctx(), tok(), 0.3f);
                             ggml_tensor * state = b.input(GGML_TYPE_F32, a.S * a.S * a.H, a.n_seqs);
                             return ggml_rwkv_wkv7(b.ctx(), r, w, k, v, aa, bb, state);
                         }});
    }
}

void add_solve_tri(std::vector<OpCase> & cases) {
    struct Tri { int64_t n, k, b2, b3; };
    for (const Tri t : {Tri{7, 5, 2, 2}, Tri{16, 1, 1, 1}, Tri{3, 9, 3, 1}}) {
        cases.push_back({"SOLVE_TRI(n=" + std::to_string(t.n) + ",k=" + std::to_string(t.k) + ",batch=" + dims({t.b2, t.b3}) + ")",
                         GGML_OP_SOLVE_TRI, [t](B & b) {
                             // small off-diagonal entries and a diagonal in [1, 3.1]: well conditioned
                             ggml_tensor * off  = ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, t.n, t.n, t.b2, t.b3), 0.1f);
                             ggml_tensor * diag = ggml_diag(b.ctx(), ggml_scale_bias(b.ctx(), b.input(GGML_TYPE_F32, t.n, 1, t.b2, t.b3,
                                                                                                      InputKind::Positive), 1.0f, 1.0f));
                             ggml_tensor * A = ggml_add(b.ctx(), off, diag);
                             return ggml_solve_tri(b.ctx(), A, b.input(GGML_TYPE_F32, t.k, t.n, t.b2, t.b3), true, true, false);
                         }});
    }
}

void add_delta_net(std::vector<OpCase> & cases) {
    // S_v, H (value heads), H_k (query/key heads), n_t, n_s, n_sq (query/key sequences), per-key gate, K snapshots
    struct Gdn { int64_t S_v, H, H_k, n_t, n_s, n_sq; bool per_key; int64_t K; };
    for (const Gdn d : {Gdn{8, 4, 2, 5, 2, 1, false, 1}, Gdn{8, 3, 3, 4, 2, 2, true, 3}, Gdn{16, 2, 1, 1, 3, 3, false, 1},
                        Gdn{4, 5, 5, 6, 1, 1, true, 6}}) {
        const std::string name = "GATED_DELTA_NET(S_v=" + std::to_string(d.S_v) + ",H=" + std::to_string(d.H) + ",H_k=" +
                                 std::to_string(d.H_k) + ",n_t=" + std::to_string(d.n_t) + ",n_s=" + std::to_string(d.n_s) +
                                 ",n_sq=" + std::to_string(d.n_sq) + (d.per_key ? ",kda" : "") + ",K=" + std::to_string(d.K) + ")";
        cases.push_back({name, GGML_OP_GATED_DELTA_NET, [d](B & b) {
                             // normalised queries and keys, as the models feed them
                             ggml_tensor * q = ggml_l2_norm(b.ctx(), b.input(GGML_TYPE_F32, d.S_v, d.H_k, d.n_t, d.n_sq), 1e-6f);
                             ggml_tensor * k = ggml_l2_norm(b.ctx(), b.input(GGML_TYPE_F32, d.S_v, d.H_k, d.n_t, d.n_sq), 1e-6f);
                             ggml_tensor * v = b.input(GGML_TYPE_F32, d.S_v, d.H, d.n_t, d.n_s);
                             // log-decay below 0, beta in (0, 1)
                             ggml_tensor * g = ggml_neg(b.ctx(), b.input(GGML_TYPE_F32, d.per_key ? d.S_v : 1, d.H, d.n_t, d.n_s,
                                                                        InputKind::Positive));
                             ggml_tensor * beta  = ggml_sigmoid(b.ctx(), b.input(GGML_TYPE_F32, 1, d.H, d.n_t, d.n_s));
                             ggml_tensor * state = b.input(GGML_TYPE_F32, d.S_v, d.S_v, d.H, d.n_s);
                             return ggml_gated_delta_net(b.ctx(), q, k, v, g, beta, state, d.K);
                         }});
    }
}

} // namespace

void add_recurrent_cases(std::vector<OpCase> & cases) {
    add_ssm(cases);
    add_linear_attn(cases);
    add_solve_tri(cases);
    add_delta_net(cases);
}

} // namespace switchyard::testing
