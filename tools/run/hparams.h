// switchyard-run: a LLaMA-family model's hyper-parameters, read from the GGUF keys <arch>.* as llama.cpp names
// them (general.architecture llama or qwen2).
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <cstdint>
#include <string>

namespace switchyard::run {

struct Hparams {
    std::string arch;
    int64_t     n_vocab     = 0; // rows of token_embd.weight
    int64_t     n_embd      = 0;
    int64_t     n_layer     = 0;
    int64_t     n_ff        = 0;
    int64_t     n_head      = 0;
    int64_t     n_head_kv   = 0;
    int64_t     head_dim    = 0; // n_embd / n_head
    int64_t     n_rot       = 0; // <arch>.rope.dimension_count, head_dim when absent
    int64_t     n_ctx_train = 0;
    float       rope_base   = 10000.0f;
    float       rms_eps     = 1e-5f;
    int         rope_mode   = GGML_ROPE_TYPE_NORMAL; // NEOX for qwen2

    int64_t n_embd_kv() const { return head_dim * n_head_kv; }
};

// Reads and checks the hyper-parameters; false with a message naming the key for an unsupported architecture,
// a missing key, inconsistent values, a rope.freq_base that is not finite and positive, or an
// attention.layer_norm_rms_epsilon that is negative or not finite.
bool read_hparams(const gguf_context * gguf, Hparams & hp, std::string & error);

} // namespace switchyard::run
