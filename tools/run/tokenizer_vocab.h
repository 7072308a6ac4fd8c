// What both tokenizers share: the vocabulary read from tokenizer.ggml.*, the split of text around special tokens,
// and the merge loop over a linked list of symbols. Internal to tools/run (the tests include it too).
#pragma once

#include "tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace switchyard::run {

// llama.cpp's tokenizer.ggml.token_type values
enum class TokenType : int32_t {
    Undefined   = 0,
    Normal      = 1,
    Unknown     = 2,
    Control     = 3,
    UserDefined = 4,
    Unused      = 5,
    Byte        = 6,
};

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// text -> id (or rank), looked up by string_view without a copy
using StringMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

struct Vocab {
    std::vector<std::string> tokens;
    std::vector<float>       scores; // empty when the file has none
    std::vector<TokenType>   types;  // Normal for every token when the file has no token_type
    StringMap                ids;    // a text that occurs twice maps to its last id, as in llama.cpp
    int32_t                  bos     = -1;
    int32_t                  eos     = -1;
    int32_t                  unk     = -1;
    bool                     add_bos = false;
    bool                     add_eos = false;
    std::vector<int32_t>     eog;      // the end-of-generation tokens: eos and those of tokenizer_special.cpp
    std::vector<bool>        rstrip;   // (empty, or one per token) whitespace after the token is dropped (Phi-3)
    // the tokens matched literally in text (control, user-defined, unknown; not empty), longest first (ties:
    // the lower id first)
    std::vector<int32_t>     specials;

    int32_t find(std::string_view text) const {
        const auto it = ids.find(text);
        return it == ids.end() ? -1 : it->second;
    }
    TokenType type(int32_t id) const { return types[static_cast<size_t>(id)]; }
    bool      valid(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < tokens.size(); }
};

// Reads tokens (required), scores (required when need_scores; its length must match when present), token_type
// (optional), the bos / eos / unknown ids (optional, any integer type, in range), add_bos_token (optional,
// add_bos_default when absent) and add_eos_token (optional, false when absent). false with a message naming the
// key in `error` otherwise.
bool read_vocab(const gguf_context * ctx, bool need_scores, bool add_bos_default, Vocab & vocab, std::string & error);

// llama.cpp's rules by token text (tokenizer_special.cpp): the types of the tokens that look special, the
// end-of-generation set, and Phi-3's stripping; model_name is general.name.
void apply_token_rules(Vocab & vocab, std::string_view model_name);

// A piece of the text being encoded: plain text (special = -1) or the special token it spells.
struct Fragment {
    std::string_view text;
    int32_t          special = -1;
};

// Splits text around the special tokens it spells, as llama.cpp does: the longest special token first, at every
// place the text (what is left of it between the tokens found so far) spells it, left to right; then the next
// longest, and so on. After a token with rstrip, the whitespace (space, \t \n \v \f \r) that follows it in the
// same piece of text is dropped.
std::vector<Fragment> split_specials(const Vocab & vocab, std::string_view text);

// One symbol of the merge loop: text[pos, pos + len) of the string being merged; len 0 once merged away.
struct Symbol {
    size_t pos;
    size_t len;
    int    prev;
    int    next;
};

// The symbols of text, one per UTF-8 character, linked in order.
std::vector<Symbol> utf8_symbols(std::string_view text);

// The symbols of text as llama.cpp's SentencePiece-style tokenizer cuts it: each as long as its first byte says
// (unicode.h utf8_lead_len, at most the bytes left), whatever the bytes that follow.
std::vector<Symbol> lead_len_symbols(std::string_view text);

// Merges adjacent symbols, best pair first, until no pair merges. priority(pos, left_len, right_len) says whether
// the pair starting at pos merges (a value, higher first; ties go to the leftmost pair) or not (nullopt).
// Returns the surviving symbols' (pos, len) in order. O(n log n) in the number of symbols.
template <typename Priority>
std::vector<std::string_view> merge_symbols(std::string_view text, std::vector<Symbol> symbols, Priority && priority) {
    struct Bigram {
        double priority;
        int    left;
        int    right;
        size_t len; // of the pair when queued, to drop the stale ones
    };
    const auto worse = [](const Bigram & a, const Bigram & b) {
        return a.priority < b.priority || (a.priority == b.priority && a.left > b.left);
    };
    std::priority_queue<Bigram, std::vector<Bigram>, decltype(worse)> queue(worse);
    const auto try_add = [&](int left, int right) {
        if (left < 0 || right < 0) {
            return;
        }
        const Symbol & l = symbols[static_cast<size_t>(left)];
        const Symbol & r = symbols[static_cast<size_t>(right)];
        if (const std::optional<double> p = priority(l.pos, l.len, r.len)) {
            queue.push({*p, left, right, l.len + r.len});
        }
    };
    for (size_t i = 1; i < symbols.size(); ++i) {
        try_add(static_cast<int>(i - 1), static_cast<int>(i));
    }
    while (!queue.empty()) {
        const Bigram b = queue.top();
        queue.pop();
        Symbol & l = symbols[static_cast<size_t>(b.left)];
        Symbol & r = symbols[static_cast<size_t>(b.right)];
        if (l.len == 0 || r.len == 0 || l.next != b.right || l.len + r.len != b.len) {
            continue;
        }
        l.len += r.len;
        r.len  = 0;
        l.next = r.next;
        if (r.next >= 0) {
            symbols[static_cast<size_t>(r.next)].prev = b.left;
        }
        try_add(l.prev, b.left);
        try_add(b.left, l.next);
    }
    std::vector<std::string_view> out;
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[static_cast<size_t>(i)].next) {
        out.push_back(text.substr(symbols[static_cast<size_t>(i)].pos, symbols[static_cast<size_t>(i)].len));
    }
    return out;
}

// The two kinds (tokenizer_llama.cpp, tokenizer_gpt2.cpp); nullptr with `error` set on bad metadata.
std::unique_ptr<Tokenizer> make_llama_tokenizer(const gguf_context * ctx, std::string & error);
std::unique_ptr<Tokenizer> make_gpt2_tokenizer(const gguf_context * ctx, std::string & error);

} // namespace switchyard::run
