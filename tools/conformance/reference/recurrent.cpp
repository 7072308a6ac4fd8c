// Reference state-space and linear-attention ops: SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7,
// SOLVE_TRI and GATED_DELTA_NET, written from their definitions in double precision with the state as an explicit
// matrix per head (no shared code with the kernels). The layouts of the packed results (outputs, then states) are
// spelled out where each op writes them.
#include "conformance/reference/util.h"

#include <vector>

namespace switchyard::testing::reference {

namespace {

// Writes element k of the row-major flattening of node (a contiguous result).
void put(ggml_tensor * node, int64_t k, double v) {
    int64_t i[4];
    unflatten(node, k, i);
    set(node, i[0], i[1], i[2], i[3], static_cast<float>(v));
}

// Element k of the row-major flattening of t.
double flat_get(const ggml_tensor * t, int64_t k) {
    int64_t i[4];
    unflatten(t, k, i);
    return get(t, i[0], i[1], i[2], i[3]);
}

double softplus(double x) { return std::log1p(std::exp(x)); }

bool ssm_conv(ggml_tensor * node) {
    const ggml_tensor * sx = node->src[0], *c = node->src[1];
    for_each(node, [&](int64_t ch, int64_t t, int64_t s, int64_t) {
        double sum = 0;
        for (int64_t k = 0; k < c->ne[0]; ++k) sum += static_cast<double>(get(sx, t + k, ch, s, 0)) * get(c, k, ch, 0, 0);
        set(node, ch, t, s, 0, static_cast<float>(sum));
    });
    return true;
}

// y [head_dim, n_head, n_t, n_s] first, then the final states [d_state, head_dim, n_head, n_s].
bool ssm_scan(ggml_tensor * node) {
    const ggml_tensor *s0 = node->src[0], *x = node->src[1], *dt = node->src[2], *A = node->src[3];
    const ggml_tensor *B = node->src[4], *C = node->src[5], *ids = node->src[6];
    const int64_t      d_state = s0->ne[0], hd = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    const int64_t      heads_per_group = nh / B->ne[1];
    const int64_t      y_size          = hd * nh * nt * ns;
    const int64_t      n_keep          = node->op_params[0];
    for (int64_t s = 0; s < ns; ++s) {
        const auto id = static_cast<int64_t>(get(ids, s, 0, 0, 0));
        std::vector<double> state(static_cast<size_t>(d_state * hd * nh));
        for (int64_t h = 0; h < nh; ++h)
            for (int64_t d = 0; d < hd; ++d)
                for (int64_t j = 0; j < d_state; ++j) state[static_cast<size_t>((h * hd + d) * d_state + j)] = get(s0, j, d, h, id);
        for (int64_t t = 0; t < nt; ++t) {
            for (int64_t h = 0; h < nh; ++h) {
                const double  step = softplus(get(dt, h, t, s, 0));
                const int64_t g    = h / heads_per_group;
                for (int64_t d = 0; d < hd; ++d) {
                    double y = 0;
                    for (int64_t j = 0; j < d_state; ++j) {
                        const double a      = A->ne[0] == 1 ? get(A, 0, h, 0, 0) : get(A, j, h, 0, 0);
                        double &     st     = state[static_cast<size_t>((h * hd + d) * d_state + j)];
                        st                  = st * std::exp(step * a) + get(B, j, g, t, s) * get(x, d, h, t, s) * step;
                        y += st * get(C, j, g, t, s);
                    }
                    put(node, ((s * nt + t) * nh + h) * hd + d, y);
                }
            }
            // with K > 1 kept states, slot nt - 1 - t (when in 1 .. K - 1) holds the state after token t
            const int64_t slot = nt - 1 - t;
            if (slot > 0 && slot < n_keep) {
                const int64_t at = y_size + (slot * ns + s) * static_cast<int64_t>(state.size());
                for (size_t e = 0; e < state.size(); ++e) put(node, at + static_cast<int64_t>(e), state[e]);
            }
        }
        for (size_t e = 0; e < state.size(); ++e) put(node, y_size + s * static_cast<int64_t>(state.size()) + static_cast<int64_t>(e), state[e]);
    }
    return true;
}

// The RWKV / GLA family: T tokens in n_seqs equal sequences, inputs [S, H, T] read as in(t, h, i), the state of
// sequence n at flat ((n*H + h)*S + row)*S + col of `state`. Result: out [S*H] per token, then the states.
struct LinearAttn {
    ggml_tensor *       node;
    const ggml_tensor * state;
    int64_t             S, H, T, n_seqs;

    LinearAttn(ggml_tensor * n, const ggml_tensor * st)
        : node(n), state(st), S(n->src[1]->ne[0]), H(n->src[1]->ne[1]), T(n->src[1]->ne[2]), n_seqs(st->ne[1]) {}

    double in(int src, int64_t t, int64_t h, int64_t i) const { return get(node->src[src], i, h, t, 0); }

    // M[row][col] of head h, sequence n, initialised from the input state
    std::vector<double> initial(int64_t n, int64_t h) const {
        std::vector<double> m(static_cast<size_t>(S * S));
        for (int64_t e = 0; e < S * S; ++e) m[static_cast<size_t>(e)] = flat_get(state, (n * H + h) * S * S + e);
        return m;
    }

    void put_out(int64_t t, int64_t h, int64_t j, double v) const { put(node, (t * H + h) * S + j, v); }

    void put_state(int64_t n, int64_t h, const std::vector<double> & m) const {
        for (int64_t e = 0; e < S * S; ++e) put(node, T * S * H + (n * H + h) * S * S + e, m[static_cast<size_t>(e)]);
    }

    // calls step(t, h, M) for every token of every sequence and head, then stores the final states
    template <typename Step>
    void run(Step && step) const {
        const int64_t per_seq = T / n_seqs;
        for (int64_t n = 0; n < n_seqs; ++n) {
            for (int64_t h = 0; h < H; ++h) {
                std::vector<double> m = initial(n, h);
                for (int64_t t = n * per_seq; t < (n + 1) * per_seq; ++t) step(t, h, m);
                put_state(n, h, m);
            }
        }
    }
};

// k=0 v=1 r=2 tf=3 td=4; M[i][j]: i along k, j along v
bool rwkv_wkv6(ggml_tensor * node) {
    const LinearAttn la(node, node->src[5]);
    const int64_t    S = la.S;
    la.run([&](int64_t t, int64_t h, std::vector<double> & m) {
        for (int64_t j = 0; j < S; ++j) {
            double out = 0;
            for (int64_t i = 0; i < S; ++i) {
                const double tf = flat_get(node->src[3], h * S + i);
                out += la.in(2, t, h, i) * (tf * la.in(0, t, h, i) * la.in(1, t, h, j) + m[static_cast<size_t>(i * S + j)]);
            }
            la.put_out(t, h, j, out);
        }
        for (int64_t i = 0; i < S; ++i)
            for (int64_t j = 0; j < S; ++j) {
                double & mij = m[static_cast<size_t>(i * S + j)];
                mij          = mij * la.in(4, t, h, i) + la.in(0, t, h, i) * la.in(1, t, h, j);
            }
    });
    return true;
}

// k=0 v=1 q=2 g=3; M[i][j]: i along k, j along v
bool gated_linear_attn(ggml_tensor * node) {
    const LinearAttn la(node, node->src[4]);
    const int64_t    S     = la.S;
    const double     scale = param_f32(node, 0);
    la.run([&](int64_t t, int64_t h, std::vector<double> & m) {
        for (int64_t i = 0; i < S; ++i)
            for (int64_t j = 0; j < S; ++j) {
                double & mij = m[static_cast<size_t>(i * S + j)];
                mij          = mij * la.in(3, t, h, i) + la.in(0, t, h, i) * la.in(1, t, h, j);
            }
        for (int64_t j = 0; j < S; ++j) {
            double out = 0;
            for (int64_t i = 0; i < S; ++i) out += m[static_cast<size_t>(i * S + j)] * la.in(2, t, h, i);
            la.put_out(t, h, j, out * scale);
        }
    });
    return true;
}

// r=0 w=1 k=2 v=3 a=4 b=5; M[i][j]: i along v, j along k.
// M = M diag(w) + v k^T + (M a) b^T, out = M r
bool rwkv_wkv7(ggml_tensor * node) {
    const LinearAttn la(node, node->src[6]);
    const int64_t    S = la.S;
    la.run([&](int64_t t, int64_t h, std::vector<double> & m) {
        std::vector<double> ma(static_cast<size_t>(S), 0.0);
        for (int64_t i = 0; i < S; ++i)
            for (int64_t j = 0; j < S; ++j) ma[static_cast<size_t>(i)] += m[static_cast<size_t>(i * S + j)] * la.in(4, t, h, j);
        for (int64_t i = 0; i < S; ++i) {
            double out = 0;
            for (int64_t j = 0; j < S; ++j) {
                double & mij = m[static_cast<size_t>(i * S + j)];
                mij = mij * la.in(1, t, h, j) + la.in(3, t, h, i) * la.in(2, t, h, j) + ma[static_cast<size_t>(i)] * la.in(5, t, h, j);
                out += mij * la.in(0, t, h, j);
            }
            la.put_out(t, h, i, out);
        }
    });
    return true;
}

// A X = B with A lower triangular: forward substitution per column of B
bool solve_tri(ggml_tensor * node) {
    const ggml_tensor * A = node->src[0], *B = node->src[1];
    const int64_t       n = A->ne[0];
    for (int64_t i3 = 0; i3 < B->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < B->ne[2]; ++i2)
            for (int64_t col = 0; col < B->ne[0]; ++col) {
                std::vector<double> x(static_cast<size_t>(n));
                for (int64_t i = 0; i < n; ++i) {
                    double rhs = get(B, col, i, i2, i3);
                    for (int64_t m = 0; m < i; ++m) rhs -= get(A, m, i, i2, i3) * x[static_cast<size_t>(m)];
                    x[static_cast<size_t>(i)] = rhs / get(A, i, i, i2, i3);
                    set(node, col, i, i2, i3, static_cast<float>(x[static_cast<size_t>(i)]));
                }
            }
    return true;
}

// S[i][j] (i along k, j along v) is stored at j*S_v + i of a state. Output [S_v, H, n_t, n_s], then K slots of
// [S_v, S_v, H, n_s]: slot 0 the final state, slot m the state after token n_t - 1 - m.
bool gated_delta_net(ggml_tensor * node) {
    const ggml_tensor *q = node->src[0], *k = node->src[1], *v = node->src[2], *g = node->src[3];
    const ggml_tensor *beta = node->src[4], *state = node->src[5];
    const int64_t      Sv = v->ne[0], H = v->ne[1], nt = v->ne[2], ns = v->ne[3];
    const int64_t      K = param_i32(node, 0), seqs_per_q = ns / q->ne[3];
    const int64_t      out_size = Sv * H * nt * ns, snap = Sv * Sv * H * ns;
    for (int64_t s = 0; s < ns; ++s)
        for (int64_t h = 0; h < H; ++h) {
            std::vector<double> S(static_cast<size_t>(Sv * Sv));
            auto at = [&](int64_t i, int64_t j) -> double & { return S[static_cast<size_t>(i * Sv + j)]; };
            for (int64_t i = 0; i < Sv; ++i)
                for (int64_t j = 0; j < Sv; ++j) at(i, j) = get(state, i, j, h, s);
            const int64_t hq = h % q->ne[1], sq = s / seqs_per_q;
            for (int64_t t = 0; t < nt; ++t) {
                for (int64_t i = 0; i < Sv; ++i) {
                    const double decay = std::exp(g->ne[0] == 1 ? get(g, 0, h, t, s) : get(g, i, h, t, s));
                    for (int64_t j = 0; j < Sv; ++j) at(i, j) *= decay;
                }
                const double b = get(beta, 0, h, t, s);
                std::vector<double> delta(static_cast<size_t>(Sv));
                for (int64_t j = 0; j < Sv; ++j) {
                    double pred = 0;
                    for (int64_t i = 0; i < Sv; ++i) pred += at(i, j) * get(k, i, hq, t, sq);
                    delta[static_cast<size_t>(j)] = (get(v, j, h, t, s) - pred) * b;
                }
                for (int64_t i = 0; i < Sv; ++i)
                    for (int64_t j = 0; j < Sv; ++j) at(i, j) += get(k, i, hq, t, sq) * delta[static_cast<size_t>(j)];
                for (int64_t j = 0; j < Sv; ++j) {
                    double o = 0;
                    for (int64_t i = 0; i < Sv; ++i) o += at(i, j) * get(q, i, hq, t, sq);
                    put(node, ((s * nt + t) * H + h) * Sv + j, o / std::sqrt(static_cast<double>(Sv)));
                }
                const int64_t slot = nt - 1 - t;
                if (slot < K) {
                    for (int64_t i = 0; i < Sv; ++i)
                        for (int64_t j = 0; j < Sv; ++j)
                            put(node, out_size + slot * snap + ((s * H + h) * Sv + j) * Sv + i, at(i, j));
                }
            }
        }
    return true;
}

} // namespace

bool recurrent(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SSM_CONV:          return ssm_conv(node);
        case GGML_OP_SSM_SCAN:          return ssm_scan(node);
        case GGML_OP_RWKV_WKV6:         return rwkv_wkv6(node);
        case GGML_OP_GATED_LINEAR_ATTN: return gated_linear_attn(node);
        case GGML_OP_RWKV_WKV7:         return rwkv_wkv7(node);
        case GGML_OP_SOLVE_TRI:         return solve_tri(node);
        case GGML_OP_GATED_DELTA_NET:   return gated_delta_net(node);
        default:                        return false;
    }
}

} // namespace switchyard::testing::reference
