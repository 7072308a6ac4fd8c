// Small vocabularies for the tokenizer tests (tokenizer_test.cpp, tokenizer_compat_test.cpp), written into a
// gguf_context as tokenizer.ggml.* keys the way llama.cpp's converter writes them.
#pragma once

#include "tokenizer.h"
#include "unicode.h"

#include "gguf.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tokenizer_test {

using switchyard::run::Tokenizer;
using Ids = std::vector<int32_t>;

constexpr int32_t kNormal  = 1;
constexpr int32_t kUnknown = 2;
constexpr int32_t kControl = 3;
constexpr int32_t kByte    = 6;

inline const std::string kMark = "\xe2\x96\x81"; // U+2581

struct GgufDeleter {
    void operator()(gguf_context * ctx) const { gguf_free(ctx); }
};
using GgufPtr = std::unique_ptr<gguf_context, GgufDeleter>;

// A vocabulary to write as tokenizer.ggml.* keys.
struct VocabSpec {
    std::string              model = "llama";
    std::vector<std::string> tokens;
    std::vector<float>       scores; // llama: one per token (0 when left empty)
    std::vector<int32_t>     types;  // one per token (normal when left empty)
    std::vector<std::string> merges; // gpt2
    std::optional<std::string> pre;  // gpt2: tokenizer.ggml.pre
    int32_t                  bos = -1, eos = -1, unk = -1;
    std::optional<bool>      add_bos;
    std::optional<bool>      add_eos;
    std::optional<bool>      add_space_prefix;
    std::optional<std::string> name; // general.name

    // appends a token and returns its id
    int32_t add(const std::string & text, float score = 0.0f, int32_t type = kNormal) {
        tokens.push_back(text);
        scores.push_back(score);
        types.push_back(type);
        return static_cast<int32_t>(tokens.size()) - 1;
    }
    int32_t id(const std::string & text) const {
        for (size_t i = 0; i < tokens.size(); ++i) {
            if (tokens[i] == text) {
                return static_cast<int32_t>(i);
            }
        }
        ADD_FAILURE() << "no token " << text;
        return -1;
    }
    void add_byte_tokens() {
        for (int b = 0; b < 256; ++b) {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "<0x%02X>", b);
            add(hex, 0.0f, kByte);
        }
    }
};

inline void set_strings(gguf_context * ctx, const char * key, const std::vector<std::string> & values) {
    std::vector<const char *> ptrs;
    for (const std::string & v : values) {
        ptrs.push_back(v.c_str());
    }
    gguf_set_arr_str(ctx, key, ptrs.data(), ptrs.size());
}

inline GgufPtr make_gguf(const VocabSpec & spec) {
    GgufPtr ctx(gguf_init_empty());
    gguf_set_val_str(ctx.get(), "tokenizer.ggml.model", spec.model.c_str());
    set_strings(ctx.get(), "tokenizer.ggml.tokens", spec.tokens);
    if (spec.model == "llama") {
        gguf_set_arr_data(ctx.get(), "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, spec.scores.data(),
                          spec.scores.size());
    } else {
        set_strings(ctx.get(), "tokenizer.ggml.merges", spec.merges);
        if (spec.pre) {
            gguf_set_val_str(ctx.get(), "tokenizer.ggml.pre", spec.pre->c_str());
        }
    }
    gguf_set_arr_data(ctx.get(), "tokenizer.ggml.token_type", GGUF_TYPE_INT32, spec.types.data(), spec.types.size());
    const std::pair<const char *, int32_t> ids[] = {{"tokenizer.ggml.bos_token_id", spec.bos},
                                                    {"tokenizer.ggml.eos_token_id", spec.eos},
                                                    {"tokenizer.ggml.unknown_token_id", spec.unk}};
    for (const auto & [key, value] : ids) {
        if (value >= 0) {
            gguf_set_val_u32(ctx.get(), key, static_cast<uint32_t>(value));
        }
    }
    if (spec.add_bos) {
        gguf_set_val_bool(ctx.get(), "tokenizer.ggml.add_bos_token", *spec.add_bos);
    }
    if (spec.add_eos) {
        gguf_set_val_bool(ctx.get(), "tokenizer.ggml.add_eos_token", *spec.add_eos);
    }
    if (spec.name) {
        gguf_set_val_str(ctx.get(), "general.name", spec.name->c_str());
    }
    if (spec.add_space_prefix) {
        gguf_set_val_bool(ctx.get(), "tokenizer.ggml.add_space_prefix", *spec.add_space_prefix);
    }
    return ctx;
}

inline std::unique_ptr<Tokenizer> load(const VocabSpec & spec) {
    const GgufPtr ctx = make_gguf(spec);
    std::string   error;
    auto          tok = Tokenizer::from_gguf(ctx.get(), error);
    EXPECT_NE(tok, nullptr) << error;
    EXPECT_EQ(error, "");
    return tok;
}

inline std::string load_error(const GgufPtr & ctx) {
    std::string error;
    EXPECT_EQ(Tokenizer::from_gguf(ctx.get(), error), nullptr);
    return error;
}

// "▁", a, b, c, then "ab" and "bc" with the given scores (and no "abc").
inline VocabSpec abc_vocab(float score_ab, float score_bc) {
    VocabSpec v;
    v.add("<unk>", 0.0f, kUnknown);
    v.add("<s>", 0.0f, kControl);
    v.add("</s>", 0.0f, kControl);
    v.add(kMark, -1.0f);
    v.add("a", -2.0f);
    v.add("b", -2.0f);
    v.add("c", -2.0f);
    v.add("ab", score_ab);
    v.add("bc", score_bc);
    v.unk = 0;
    v.bos = 1;
    v.eos = 2;
    return v;
}

// The 256 byte characters, then the given merges' results, then <|endoftext|> (control); GPT-2's pre-tokenizer.
inline VocabSpec gpt2_vocab(const std::vector<std::string> & merges) {
    VocabSpec v;
    v.model = "gpt2";
    v.pre   = "gpt-2";
    for (const std::string & c : switchyard::run::gpt2_byte_to_unicode()) {
        v.add(c);
    }
    for (const std::string & m : merges) {
        const size_t space = m.find(' ');
        v.add(m.substr(0, space) + m.substr(space + 1));
        v.merges.push_back(m);
    }
    v.eos = v.add("<|endoftext|>", 0.0f, kControl);
    v.bos = v.eos;
    return v;
}

} // namespace tokenizer_test
