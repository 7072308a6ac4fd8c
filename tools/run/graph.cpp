#include "graph.h"

#include "ggml-backend.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace switchyard::run {

namespace {

// names a node as llama.cpp's graphs do ("Qcur-0"; il < 0: no layer), so that a message can point at it
ggml_tensor * named(ggml_tensor * t, const char * name, int64_t il) {
    if (il < 0) {
        ggml_set_name(t, name);
    } else {
        ggml_format_name(t, "%s-%lld", name, static_cast<long long>(il));
    }
    return t;
}

ggml_tensor * norm(ggml_context * ctx, ggml_tensor * x, ggml_tensor * weight, float eps, const char * name, int64_t il) {
    const std::string rms = std::string(name) + "_rms";
    return named(ggml_mul(ctx, named(ggml_rms_norm(ctx, x, eps), rms.c_str(), il), weight), name, il);
}

ggml_tensor * project(ggml_context * ctx, ggml_tensor * w, ggml_tensor * bias, ggml_tensor * x, const char * name,
                      int64_t il) {
    ggml_tensor * y = ggml_mul_mat(ctx, w, x);
    return named(bias != nullptr ? ggml_add(ctx, y, bias) : y, name, il);
}

ggml_tensor * rope(ggml_context * ctx, ggml_tensor * x, ggml_tensor * pos, const Hparams & hp) {
    return ggml_rope_ext(ctx, x, pos, nullptr, static_cast<int>(hp.n_rot), hp.rope_mode,
                         static_cast<int>(hp.n_ctx_train), hp.rope_base, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
}

// softmax(K·Q / sqrt(head_dim) + mask)·V without FLASH_ATTN_EXT (-fa off), as llama.cpp's plain path:
// qp [head_dim, T, n_head], kp and vp [head_dim, n_kv, n_head_kv] views of the cache; [head_dim, n_head, T].
// K and V are read from the f16 cache into f32 first: a MUL_MAT of f16 weights rounds the other side (Q, the
// probabilities) to f16 on the CPU, which moved the logits of the default model by about 1% of the largest,
// enough to change greedy tokens against FLASH_ATTN_EXT, which keeps them in f32.
ggml_tensor * plain_attention(ggml_context * ctx, ggml_tensor * qp, ggml_tensor * kp, ggml_tensor * vp,
                              ggml_tensor * mask, float scale, int64_t il) {
    ggml_tensor * k   = named(ggml_cast(ctx, kp, GGML_TYPE_F32), "k_f32", il);
    ggml_tensor * kq  = named(ggml_mul_mat(ctx, k, qp), "kq", il); // [n_kv, T, n_head]
    kq                = named(ggml_soft_max_ext(ctx, kq, mask, scale, 0.0f), "kq_soft_max", il);
    ggml_tensor * vt  = named(ggml_cast(ctx, ggml_transpose(ctx, vp), GGML_TYPE_F32), "v_t", il); // [n_kv, head_dim, n_head_kv]
    ggml_tensor * kqv = named(ggml_mul_mat(ctx, vt, kq), "kqv", il);           // [head_dim, T, n_head]
    return ggml_cont(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3));
}

// the layer's attention output [n_embd, n_tokens], after writing k and v to the cache
ggml_tensor * attention(ggml_context * ctx, const Model & model, const KvCache & cache, size_t il, ggml_tensor * h,
                        int64_t n_kv, const GraphInputs & in, bool flash_attn) {
    const Hparams &      hp = model.hparams();
    const LayerWeights & l  = model.layers[il];
    const int64_t        T  = h->ne[1];
    const int64_t        n  = static_cast<int64_t>(il);
    ggml_tensor * q = ggml_reshape_3d(ctx, project(ctx, l.wq, l.bq, h, "Qcur", n), hp.head_dim, hp.n_head, T);
    ggml_tensor * k = ggml_reshape_3d(ctx, project(ctx, l.wk, l.bk, h, "Kcur", n), hp.head_dim, hp.n_head_kv, T);
    ggml_tensor * v = project(ctx, l.wv, l.bv, h, "Vcur", n);
    q               = named(rope(ctx, q, in.pos, hp), "Qcur_rope", n);
    k               = named(rope(ctx, k, in.pos, hp), "Kcur_rope", n);

    ggml_tensor * ck = cache.k(il);
    ggml_tensor * cv = cache.v(il);
    // views of the SET_ROWS results (not of the caches), so that the attention reads after the writes
    ggml_tensor * k_all = ggml_set_rows(ctx, ck, ggml_reshape_2d(ctx, k, hp.n_embd_kv(), T), in.cells);
    ggml_tensor * v_all = ggml_set_rows(ctx, cv, v, in.cells);
    const size_t  head  = ggml_row_size(ck->type, hp.head_dim);
    k_all = ggml_view_3d(ctx, k_all, hp.head_dim, hp.n_head_kv, n_kv, head, ck->nb[1], 0);
    v_all = ggml_view_3d(ctx, v_all, hp.head_dim, hp.n_head_kv, n_kv, head, cv->nb[1], 0);

    ggml_tensor * qp    = ggml_permute(ctx, q, 0, 2, 1, 3);     // [head_dim, T, n_head]
    ggml_tensor * kp    = ggml_permute(ctx, k_all, 0, 2, 1, 3); // [head_dim, n_kv, n_head_kv]
    ggml_tensor * vp    = ggml_permute(ctx, v_all, 0, 2, 1, 3);
    const float   scale = 1.0f / std::sqrt(static_cast<float>(hp.head_dim));
    ggml_tensor * out   = flash_attn ? ggml_flash_attn_ext(ctx, qp, kp, vp, in.mask, scale, 0.0f, 0.0f)
                                     : plain_attention(ctx, qp, kp, vp, in.mask, scale, n); // [head_dim, n_head, T]
    named(out, flash_attn ? "fattn" : "kqv_out", n);
    return named(ggml_mul_mat(ctx, l.wo, ggml_reshape_2d(ctx, out, hp.n_embd, T)), "attn_out", n);
}

// an input tensor: 1-D when ne1 is 0
ggml_tensor * input(ggml_context * ctx, ggml_type type, int64_t ne0, int64_t ne1, const char * name) {
    ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, type, ne0, ne1) : ggml_new_tensor_1d(ctx, type, ne0);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

} // namespace

size_t graph_size(const Hparams & hp) { return static_cast<size_t>(hp.n_layer) * 64 + 256; }

ggml_cgraph * build_graph(ggml_context * ctx, const Model & model, const KvCache & cache, int64_t n_tokens,
                          int64_t n_past, bool all_logits, bool flash_attn, GraphInputs & in) {
    const Hparams & hp   = model.hparams();
    const int64_t   n_kv = n_past + n_tokens;
    in.tokens = input(ctx, GGML_TYPE_I32, n_tokens, 0, "inp_tokens");
    in.pos    = input(ctx, GGML_TYPE_I32, n_tokens, 0, "inp_pos");
    in.cells  = input(ctx, GGML_TYPE_I64, n_tokens, 0, "inp_cells");
    in.mask   = input(ctx, GGML_TYPE_F16, n_kv, GGML_PAD(n_tokens, GGML_KQ_MASK_PAD), "inp_mask");

    ggml_tensor * x = named(ggml_get_rows(ctx, model.token_embd, in.tokens), "inp_embd", -1);
    for (size_t il = 0; il < model.layers.size(); ++il) {
        const LayerWeights & l = model.layers[il];
        const int64_t        n = static_cast<int64_t>(il);
        ggml_tensor *        a = attention(ctx, model, cache, il, norm(ctx, x, l.attn_norm, hp.rms_eps, "attn_norm", n),
                                           n_kv, in, flash_attn);
        x               = named(ggml_add(ctx, x, a), "ffn_inp", n);
        ggml_tensor * h = norm(ctx, x, l.ffn_norm, hp.rms_eps, "ffn_norm", n);
        ggml_tensor * g = named(ggml_swiglu_split(ctx, named(ggml_mul_mat(ctx, l.ffn_gate, h), "ffn_gate", n),
                                                  named(ggml_mul_mat(ctx, l.ffn_up, h), "ffn_up", n)),
                                "ffn_swiglu", n);
        x               = named(ggml_add(ctx, x, named(ggml_mul_mat(ctx, l.ffn_down, g), "ffn_out", n)), "l_out", n);
    }
    if (!all_logits && n_tokens > 1) {
        x = ggml_view_2d(ctx, x, hp.n_embd, 1, x->nb[1], static_cast<size_t>(n_tokens - 1) * x->nb[1]);
    }
    in.logits = ggml_mul_mat(ctx, model.output, norm(ctx, x, model.output_norm, hp.rms_eps, "result_norm", -1));
    ggml_set_name(in.logits, "logits");
    ggml_set_output(in.logits);
    ggml_cgraph * gf = ggml_new_graph_custom(ctx, graph_size(hp), false);
    ggml_build_forward_expand(gf, in.logits);
    return gf;
}

void set_graph_inputs(const GraphInputs & in, const int32_t * tokens, int64_t n_tokens, int64_t n_past) {
    std::vector<int32_t> pos(static_cast<size_t>(n_tokens));
    std::vector<int64_t> cells(static_cast<size_t>(n_tokens));
    for (int64_t i = 0; i < n_tokens; ++i) {
        pos[static_cast<size_t>(i)]   = static_cast<int32_t>(n_past + i);
        cells[static_cast<size_t>(i)] = n_past + i;
    }
    const int64_t            n_kv = in.mask->ne[0];
    const ggml_fp16_t        zero = ggml_fp32_to_fp16(0.0f);
    const ggml_fp16_t        ninf = ggml_fp32_to_fp16(-std::numeric_limits<float>::infinity());
    std::vector<ggml_fp16_t> mask(static_cast<size_t>(ggml_nelements(in.mask)), ninf);
    for (int64_t i = 0; i < n_tokens; ++i) { // token i sees the cells up to its own position
        for (int64_t j = 0; j <= n_past + i; ++j) {
            mask[static_cast<size_t>(i * n_kv + j)] = zero;
        }
    }
    ggml_backend_tensor_set(in.tokens, tokens, 0, pos.size() * sizeof(int32_t));
    ggml_backend_tensor_set(in.pos, pos.data(), 0, pos.size() * sizeof(int32_t));
    ggml_backend_tensor_set(in.cells, cells.data(), 0, cells.size() * sizeof(int64_t));
    ggml_backend_tensor_set(in.mask, mask.data(), 0, mask.size() * sizeof(ggml_fp16_t));
}

} // namespace switchyard::run
