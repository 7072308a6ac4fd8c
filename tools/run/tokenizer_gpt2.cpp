// tokenizer.ggml.model = "gpt2": byte-level BPE (GPT-2's, LLaMA 3's, Qwen2's, ...).
//
// encode: the text is split around the special tokens it spells (tokenizer_vocab.h); each plain part is read as
// code points (a byte of malformed UTF-8 as U+FFFD, as llama.cpp reads it) and cut into words by the
// pre-tokenizer that tokenizer.ggml.pre names (tokenizer_pre.h; "default" when the key is absent; an unknown
// name is an error). Each word, written back as UTF-8, has its bytes mapped to the printable characters of
// GPT-2's byte table; a word that is then a token as a whole is that token when the pre-tokenizer says so
// (ignore_merges, LLaMA 3's); otherwise its characters merge by tokenizer.ggml.merges ("left right", the rank
// being the index: the lowest-ranked adjacent pair first, ties to the leftmost) until no pair merges. A merged
// symbol that is no token goes out byte by byte, each byte of its text that is a token by itself (nothing for
// the others), as llama.cpp does. add_bos_token defaults to the pre-tokenizer's choice (true for LLaMA 3's).
//
// piece: a token's characters mapped back to bytes through the inverse table (a character outside it as its
// UTF-8); user-defined and unknown tokens as their text; control and unused tokens as "".
#include "tokenizer_vocab.h"

#include "tokenizer_pre.h"
#include "unicode.h"

#include <algorithm>

namespace switchyard::run {

namespace {

class Gpt2Tokenizer final : public Tokenizer {
public:
    Gpt2Tokenizer(Vocab vocab, StringMap ranks, std::unique_ptr<PreTokenizer> pre)
        : vocab_(std::move(vocab)), ranks_(std::move(ranks)), pre_(std::move(pre)) {}

    std::vector<int32_t> encode(const std::string & text, bool add_special) const override {
        std::vector<int32_t> out;
        if (add_special && vocab_.add_bos && vocab_.bos >= 0) {
            out.push_back(vocab_.bos);
        }
        std::string word;
        for (const Fragment & fragment : split_specials(vocab_, text)) {
            if (fragment.special >= 0) {
                out.push_back(fragment.special);
                continue;
            }
            const std::vector<uint32_t> cps   = utf8_decode_lenient(fragment.text);
            size_t                      start = 0;
            for (const size_t len : pre_->split(cps)) {
                word.clear();
                for (size_t i = start; i < start + len; ++i) {
                    utf8_append(word, cps[i]);
                }
                encode_word(word, out);
                start += len;
            }
        }
        if (add_special && vocab_.add_eos && vocab_.eos >= 0) {
            out.push_back(vocab_.eos);
        }
        return out;
    }

    const char * pre_tokenizer() const override { return pre_->name().c_str(); }

    std::string piece(int32_t id) const override {
        if (!vocab_.valid(id)) {
            return "";
        }
        const std::string & text = vocab_.tokens[static_cast<size_t>(id)];
        switch (vocab_.type(id)) {
            case TokenType::Control:
            case TokenType::Unused:
                return "";
            case TokenType::UserDefined:
            case TokenType::Unknown:
                return text;
            default:
                return bytes_of(text);
        }
    }

    const char * kind() const override { return "gpt2"; }
    int32_t      n_vocab() const override { return static_cast<int32_t>(vocab_.tokens.size()); }
    int32_t      bos() const override { return vocab_.bos; }
    int32_t      eos() const override { return vocab_.eos; }
    bool is_eog(int32_t id) const override {
        return std::find(vocab_.eog.begin(), vocab_.eog.end(), id) != vocab_.eog.end();
    }

private:
    static std::string bytes_of(std::string_view text) {
        std::string out;
        out.reserve(text.size());
        for (size_t pos = 0; pos < text.size();) {
            const size_t len  = utf8_char_len(text, pos);
            const int    byte = gpt2_unicode_to_byte(utf8_decode(text, pos, len));
            if (byte >= 0) {
                out += static_cast<char>(byte);
            } else {
                out.append(text.substr(pos, len));
            }
            pos += len;
        }
        return out;
    }

    void encode_word(std::string_view word, std::vector<int32_t> & out) const {
        const auto & table = gpt2_byte_to_unicode();
        std::string  mapped;
        mapped.reserve(word.size() * 2);
        for (char c : word) {
            mapped += table[static_cast<unsigned char>(c)];
        }
        if (pre_->ignore_merges()) {
            if (const int32_t id = vocab_.find(mapped); id >= 0) {
                out.push_back(id);
                return;
            }
        }
        const std::string_view all(mapped);
        std::string            key;
        const auto rank = [&](size_t pos, size_t left_len, size_t right_len) -> std::optional<double> {
            key.assign(all.substr(pos, left_len));
            key += ' ';
            key.append(all.substr(pos + left_len, right_len));
            const auto it = ranks_.find(key);
            if (it == ranks_.end()) {
                return std::nullopt;
            }
            return -static_cast<double>(it->second);
        };
        for (std::string_view symbol : merge_symbols(all, utf8_symbols(all), rank)) {
            if (const int32_t id = vocab_.find(symbol); id >= 0) {
                out.push_back(id);
                continue;
            }
            for (size_t pos = 0; pos < symbol.size(); ++pos) {
                if (const int32_t id = vocab_.find(symbol.substr(pos, 1)); id >= 0) {
                    out.push_back(id);
                }
            }
        }
    }

    Vocab                         vocab_;
    StringMap                     ranks_; // "left right" -> rank
    std::unique_ptr<PreTokenizer> pre_;
};

// tokenizer.ggml.merges as "left right" -> index (the first of duplicates); false with error set when it is
// missing or a merge is not two parts.
bool read_merges(const gguf_context * ctx, StringMap & ranks, std::string & error) {
    const char *  key = "tokenizer.ggml.merges";
    const int64_t id  = gguf_find_key(ctx, key);
    if (id < 0) {
        error = std::string(key) + ": missing";
        return false;
    }
    if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != GGUF_TYPE_STRING) {
        error = std::string(key) + ": expected an array of str";
        return false;
    }
    const size_t n = gguf_get_arr_n(ctx, id);
    if (n > static_cast<size_t>(INT32_MAX)) {
        error = std::string(key) + ": too many merges";
        return false;
    }
    ranks.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string_view merge = gguf_get_arr_str(ctx, id, i);
        const size_t           space = merge.size() > 1 ? merge.find(' ', 1) : std::string_view::npos;
        if (space == std::string_view::npos || space + 1 >= merge.size()) {
            error = std::string(key) + ": merge " + std::to_string(i) + " '" + std::string(merge) +
                    "' is not two parts separated by a space";
            return false;
        }
        ranks.emplace(std::string(merge), static_cast<int32_t>(i));
    }
    return true;
}

// tokenizer.ggml.pre's pre-tokenizer ("default" when absent); nullptr with error set for a key that is not a
// string or names no pre-tokenizer this file knows.
std::unique_ptr<PreTokenizer> read_pre_tokenizer(const gguf_context * ctx, std::string & error) {
    const char *  key = "tokenizer.ggml.pre";
    const int64_t id  = gguf_find_key(ctx, key);
    if (id >= 0 && gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) {
        error = std::string(key) + ": expected a string";
        return nullptr;
    }
    return PreTokenizer::find(id >= 0 ? gguf_get_val_str(ctx, id) : "", error);
}

} // namespace

std::unique_ptr<Tokenizer> make_gpt2_tokenizer(const gguf_context * ctx, std::string & error) {
    std::unique_ptr<PreTokenizer> pre = read_pre_tokenizer(ctx, error);
    Vocab                         vocab;
    StringMap                     ranks;
    if (!pre || !read_vocab(ctx, /*need_scores=*/false, pre->add_bos(), vocab, error) ||
        !read_merges(ctx, ranks, error)) {
        return nullptr;
    }
    return std::make_unique<Gpt2Tokenizer>(std::move(vocab), std::move(ranks), std::move(pre));
}

} // namespace switchyard::run
