#include "model.h"
#include "weights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <strings.h>
#include <vector>

namespace switchyard::model_writer {

namespace {

// llama.cpp's LLAMA_FTYPE_MOSTLY_* for a file whose matrices all have one type (general.file_type)
int file_type_of(ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:  return 0;
        case GGML_TYPE_F16:  return 1;
        case GGML_TYPE_Q4_0: return 2;
        case GGML_TYPE_Q4_1: return 3;
        case GGML_TYPE_Q8_0: return 7;
        case GGML_TYPE_Q5_0: return 8;
        case GGML_TYPE_Q5_1: return 9;
        case GGML_TYPE_Q6_K: return 18;
        case GGML_TYPE_BF16: return 32;
        default:             return -1;
    }
}

// a ggml type by its name, in any case (no two names differ in case only)
bool type_from_name(const std::string & name, ggml_type & type) {
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const auto   candidate = static_cast<ggml_type>(t);
        const char * n         = ggml_type_size(candidate) > 0 ? ggml_type_name(candidate) : nullptr;
        if (n != nullptr && strcasecmp(name.c_str(), n) == 0) {
            type = candidate;
            return true;
        }
    }
    return false;
}

// can rows of n_per_row floats be stored as `type` (F32 is copied, the random-block types written as random blocks,
// weights.h; everything else goes through ggml_quantize_chunk, which must support it)
bool storable(ggml_type type, int64_t n_per_row) {
    if (n_per_row % ggml_blck_size(type) != 0) {
        return false;
    }
    if (type == GGML_TYPE_F32 || random_block_type(type)) {
        return true;
    }
    if (ggml_quantize_requires_imatrix(type)) {
        return false;
    }
    const int64_t      blck = ggml_blck_size(type);
    std::vector<float> row(static_cast<size_t>(blck), 0.5f);
    std::vector<char>  out(ggml_row_size(type, blck));
    ggml_log_callback  prev_cb   = nullptr;
    void *             prev_data = nullptr;
    ggml_log_get(&prev_cb, &prev_data);
    ggml_log_set([](ggml_log_level, const char *, void *) {}, nullptr);
    const size_t n = ggml_quantize_chunk(type, row.data(), out.data(), 0, 1, blck, nullptr);
    ggml_log_set(prev_cb, prev_data);
    return n == out.size();
}

// a type weights are stored in (a float or quantized type; not q8_1 and q8_K, the formats ggml quantizes
// activations to for the other side of a dot product, which llama.cpp never stores weights in), whose rows of whole
// blocks the tool can store
bool storable_type(ggml_type type) {
    const bool weight_type = type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16 ||
                             (ggml_is_quantized(type) && type != GGML_TYPE_Q8_1 && type != GGML_TYPE_Q8_K);
    return weight_type && ggml_type_size(type) > 0 && storable(type, ggml_blck_size(type));
}

// the preset's sizes (those that make the parameter count) are shape's
bool has_preset_sizes(const Shape & s) {
    Shape preset;
    if (!apply_preset(s.preset, preset)) {
        return false;
    }
    return s.n_embd == preset.n_embd && s.n_layer == preset.n_layer && s.n_ff == preset.n_ff &&
           s.n_head == preset.n_head && s.n_head_kv == preset.n_head_kv && s.n_vocab == preset.n_vocab &&
           s.tied_output == preset.tied_output;
}

// A synthetic vocabulary: <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, then "▁a", "▁b", ..., "▁z",
// "▁aa", ... up to n tokens.
std::vector<std::string> vocabulary(int64_t n) {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "<0x%02X>", b);
        tokens.emplace_back(hex);
    }
    for (int64_t i = 0; static_cast<int64_t>(tokens.size()) < n; ++i) {
        std::string piece;
        for (int64_t k = i; ; k = k / 26 - 1) {
            piece.insert(piece.begin(), static_cast<char>('a' + k % 26));
            if (k < 26) {
                break;
            }
        }
        tokens.push_back("\xe2\x96\x81" + piece); // U+2581, SentencePiece's word start
    }
    return tokens;
}

} // namespace

bool apply_preset(const std::string & name, Shape & shape) {
    Shape s;
    s.weight_type = shape.weight_type;
    s.seed        = shape.seed;
    s.preset      = name;
    if (name == "tiny") {
        // the defaults
    } else if (name == "1b") {
        // LLaMA-3.2-1B-like dimensions with a 32000-token vocabulary (about 1.1 billion parameters)
        s.n_embd    = 2048;
        s.n_layer   = 16;
        s.n_ff      = 8192;
        s.n_head    = 32;
        s.n_head_kv = 8;
        s.n_vocab   = 32000;
        s.n_ctx     = 4096;
    } else {
        return false;
    }
    shape = s;
    return true;
}

std::string check_shape(const Shape & s) {
    if (s.n_embd <= 0 || s.n_layer <= 0 || s.n_ff <= 0 || s.n_head <= 0 || s.n_head_kv <= 0 || s.n_ctx <= 0) {
        return "every dimension must be positive";
    }
    if (s.n_embd % s.n_head != 0 || (s.n_embd / s.n_head) % 2 != 0) {
        return "the embedding length must be a multiple of the head count, with an even head size (rope)";
    }
    if (s.n_head % s.n_head_kv != 0) {
        return "the head count must be a multiple of the KV head count";
    }
    if (s.n_vocab < 259 && !s.vocabulary) { // the synthetic vocabulary's; a real one (--tokenizer) has its own size
        return "the vocabulary needs at least 259 tokens (3 special and 256 byte tokens)";
    }
    if (s.vocabulary && static_cast<size_t>(s.n_vocab) != s.vocabulary->tokens.size()) {
        return "the vocabulary has " + std::to_string(s.vocabulary->tokens.size()) + " tokens, the shape " +
               std::to_string(s.n_vocab);
    }
    if (s.n_embd > (int64_t{1} << 20) || s.n_ff > (int64_t{1} << 22) || s.n_vocab > (int64_t{1} << 22) ||
        s.n_layer > 1024) {
        return "a dimension is too large for a test model";
    }
    return "";
}

bool parse_weight_type(const std::string & text, std::string & name) {
    ggml_type type = GGML_TYPE_F32;
    if (strcasecmp(text.c_str(), "mixed") == 0) {
        name = "mixed";
        return true;
    }
    if (!type_from_name(text, type) || !storable_type(type)) {
        return false;
    }
    name = ggml_type_name(type);
    return true;
}

std::string weight_type_names() {
    std::string names = "mixed";
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        if (storable_type(static_cast<ggml_type>(t))) {
            names += std::string(", ") + ggml_type_name(static_cast<ggml_type>(t));
        }
    }
    return names;
}

Plan plan_tensors(const Shape & s, std::string & error) {
    // "mixed" is llama.cpp's Q4_K_M recipe in short: q4_K, with q6_K for attn_v, ffn_down and output; where a
    // row is not whole 256-element blocks, q4_0 and q8_0 stand in
    std::string type_name;
    if (!parse_weight_type(s.weight_type, type_name)) {
        error = "unknown type '" + s.weight_type + "' (the types it can write: " + weight_type_names() + ")";
        return {};
    }
    const bool mixed   = type_name == "mixed";
    ggml_type  uniform = GGML_TYPE_F32;
    if (!mixed) {
        type_from_name(type_name, uniform);
    }
    Plan                          plan;
    std::map<std::string, int>    fallbacks; // note -> tensors it applies to
    const auto matrix = [&](const std::string & name, int64_t ne0, int64_t ne1, bool high) {
        ggml_type type = uniform;
        if (mixed) {
            type = high ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
            if (!storable(type, ne0)) {
                const ggml_type fallback = high ? GGML_TYPE_Q8_0 : GGML_TYPE_Q4_0;
                ++fallbacks[std::string(ggml_type_name(fallback)) + " instead of " + ggml_type_name(type) +
                            ": rows of " + std::to_string(ne0) + " elements are not whole blocks"];
                type = fallback;
            }
        }
        if (!storable(type, ne0)) {
            error = name + ": rows of " + std::to_string(ne0) + " elements cannot be stored as " +
                    ggml_type_name(type) + " (not whole blocks, or no quantizer for it)";
        }
        plan.tensors.push_back({name, ne0, ne1, type, Init::Random});
    };
    const auto norm = [&](const std::string & name) { plan.tensors.push_back({name, s.n_embd, 1, GGML_TYPE_F32, Init::Ones}); };

    const int64_t head_dim = s.n_embd / s.n_head;
    const int64_t kv_dim   = head_dim * s.n_head_kv;
    matrix("token_embd.weight", s.n_embd, s.n_vocab, false);
    for (int64_t l = 0; l < s.n_layer; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        norm(blk + "attn_norm.weight");
        matrix(blk + "attn_q.weight", s.n_embd, s.n_embd, false);
        matrix(blk + "attn_k.weight", s.n_embd, kv_dim, false);
        matrix(blk + "attn_v.weight", s.n_embd, kv_dim, true);
        matrix(blk + "attn_output.weight", s.n_embd, s.n_embd, false);
        norm(blk + "ffn_norm.weight");
        matrix(blk + "ffn_gate.weight", s.n_embd, s.n_ff, false);
        matrix(blk + "ffn_up.weight", s.n_embd, s.n_ff, false);
        matrix(blk + "ffn_down.weight", s.n_ff, s.n_embd, true);
    }
    norm("output_norm.weight");
    if (!s.tied_output) {
        matrix("output.weight", s.n_embd, s.n_vocab, true);
    }
    for (const auto & [note, count] : fallbacks) {
        plan.notes.push_back(note + " (" + std::to_string(count) + " tensors)");
    }
    if (!error.empty()) {
        plan.tensors.clear();
    }
    return plan;
}

uint64_t parameter_count(const Plan & plan) {
    uint64_t n = 0;
    for (const TensorPlan & t : plan.tensors) {
        n += static_cast<uint64_t>(t.ne0 * t.ne1);
    }
    return n;
}

std::string size_label(uint64_t params) {
    const auto   count  = static_cast<double>(params);
    const double scale  = count > 1e12 ? 1e12 : count > 1e9 ? 1e9 : count > 1e6 ? 1e6 : 1e3;
    const char   suffix = count > 1e12 ? 'T' : count > 1e9 ? 'B' : count > 1e6 ? 'M' : 'K';
    const double scaled = count / scale;
    // as many decimals as make two significant digits: the digits of the rounded whole part (0 has none)
    const double whole  = std::nearbyint(scaled); // rounds half to even, as Python's round()
    int          digits = 0;
    for (double w = whole; w >= 1.0; w /= 10.0) {
        ++digits;
    }
    char text[32];
    std::snprintf(text, sizeof(text), "%.*f%c", std::max(2 - digits, 0), scaled, suffix);
    return text;
}

std::string model_name(const Shape & shape, uint64_t params) {
    return "switchyard random llama (" + (has_preset_sizes(shape) ? shape.preset : size_label(params)) + ")";
}

void set_metadata(gguf_context * ctx, const Shape & s, const Plan & plan) {
    const uint64_t    params = parameter_count(plan);
    const std::string name   = model_name(s, params);
    const std::string label  = size_label(params);
    gguf_set_val_str(ctx, "general.architecture", "llama");
    gguf_set_val_str(ctx, "general.name", name.c_str());
    gguf_set_val_str(ctx, "general.size_label", label.c_str());
    gguf_set_val_str(ctx, "general.description",
                     "random weights, made by switchyard-make-model for tests and benchmarks: it has the shape of a "
                     "LLaMA model but produces meaningless text");
    gguf_set_val_u32(ctx, "general.quantization_version", 2);
    gguf_set_val_u64(ctx, "general.seed", s.seed);
    ggml_type uniform = GGML_TYPE_F32;
    if (strcasecmp(s.weight_type.c_str(), "mixed") != 0 && type_from_name(s.weight_type, uniform) &&
        file_type_of(uniform) >= 0) {
        gguf_set_val_u32(ctx, "general.file_type", static_cast<uint32_t>(file_type_of(uniform)));
    }

    gguf_set_val_u32(ctx, "llama.context_length", static_cast<uint32_t>(s.n_ctx));
    gguf_set_val_u32(ctx, "llama.embedding_length", static_cast<uint32_t>(s.n_embd));
    gguf_set_val_u32(ctx, "llama.block_count", static_cast<uint32_t>(s.n_layer));
    gguf_set_val_u32(ctx, "llama.feed_forward_length", static_cast<uint32_t>(s.n_ff));
    gguf_set_val_u32(ctx, "llama.attention.head_count", static_cast<uint32_t>(s.n_head));
    gguf_set_val_u32(ctx, "llama.attention.head_count_kv", static_cast<uint32_t>(s.n_head_kv));
    gguf_set_val_u32(ctx, "llama.rope.dimension_count", static_cast<uint32_t>(s.n_embd / s.n_head));
    gguf_set_val_f32(ctx, "llama.rope.freq_base", s.rope_base);
    gguf_set_val_f32(ctx, "llama.attention.layer_norm_rms_epsilon", s.rms_eps);
    gguf_set_val_u32(ctx, "llama.vocab_size", static_cast<uint32_t>(s.n_vocab));

    if (s.vocabulary) {
        set_vocabulary(ctx, *s.vocabulary);
        return;
    }
    Vocabulary synthetic;
    synthetic.model  = "llama";
    synthetic.tokens = vocabulary(s.n_vocab);
    for (size_t i = 0; i < synthetic.tokens.size(); ++i) {
        synthetic.scores.push_back(i < 259 ? 0.0f : -static_cast<float>(i - 259));
        // llama.cpp's token types: 1 normal, 2 unknown, 3 control, 6 byte
        synthetic.types.push_back(i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
    }
    synthetic.unk     = 0;
    synthetic.bos     = 1;
    synthetic.eos     = 2;
    synthetic.add_bos = true;
    synthetic.add_eos = false;
    set_vocabulary(ctx, synthetic);
}

void set_vocabulary(gguf_context * ctx, const Vocabulary & v) {
    const auto set_strings = [ctx](const char * key, const std::vector<std::string> & values) {
        std::vector<const char *> ptrs;
        ptrs.reserve(values.size());
        for (const std::string & value : values) {
            ptrs.push_back(value.c_str());
        }
        gguf_set_arr_str(ctx, key, ptrs.data(), ptrs.size());
    };
    gguf_set_val_str(ctx, "tokenizer.ggml.model", v.model.c_str());
    if (!v.pre.empty()) {
        gguf_set_val_str(ctx, "tokenizer.ggml.pre", v.pre.c_str());
    }
    set_strings("tokenizer.ggml.tokens", v.tokens);
    if (!v.scores.empty()) {
        gguf_set_arr_data(ctx, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, v.scores.data(), v.scores.size());
    }
    gguf_set_arr_data(ctx, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, v.types.data(), v.types.size());
    if (!v.merges.empty()) {
        set_strings("tokenizer.ggml.merges", v.merges);
    }
    const std::pair<const char *, int32_t> ids[] = {{"tokenizer.ggml.unknown_token_id", v.unk},
                                                    {"tokenizer.ggml.bos_token_id", v.bos},
                                                    {"tokenizer.ggml.eos_token_id", v.eos},
                                                    {"tokenizer.ggml.padding_token_id", v.pad}};
    for (const auto & [key, id] : ids) {
        if (id >= 0) {
            gguf_set_val_u32(ctx, key, static_cast<uint32_t>(id));
        }
    }
    if (v.add_bos) {
        gguf_set_val_bool(ctx, "tokenizer.ggml.add_bos_token", *v.add_bos);
    }
    if (v.add_eos) {
        gguf_set_val_bool(ctx, "tokenizer.ggml.add_eos_token", *v.add_eos);
    }
}

} // namespace switchyard::model_writer
