#include "hparams.h"

#include <cmath>
#include <cstdio>

namespace switchyard::run {

namespace {

// an unsigned or signed integer key of any width; false when absent or not an integer
bool get_int(const gguf_context * g, const std::string & key, int64_t & out) {
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) {
        return false;
    }
    switch (gguf_get_kv_type(g, id)) {
        case GGUF_TYPE_UINT8:  out = gguf_get_val_u8(g, id); return true;
        case GGUF_TYPE_INT8:   out = gguf_get_val_i8(g, id); return true;
        case GGUF_TYPE_UINT16: out = gguf_get_val_u16(g, id); return true;
        case GGUF_TYPE_INT16:  out = gguf_get_val_i16(g, id); return true;
        case GGUF_TYPE_UINT32: out = gguf_get_val_u32(g, id); return true;
        case GGUF_TYPE_INT32:  out = gguf_get_val_i32(g, id); return true;
        case GGUF_TYPE_UINT64: out = static_cast<int64_t>(gguf_get_val_u64(g, id)); return true;
        case GGUF_TYPE_INT64:  out = gguf_get_val_i64(g, id); return true;
        default:               return false;
    }
}

bool get_float(const gguf_context * g, const std::string & key, float & out) {
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) {
        return false;
    }
    switch (gguf_get_kv_type(g, id)) {
        case GGUF_TYPE_FLOAT32: out = gguf_get_val_f32(g, id); return true;
        case GGUF_TYPE_FLOAT64: out = static_cast<float>(gguf_get_val_f64(g, id)); return true;
        default:                return false;
    }
}

std::string number_text(float v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", static_cast<double>(v));
    return text;
}

// an optional float key: out keeps its default when absent; false with a message when the key is not a float
bool read_float(const gguf_context * g, const std::string & key, float & out, std::string & error) {
    if (gguf_find_key(g, key.c_str()) < 0 || get_float(g, key, out)) {
        return true;
    }
    error = "key " + key + " is not a floating-point number";
    return false;
}

} // namespace

bool read_hparams(const gguf_context * g, Hparams & hp, std::string & error) {
    const int64_t arch_id = gguf_find_key(g, "general.architecture");
    if (arch_id < 0 || gguf_get_kv_type(g, arch_id) != GGUF_TYPE_STRING) {
        error = "the file has no general.architecture";
        return false;
    }
    hp.arch = gguf_get_val_str(g, arch_id);
    if (hp.arch != "llama" && hp.arch != "qwen2") {
        error = "unsupported architecture '" + hp.arch + "' (supported: llama, qwen2)";
        return false;
    }
    hp.rope_mode           = hp.arch == "qwen2" ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_NORMAL;
    const std::string a    = hp.arch + ".";
    const auto        need = [&](const char * key, int64_t & v) {
        if (!get_int(g, a + key, v) || v <= 0) {
            error = "missing or invalid key " + a + key;
            return false;
        }
        return true;
    };
    if (!need("embedding_length", hp.n_embd) || !need("block_count", hp.n_layer) ||
        !need("feed_forward_length", hp.n_ff) || !need("attention.head_count", hp.n_head)) {
        return false;
    }
    hp.n_head_kv = hp.n_head;
    if (get_int(g, a + "attention.head_count_kv", hp.n_head_kv) && hp.n_head_kv <= 0) {
        error = "invalid key " + a + "attention.head_count_kv";
        return false;
    }
    if (hp.n_embd % hp.n_head != 0 || hp.n_head % hp.n_head_kv != 0) {
        error = "inconsistent heads: embedding_length " + std::to_string(hp.n_embd) + ", head_count " +
                std::to_string(hp.n_head) + ", head_count_kv " + std::to_string(hp.n_head_kv);
        return false;
    }
    hp.head_dim = hp.n_embd / hp.n_head;
    hp.n_rot    = hp.head_dim;
    get_int(g, a + "rope.dimension_count", hp.n_rot);
    if (hp.n_rot <= 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0) {
        error = "invalid " + a + "rope.dimension_count " + std::to_string(hp.n_rot);
        return false;
    }
    hp.n_ctx_train = 4096;
    get_int(g, a + "context_length", hp.n_ctx_train);
    if (!read_float(g, a + "rope.freq_base", hp.rope_base, error) ||
        !read_float(g, a + "attention.layer_norm_rms_epsilon", hp.rms_eps, error)) {
        return false;
    }
    if (!std::isfinite(hp.rope_base) || hp.rope_base <= 0.0f) {
        error = "invalid " + a + "rope.freq_base " + number_text(hp.rope_base) + " (must be finite and positive)";
        return false;
    }
    if (!std::isfinite(hp.rms_eps) || hp.rms_eps < 0.0f) {
        error = "invalid " + a + "attention.layer_norm_rms_epsilon " + number_text(hp.rms_eps) +
                " (must be finite and not negative)";
        return false;
    }
    if (hp.n_layer > 4096 || hp.n_ctx_train <= 0) {
        error = "invalid " + a + "block_count or context_length";
        return false;
    }
    return true;
}

} // namespace switchyard::run
