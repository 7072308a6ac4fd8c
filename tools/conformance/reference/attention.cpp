// Reference attention ops: soft_max (mask, ALiBi, sinks), rope and rope_back (normal/neox and the multi-section
// modes, YaRN, frequency factors, the window offset of ggml_rope_set_offset), flash_attn_ext (computed the plain
// two-pass way) and flash_attn_back (the gradients of the legacy attention, formed element by element from their
// definition). Double precision throughout.
#include "conformance/reference/util.h"

#include <algorithm>
#include <vector>

namespace switchyard::testing::reference {

namespace {

void softmax_in_place(std::vector<double> & x, bool has_sink, double sink) {
    double mx = has_sink ? sink : -INFINITY;
    for (double v : x) mx = std::max(mx, v);
    double sum = has_sink ? std::exp(sink - mx) : 0.0;
    for (double & v : x) {
        v = std::isinf(v) && v < 0 ? 0.0 : std::exp(v - mx);
        sum += v;
    }
    for (double & v : x) v = sum > 0 ? v / sum : 0.0;
}

bool soft_max(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *mask = node->src[1], *sinks = node->src[2];
    const float         scale = param_f32(node, 0), max_bias = param_f32(node, 1);
    std::vector<double> x(static_cast<size_t>(a->ne[0]));
    for (int64_t i3 = 0; i3 < a->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < a->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
                const double slope = alibi_slope(max_bias, i2, a->ne[2]);
                for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) {
                    double v = static_cast<double>(get(a, i0, i1, i2, i3)) * scale;
                    if (mask) v += slope * get(mask, i0, i1, i2 % mask->ne[2], i3 % mask->ne[3]);
                    x[static_cast<size_t>(i0)] = v;
                }
                softmax_in_place(x, sinks != nullptr, sinks ? get(sinks, i2, 0, 0, 0) : 0.0);
                for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) set(node, i0, i1, i2, i3, static_cast<float>(x[static_cast<size_t>(i0)]));
            }
    return true;
}

double corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * std::log(n_ctx_orig / (n_rot * 2 * M_PI)) / (2 * std::log(base));
}

// The position and the exponent (dimension index within its section) of rotation pair j of a token, for the
// multi-section modes: which of the token's 4 positions a pair uses follows from its sector j % sum(sections).
struct PairSource {
    int     position; // 0..3
    int64_t exponent; // theta = p * base^(-2 * exponent / n_dims)
};

PairSource multi_source(int mode, const int * sections, int64_t j) {
    const int     total  = sections[0] + sections[1] + sections[2] + sections[3];
    const int64_t sector = j % total;
    if (mode == GGML_ROPE_TYPE_IMROPE) {
        const int k = static_cast<int>(sector % 3);
        return {sector < 3 * sections[k] ? k : 3, j};
    }
    int64_t start = 0;
    int     k     = 0;
    while (k < 3 && sector >= start + sections[k]) {
        start += sections[k];
        ++k;
    }
    return {k, mode == GGML_ROPE_TYPE_VISION ? sector - start : j};
}

bool rope(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *pos = node->src[1], *ff = node->src[2];
    const int   n_dims = param_i32(node, 1), mode = param_i32(node, 2), n_ctx_orig = param_i32(node, 4);
    const float base = param_f32(node, 5), freq_scale = param_f32(node, 6), ext_factor = param_f32(node, 7);
    const float attn_factor = param_f32(node, 8), beta_fast = param_f32(node, 9), beta_slow = param_f32(node, 10);
    const int   sections[4] = {param_i32(node, 11), param_i32(node, 12), param_i32(node, 13), param_i32(node, 14)};
    const int64_t n_offs = param_i32(node, 15);  // the window starts here; pair indices count from its start
    const bool  multi  = (mode & GGML_ROPE_TYPE_MROPE) != 0;
    const bool  vision = mode == GGML_ROPE_TYPE_VISION;
    const bool  neox   = (mode & GGML_ROPE_TYPE_NEOX) != 0 || multi;
    const double sin_sign = node->op == GGML_OP_ROPE_BACK ? -1.0 : 1.0;
    const int64_t rotated = vision ? 2 * n_dims : n_dims;  // elements rotated per row
    const int64_t offset  = vision ? n_dims : n_dims / 2;  // between the two elements of a neox pair
    const double low  = std::max(0.0, std::floor(corr_dim(n_dims, n_ctx_orig, beta_fast, base)));
    const double high = std::min(static_cast<double>(n_dims - 1), std::ceil(corr_dim(n_dims, n_ctx_orig, beta_slow, base)));
    for (int64_t i3 = 0; i3 < a->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < a->ne[2]; ++i2) {
            for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
                // everything is copied first; the window [n_offs, n_offs + rotated) is then overwritten
                for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) set(node, i0, i1, i2, i3, get(a, i0, i1, i2, i3));
                for (int64_t i0 = 0; i0 < rotated; i0 += 2) {
                    const PairSource src = multi ? multi_source(mode, sections, i0 / 2) : PairSource{0, i0 / 2};
                    const double p      = get_index(pos, i2 + src.position * a->ne[2], 0, 0, 0);
                    const double f      = ff ? get(ff, i0 / 2, 0, 0, 0) : 1.0;
                    const double extrap = p * std::pow(static_cast<double>(base), -2.0 * static_cast<double>(src.exponent) / n_dims) / f;
                    const double interp = freq_scale * extrap;
                    double       theta  = interp, mscale = attn_factor;
                    if (ext_factor != 0.0f) {
                        const double y   = (i0 / 2 - low) / std::max(0.001, high - low);
                        const double mix = (1.0 - std::min(1.0, std::max(0.0, y))) * ext_factor;
                        theta            = interp * (1 - mix) + extrap * mix;
                        mscale *= 1.0 + 0.1 * std::log(1.0 / freq_scale);
                    }
                    const double  c = std::cos(theta), s = sin_sign * std::sin(theta);
                    const int64_t j0 = n_offs + (neox ? i0 / 2 : i0), j1 = n_offs + (neox ? i0 / 2 + offset : i0 + 1);
                    const double  x0 = get(a, j0, i1, i2, i3), x1 = get(a, j1, i1, i2, i3);
                    set(node, j0, i1, i2, i3, static_cast<float>((x0 * c - x1 * s) * mscale));
                    set(node, j1, i1, i2, i3, static_cast<float>((x0 * s + x1 * c) * mscale));
                }
            }
        }
    return true;
}

bool flash_attn(ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *v = node->src[2], *mask = node->src[3], *sinks = node->src[4];
    const float scale = param_f32(node, 0), max_bias = param_f32(node, 1), softcap = param_f32(node, 2);
    std::vector<double> s(static_cast<size_t>(k->ne[1]));
    for (int64_t i3 = 0; i3 < q->ne[3]; ++i3)
        for (int64_t h = 0; h < q->ne[2]; ++h)
            for (int64_t iq = 0; iq < q->ne[1]; ++iq) {
                const int64_t hk = h / (q->ne[2] / k->ne[2]), i3k = i3 / (q->ne[3] / k->ne[3]);
                const double  slope = alibi_slope(max_bias, h, q->ne[2]);
                for (int64_t j = 0; j < k->ne[1]; ++j) {
                    double dot = 0;
                    for (int64_t d = 0; d < q->ne[0]; ++d) dot += static_cast<double>(get(q, d, iq, h, i3)) * get(k, d, j, hk, i3k);
                    dot *= scale;
                    if (softcap != 0.0f) dot = softcap * std::tanh(dot / softcap);
                    if (mask) dot += slope * get(mask, j, iq, h % mask->ne[2], i3 % mask->ne[3]);
                    s[static_cast<size_t>(j)] = dot;
                }
                softmax_in_place(s, sinks != nullptr, sinks ? get(sinks, h, 0, 0, 0) : 0.0);
                for (int64_t d = 0; d < v->ne[0]; ++d) {
                    double acc = 0;
                    for (int64_t j = 0; j < k->ne[1]; ++j) acc += s[static_cast<size_t>(j)] * get(v, d, j, hk, i3k);
                    set(node, d, h, iq, i3, static_cast<float>(acc));
                }
            }
    return true;
}

// One gradient of flash_attn_back's packed result: accumulated in double, written at `offset` elements.
struct PackedGrad {
    const ggml_tensor * like;
    int64_t             offset;
    std::vector<double> sum;

    PackedGrad(const ggml_tensor * t, int64_t off) : like(t), offset(off), sum(static_cast<size_t>(ggml_nelements(t))) {}
    double & at(int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return sum[static_cast<size_t>(flat_index(like, i0, i1, i2, i3))];
    }
};

// out_i = sum_j p_ij v_j with p_i = softmax_j(scale * q_i . k_j) over the visible keys, scale = 1/sqrt(D); with
// the gradient d_i of out_i: dp_ij = v_j . d_i, ds_ij = scale * p_ij * (dp_ij - sum_l p_il dp_il), and
// grad q_i = sum_j ds_ij k_j, grad k_j = sum_i ds_ij q_i, grad v_j = sum_i p_ij d_i (over heads sharing k, v).
bool flash_attn_back(ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *v = node->src[2], *d = node->src[3];
    const bool    masked = param_i32(node, 0) != 0;
    const int64_t D = q->ne[0], N = q->ne[1], M = k->ne[1];
    const double  scale  = 1.0 / std::sqrt(static_cast<double>(D));
    const auto    padded = [](int64_t n) { return (n * 4 + GGML_MEM_ALIGN - 1) / GGML_MEM_ALIGN * GGML_MEM_ALIGN / 4; };
    PackedGrad    gq(q, 0), gk(k, padded(ggml_nelements(q))), gv(v, padded(ggml_nelements(q)) + padded(ggml_nelements(k)));
    std::vector<double> p(static_cast<size_t>(M)), dp(static_cast<size_t>(M));
    for (int64_t i3 = 0; i3 < q->ne[3]; ++i3)
        for (int64_t h = 0; h < q->ne[2]; ++h)
            for (int64_t i = 0; i < N; ++i) {
                const int64_t g = h % k->ne[2], visible = masked ? M - N + i + 1 : M;
                for (int64_t j = 0; j < M; ++j) {
                    double s = 0;
                    for (int64_t c = 0; c < D; ++c) s += static_cast<double>(get(q, c, i, h, i3)) * get(k, c, j, g, i3);
                    p[static_cast<size_t>(j)] = j < visible ? s * scale : -INFINITY;
                }
                softmax_in_place(p, false, 0.0);
                double p_dp = 0;
                for (int64_t j = 0; j < M; ++j) {
                    double acc = 0;
                    for (int64_t c = 0; c < D; ++c) acc += static_cast<double>(get(v, j, c, g, i3)) * get(d, c, i, h, i3);
                    dp[static_cast<size_t>(j)] = acc;
                    p_dp += p[static_cast<size_t>(j)] * acc;
                }
                for (int64_t j = 0; j < M; ++j) {
                    const double pj = p[static_cast<size_t>(j)], ds = scale * pj * (dp[static_cast<size_t>(j)] - p_dp);
                    for (int64_t c = 0; c < D; ++c) {
                        gq.at(c, i, h, i3) += ds * get(k, c, j, g, i3);
                        gk.at(c, j, g, i3) += ds * get(q, c, i, h, i3);
                        gv.at(j, c, g, i3) += pj * get(d, c, i, h, i3);
                    }
                }
            }
    for (int64_t e = 0; e < ggml_nelements(node); ++e) set(node, e, 0, 0, 0, 0.0f);
    for (const PackedGrad * g : {&gq, &gk, &gv}) {
        for (size_t e = 0; e < g->sum.size(); ++e) {
            set(node, g->offset + static_cast<int64_t>(e), 0, 0, 0, static_cast<float>(g->sum[e]));
        }
    }
    return true;
}

} // namespace

bool attention(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_SOFT_MAX:       return soft_max(node);
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK:      return rope(node);
        case GGML_OP_FLASH_ATTN_EXT: return flash_attn(node);
        case GGML_OP_FLASH_ATTN_BACK: return flash_attn_back(node);
        default:                     return false;
    }
}

} // namespace switchyard::testing::reference
