// The models the meta device tests run: an MLP and a LLaMA-style transformer block, with the split states a
// tensor-parallel deployment gives their weights.
#pragma once

#include "meta_fixture.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace switchyard::testing {

struct MlpDims {
    int64_t embd = 32, ff = 64, tokens = 4;
};

// out = down @ gelu(up @ x + up_bias) + x
inline ModelSpec mlp_spec(const MlpDims & m) {
    ModelSpec spec;
    spec.weights = {{"up", GGML_TYPE_F32, {m.embd, m.ff}},
                    {"up_bias", GGML_TYPE_F32, {m.ff}},
                    {"down", GGML_TYPE_F32, {m.ff, m.embd}}};
    spec.inputs["x"] = as_bytes(random_values(static_cast<size_t>(m.embd * m.tokens), 7, -1.0f, 1.0f));
    spec.build       = [m](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, m.embd, m.tokens);
        ggml_set_name(x, "x");
        ggml_set_input(x);
        ggml_tensor * h = ggml_gelu(ctx, ggml_add(ctx, ggml_mul_mat(ctx, w["up"], x), w["up_bias"]));
        ggml_tensor * d = ggml_mul_mat(ctx, w["down"], h);
        ggml_tensor * o = ggml_add(ctx, d, x);
        ggml_set_name(o, "out");
        return o;
    };
    return spec;
}

// Column-parallel up (and its bias), row-parallel down.
inline void mlp_split(SplitTable & table, const std::vector<int64_t> & ff) {
    table.states["up"]      = state_split(1, ff);
    table.states["up_bias"] = state_split(0, ff);
    table.states["down"]    = state_split(0, ff);
}

struct BlockDims {
    int64_t embd = 64, head_dim = 8, n_head = 8, n_head_kv = 4, ff = 96, tokens = 5;
    bool    flash     = false; // FLASH_ATTN_EXT instead of mul_mat + soft_max + mul_mat
    bool    fused_qkv = true;  // one QKV weight split in three segments
};

inline std::vector<uint8_t> causal_mask(int64_t tokens, bool f16) {
    std::vector<float> m(static_cast<size_t>(tokens * tokens));
    for (int64_t i = 0; i < tokens; ++i) {
        for (int64_t j = 0; j < tokens; ++j) {
            m[static_cast<size_t>(i * tokens + j)] = j <= i ? 0.0f : -std::numeric_limits<float>::infinity();
        }
    }
    if (!f16) {
        return as_bytes(m);
    }
    std::vector<ggml_fp16_t> h(m.size());
    ggml_fp32_to_fp16_row(m.data(), h.data(), static_cast<int64_t>(m.size()));
    std::vector<uint8_t> b(h.size() * sizeof(ggml_fp16_t));
    std::memcpy(b.data(), h.data(), b.size());
    return b;
}

// q, k, v of the block: views of the fused QKV product, or three products.
inline void block_qkv(ggml_context * ctx, std::map<std::string, ggml_tensor *> & w, const BlockDims & b, ggml_tensor * cur,
                      ggml_tensor *& q, ggml_tensor *& k, ggml_tensor *& v) {
    const int64_t E = b.embd, Ekv = b.head_dim * b.n_head_kv, T = b.tokens, hd = b.head_dim;
    if (b.fused_qkv) {
        ggml_tensor * qkv = ggml_mul_mat(ctx, w["wqkv"], cur);
        ggml_set_name(qkv, "qkv");
        const size_t es = sizeof(float);
        q = ggml_view_3d(ctx, qkv, hd, b.n_head, T, hd * es, qkv->nb[1], 0);
        k = ggml_view_3d(ctx, qkv, hd, b.n_head_kv, T, hd * es, qkv->nb[1], static_cast<size_t>(E) * es);
        v = ggml_view_3d(ctx, qkv, hd, b.n_head_kv, T, hd * es, qkv->nb[1], static_cast<size_t>(E + Ekv) * es);
        return;
    }
    q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w["wq"], cur), hd, b.n_head, T);
    k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w["wk"], cur), hd, b.n_head_kv, T);
    v = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w["wv"], cur), hd, b.n_head_kv, T);
}

inline ggml_tensor * block_attention(ggml_context * ctx, const BlockDims & b, ggml_tensor * q, ggml_tensor * k,
                                     ggml_tensor * v, ggml_tensor * mask) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(b.head_dim));
    q                 = ggml_permute(ctx, q, 0, 2, 1, 3); // [hd, T, n_head]
    k                 = ggml_permute(ctx, k, 0, 2, 1, 3);
    v                 = ggml_permute(ctx, v, 0, 2, 1, 3);
    if (b.flash) {
        ggml_tensor * fa = ggml_flash_attn_ext(ctx, q, k, v, mask, scale, 0.0f, 0.0f); // [hd, n_head, T]
        return ggml_reshape_2d(ctx, fa, b.embd, b.tokens);
    }
    ggml_tensor * kq  = ggml_soft_max_ext(ctx, ggml_mul_mat(ctx, k, q), mask, scale, 0.0f);
    ggml_tensor * vt  = ggml_cont(ctx, ggml_transpose(ctx, v)); // [T, hd, n_head_kv]
    ggml_tensor * kqv = ggml_mul_mat(ctx, vt, kq);              // [hd, T, n_head]
    return ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), b.embd, b.tokens);
}

inline ModelSpec block_spec(const BlockDims & b) {
    const int64_t E = b.embd, Ekv = b.head_dim * b.n_head_kv, T = b.tokens;
    ModelSpec     spec;
    spec.weights = {{"attn_norm", GGML_TYPE_F32, {E}}, {"wo", GGML_TYPE_F32, {E, E}},
                    {"ffn_norm", GGML_TYPE_F32, {E}},  {"w_gate", GGML_TYPE_F32, {E, b.ff}},
                    {"w_up", GGML_TYPE_F32, {E, b.ff}}, {"w_down", GGML_TYPE_F32, {b.ff, E}}};
    if (b.fused_qkv) {
        spec.weights.push_back({"wqkv", GGML_TYPE_F32, {E, E + 2 * Ekv}});
    } else {
        spec.weights.push_back({"wq", GGML_TYPE_F32, {E, E}});
        spec.weights.push_back({"wk", GGML_TYPE_F32, {E, Ekv}});
        spec.weights.push_back({"wv", GGML_TYPE_F32, {E, Ekv}});
    }
    std::vector<int32_t> pos(static_cast<size_t>(T));
    std::iota(pos.begin(), pos.end(), 0);
    spec.inputs["x"]    = as_bytes(random_values(static_cast<size_t>(E * T), 11, -1.0f, 1.0f));
    spec.inputs["pos"]  = std::vector<uint8_t>(reinterpret_cast<uint8_t *>(pos.data()),
                                               reinterpret_cast<uint8_t *>(pos.data()) + pos.size() * sizeof(int32_t));
    spec.inputs["mask"] = causal_mask(T, b.flash);
    spec.build          = [b](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * x    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, b.embd, b.tokens);
        ggml_tensor * pos  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, b.tokens);
        ggml_tensor * mask = ggml_new_tensor_2d(ctx, b.flash ? GGML_TYPE_F16 : GGML_TYPE_F32, b.tokens, b.tokens);
        ggml_set_name(x, "x");
        ggml_set_name(pos, "pos");
        ggml_set_name(mask, "mask");
        ggml_set_input(x);
        ggml_set_input(pos);
        ggml_set_input(mask);
        ggml_tensor * cur = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), w["attn_norm"]);
        ggml_tensor * q = nullptr, *k = nullptr, *v = nullptr;
        block_qkv(ctx, w, b, cur, q, k, v);
        q = ggml_rope_ext(ctx, q, pos, nullptr, static_cast<int>(b.head_dim), GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f,
                          0.0f, 1.0f, 0.0f, 0.0f);
        k = ggml_rope_ext(ctx, k, pos, nullptr, static_cast<int>(b.head_dim), GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f,
                          0.0f, 1.0f, 0.0f, 0.0f);
        ggml_tensor * attn = ggml_mul_mat(ctx, w["wo"], block_attention(ctx, b, q, k, v, mask));
        ggml_set_name(attn, "attn_out");
        ggml_tensor * x2 = ggml_add(ctx, x, attn);
        cur              = ggml_mul(ctx, ggml_rms_norm(ctx, x2, 1e-5f), w["ffn_norm"]);
        ggml_tensor * ff = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, w["w_gate"], cur), ggml_mul_mat(ctx, w["w_up"], cur));
        ggml_tensor * down = ggml_mul_mat(ctx, w["w_down"], ff);
        ggml_set_name(down, "ffn_out");
        ggml_tensor * out = ggml_add(ctx, x2, down);
        ggml_set_name(out, "out");
        return out;
    };
    return spec;
}

// Attention split by heads (kv_heads[d] key/value heads and the matching query heads on device d), the FFN by
// ff[d] hidden units; projections into the split are column-parallel, out of it row-parallel.
inline void block_split(SplitTable & table, const BlockDims & b, const std::vector<int64_t> & kv_heads,
                        const std::vector<int64_t> & ff) {
    const int64_t        group = b.n_head / b.n_head_kv;
    std::vector<int64_t> q_cols, kv_cols;
    for (int64_t h : kv_heads) {
        q_cols.push_back(h * group * b.head_dim);
        kv_cols.push_back(h * b.head_dim);
    }
    if (b.fused_qkv) {
        table.states["wqkv"] = state_segments(1, {q_cols, kv_cols, kv_cols});
    } else {
        table.states["wq"] = state_split(1, q_cols);
        table.states["wk"] = state_split(1, kv_cols);
        table.states["wv"] = state_split(1, kv_cols);
    }
    table.states["wo"]     = state_split(0, q_cols);
    table.states["w_gate"] = state_split(1, ff);
    table.states["w_up"]   = state_split(1, ff);
    table.states["w_down"] = state_split(0, ff);
}

} // namespace switchyard::testing
