// The parts of tokenizer.h shared by both kinds: choosing the kind from tokenizer.ggml.model, and decode.
#include "tokenizer.h"

#include "tokenizer_vocab.h"

namespace switchyard::run {

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const gguf_context * ctx, std::string & error) {
    error.clear();
    if (ctx == nullptr) {
        error = "tokenizer: no GGUF context";
        return nullptr;
    }
    const char *  key = "tokenizer.ggml.model";
    const int64_t id  = gguf_find_key(ctx, key);
    if (id < 0) {
        error = std::string(key) + ": missing";
        return nullptr;
    }
    if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) {
        error = std::string(key) + ": expected a string";
        return nullptr;
    }
    const std::string model = gguf_get_val_str(ctx, id);
    if (model == "llama") {
        return make_llama_tokenizer(ctx, error);
    }
    if (model == "gpt2") {
        return make_gpt2_tokenizer(ctx, error);
    }
    error = std::string(key) + ": unsupported tokenizer model '" + model + "' (supported: llama, gpt2)";
    return nullptr;
}

std::string Tokenizer::decode(const std::vector<int32_t> & ids) const {
    std::string out;
    for (int32_t id : ids) {
        out += piece(id);
    }
    tidy_decoded(out);
    return out;
}

} // namespace switchyard::run
