// switchyard-run: the forward graph of a LLaMA-family model for a batch of tokens that follows n_past tokens
// already in the KV cache:
//
//   x = token_embd[tokens]
//   per layer: h = rms_norm(x) * attn_norm; q, k, v = h @ wq, wk, wv (+ biases); RoPE on q and k (the file's
//              freq_base; mode NORMAL for llama, NEOX for qwen2); k, v written to the cache cells n_past.. by
//              SET_ROWS; attention by FLASH_ATTN_EXT (flash_attn), else softmax(K·Q / sqrt(head_dim) + mask)·V
//              with MUL_MAT and SOFT_MAX (llama.cpp's -fa off), over cells 0..n_past+n_tokens-1 with a causal
//              f16 mask (grouped-query: n_head / n_head_kv query heads per KV head); x += attn @ wo;
//              h = rms_norm(x) * ffn_norm; x += swiglu(h @ ffn_gate, h @ ffn_up) @ ffn_down
//   logits = (rms_norm(x) * output_norm) @ output, for every token or the last one only
//
// The tensors live where the model and cache put them; the scheduler places the rest. The nodes carry
// llama.cpp's names ("attn_norm-0", "Qcur-0", "fattn-0" or "kq_soft_max-0", "ffn_out-1", "l_out-1",
// "result_norm", "logits"), which the messages about non-finite values name.
#pragma once

#include "kv_cache.h"
#include "model.h"

#include "ggml.h"

#include <cstdint>

namespace switchyard::run {

struct GraphInputs {
    ggml_tensor * tokens = nullptr; // I32 [n_tokens]
    ggml_tensor * pos    = nullptr; // I32 [n_tokens]: n_past, n_past + 1, ...
    ggml_tensor * cells  = nullptr; // I64 [n_tokens]: the cache cells written (= positions)
    ggml_tensor * mask   = nullptr; // F16 [n_kv, n_tokens padded to GGML_KQ_MASK_PAD]
    ggml_tensor * logits = nullptr; // F32 [n_vocab, n_tokens or 1]
};

// Nodes a graph of this model may need (for ggml_new_graph_custom and the scheduler).
size_t graph_size(const Hparams & hp);

// Builds the graph in ctx (no_alloc); n_tokens >= 1, n_past + n_tokens <= cache.n_ctx().
ggml_cgraph * build_graph(ggml_context * ctx, const Model & model, const KvCache & cache, int64_t n_tokens,
                          int64_t n_past, bool all_logits, bool flash_attn, GraphInputs & in);

// Fills the inputs of a graph built with these arguments (after the scheduler allocated it).
void set_graph_inputs(const GraphInputs & in, const int32_t * tokens, int64_t n_tokens, int64_t n_past);

} // namespace switchyard::run
