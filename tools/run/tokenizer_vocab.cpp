// The vocabulary from tokenizer.ggml.*, the split around special tokens and the symbols of the merge loop.
#include "tokenizer_vocab.h"

#include "unicode.h"

#include <algorithm>
#include <cctype>

namespace switchyard::run {

namespace {

constexpr std::string_view kPrefix = "tokenizer.ggml.";

// The id of an array key of element type `type`, -1 when absent (error empty) or when it is not such an array
// of n elements (n = 0: any length; error set).
int64_t find_array(const gguf_context * ctx, const std::string & key, gguf_type type, size_t n, std::string & error) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) {
        return -1;
    }
    if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != type) {
        error = key + ": expected an array of " + gguf_type_name(type);
        return -1;
    }
    if (n != 0 && gguf_get_arr_n(ctx, id) != n) {
        error = key + ": " + std::to_string(gguf_get_arr_n(ctx, id)) + " elements for " + std::to_string(n) +
                " tokens";
        return -1;
    }
    return id;
}

// An optional token id key (-1 when absent); false with error set when it is not an integer in [0, n_vocab).
bool read_token_id(const gguf_context * ctx, const std::string & key, size_t n_vocab, int32_t & out,
                   std::string & error) {
    out = -1;
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) {
        return true;
    }
    int64_t value = 0;
    switch (gguf_get_kv_type(ctx, id)) {
        case GGUF_TYPE_UINT32: value = gguf_get_val_u32(ctx, id); break;
        case GGUF_TYPE_INT32:  value = gguf_get_val_i32(ctx, id); break;
        case GGUF_TYPE_UINT64:
            value = static_cast<int64_t>(std::min<uint64_t>(gguf_get_val_u64(ctx, id), INT64_MAX));
            break;
        case GGUF_TYPE_INT64:  value = gguf_get_val_i64(ctx, id); break;
        default:
            error = key + ": expected an integer";
            return false;
    }
    if (value < 0 || static_cast<uint64_t>(value) >= n_vocab) {
        error = key + ": token id " + std::to_string(value) + " is outside the " + std::to_string(n_vocab) +
                "-token vocabulary";
        return false;
    }
    out = static_cast<int32_t>(value);
    return true;
}

// An optional bool key: `value` unchanged when absent; false with error set when it is not a bool.
bool read_bool(const gguf_context * ctx, const std::string & key, bool & value, std::string & error) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) {
        return true;
    }
    if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_BOOL) {
        error = key + ": expected a bool";
        return false;
    }
    value = gguf_get_val_bool(ctx, id);
    return true;
}

bool read_tokens(const gguf_context * ctx, Vocab & vocab, std::string & error) {
    const std::string key = std::string(kPrefix) + "tokens";
    const int64_t     id  = find_array(ctx, key, GGUF_TYPE_STRING, 0, error);
    if (id < 0) {
        if (error.empty()) {
            error = key + ": missing";
        }
        return false;
    }
    const size_t n = gguf_get_arr_n(ctx, id);
    if (n == 0 || n > static_cast<size_t>(INT32_MAX)) {
        error = key + ": " + std::to_string(n) + " tokens";
        return false;
    }
    vocab.tokens.reserve(n);
    vocab.ids.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        vocab.tokens.emplace_back(gguf_get_arr_str(ctx, id, i));
        vocab.ids[vocab.tokens.back()] = static_cast<int32_t>(i);
    }
    return true;
}

bool read_scores_and_types(const gguf_context * ctx, bool need_scores, Vocab & vocab, std::string & error) {
    const size_t      n          = vocab.tokens.size();
    const std::string scores_key = std::string(kPrefix) + "scores";
    const int64_t     scores_id  = find_array(ctx, scores_key, GGUF_TYPE_FLOAT32, n, error);
    if (!error.empty()) {
        return false;
    }
    if (scores_id >= 0) {
        const auto * data = static_cast<const float *>(gguf_get_arr_data(ctx, scores_id));
        vocab.scores.assign(data, data + n);
    } else if (need_scores) {
        error = scores_key + ": missing";
        return false;
    }
    const int64_t types_id = find_array(ctx, std::string(kPrefix) + "token_type", GGUF_TYPE_INT32, n, error);
    if (!error.empty()) {
        return false;
    }
    vocab.types.assign(n, TokenType::Normal);
    if (types_id >= 0) {
        const auto * data = static_cast<const int32_t *>(gguf_get_arr_data(ctx, types_id));
        for (size_t i = 0; i < n; ++i) {
            vocab.types[i] = static_cast<TokenType>(data[i]);
        }
    }
    return true;
}

bool read_special_ids(const gguf_context * ctx, bool add_bos_default, Vocab & vocab, std::string & error) {
    const std::string prefix(kPrefix);
    const size_t      n = vocab.tokens.size();
    if (!read_token_id(ctx, prefix + "bos_token_id", n, vocab.bos, error) ||
        !read_token_id(ctx, prefix + "eos_token_id", n, vocab.eos, error) ||
        !read_token_id(ctx, prefix + "unknown_token_id", n, vocab.unk, error)) {
        return false;
    }
    vocab.add_bos = add_bos_default;
    vocab.add_eos = false;
    return read_bool(ctx, prefix + "add_bos_token", vocab.add_bos, error) &&
           read_bool(ctx, prefix + "add_eos_token", vocab.add_eos, error);
}

// The tokens matched literally in text.
void collect_specials(Vocab & vocab) {
    for (size_t i = 0; i < vocab.tokens.size(); ++i) {
        const TokenType t = vocab.types[i];
        const bool special = t == TokenType::Control || t == TokenType::UserDefined || t == TokenType::Unknown;
        if (special && !vocab.tokens[i].empty()) {
            vocab.specials.push_back(static_cast<int32_t>(i));
        }
    }
    std::stable_sort(vocab.specials.begin(), vocab.specials.end(), [&](int32_t a, int32_t b) {
        return vocab.tokens[static_cast<size_t>(a)].size() > vocab.tokens[static_cast<size_t>(b)].size();
    });
}

// The symbols of text, each as long as len_at(its position) says, linked in order.
template <typename Length>
std::vector<Symbol> linked_symbols(std::string_view text, Length && len_at) {
    std::vector<Symbol> symbols;
    symbols.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        const size_t len = len_at(pos);
        const int    i   = static_cast<int>(symbols.size());
        symbols.push_back({pos, len, i - 1, -1});
        if (i > 0) {
            symbols[static_cast<size_t>(i) - 1].next = i;
        }
        pos += len;
    }
    return symbols;
}

} // namespace

bool read_vocab(const gguf_context * ctx, bool need_scores, bool add_bos_default, Vocab & vocab, std::string & error) {
    error.clear();
    if (!read_tokens(ctx, vocab, error) || !read_scores_and_types(ctx, need_scores, vocab, error) ||
        !read_special_ids(ctx, add_bos_default, vocab, error)) {
        return false;
    }
    const int64_t name = gguf_find_key(ctx, "general.name");
    apply_token_rules(vocab, name >= 0 && gguf_get_kv_type(ctx, name) == GGUF_TYPE_STRING
                                 ? gguf_get_val_str(ctx, name) : "");
    collect_specials(vocab);
    return true;
}

std::vector<Fragment> split_specials(const Vocab & vocab, std::string_view text) {
    std::vector<Fragment> fragments;
    if (!text.empty()) {
        fragments.push_back({text, -1});
    }
    std::vector<Fragment> next;
    for (const int32_t id : vocab.specials) {
        const std::string & special = vocab.tokens[static_cast<size_t>(id)];
        if (text.find(special) == std::string_view::npos) {
            continue; // nowhere in the text: nothing to cut
        }
        next.clear();
        for (const Fragment & fragment : fragments) {
            if (fragment.special >= 0) {
                next.push_back(fragment);
                continue;
            }
            const bool       rstrip = !vocab.rstrip.empty() && vocab.rstrip[static_cast<size_t>(id)];
            std::string_view rest   = fragment.text;
            for (size_t at = rest.find(special); at != std::string_view::npos; at = rest.find(special)) {
                if (at > 0) {
                    next.push_back({rest.substr(0, at), -1});
                }
                next.push_back({rest.substr(at, special.size()), id});
                rest.remove_prefix(at + special.size());
                while (rstrip && !rest.empty() && std::isspace(static_cast<unsigned char>(rest[0]))) {
                    rest.remove_prefix(1);
                }
            }
            if (!rest.empty()) {
                next.push_back({rest, -1});
            }
        }
        fragments.swap(next);
    }
    return fragments;
}

std::vector<Symbol> utf8_symbols(std::string_view text) {
    return linked_symbols(text, [&](size_t pos) { return utf8_char_len(text, pos); });
}

std::vector<Symbol> lead_len_symbols(std::string_view text) {
    return linked_symbols(text, [&](size_t pos) {
        return std::min(utf8_lead_len(static_cast<unsigned char>(text[pos])), text.size() - pos);
    });
}

} // namespace switchyard::run
