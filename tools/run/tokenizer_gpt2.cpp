// tokenizer.ggml.model = "gpt2": GPT-2's byte-level BPE.
//
// encode: the text is split around the special tokens it spells (tokenizer_vocab.h); each plain part goes through
// the GPT-2 pre-tokenizer (unicode.h; tokenizer.ggml.pre is not read: every file gets GPT-2's pattern, where
// llama.cpp picks another pattern for some models, LLaMA 3's among them). Each part's bytes become the printable
// characters of GPT-2's byte table, which then merge by tokenizer.ggml.merges ("left right", the rank being the
// index: the lowest-ranked adjacent pair first, ties to the leftmost) until no pair merges. A merged symbol that is
// no token goes out character by character (the unknown token for a character that is no token either, nothing
// when the file names no unknown token).
//
// piece: a token's characters mapped back to bytes through the inverse table (a character outside it as its
// UTF-8); user-defined and unknown tokens as their text; control and unused tokens as "".
#include "tokenizer_vocab.h"

#include "unicode.h"

#include <algorithm>

namespace switchyard::run {

namespace {

class Gpt2Tokenizer final : public Tokenizer {
public:
    Gpt2Tokenizer(Vocab vocab, StringMap ranks) : vocab_(std::move(vocab)), ranks_(std::move(ranks)) {}

    std::vector<int32_t> encode(const std::string & text, bool add_bos) const override {
        std::vector<int32_t> out;
        if (add_bos && vocab_.add_bos && vocab_.bos >= 0) {
            out.push_back(vocab_.bos);
        }
        for (const Fragment & fragment : split_specials(vocab_, text)) {
            if (fragment.special >= 0) {
                out.push_back(fragment.special);
                continue;
            }
            for (std::string_view part : gpt2_pre_tokenize(fragment.text)) {
                encode_part(part, out);
            }
        }
        return out;
    }

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

    void encode_part(std::string_view part, std::vector<int32_t> & out) const {
        const auto & table = gpt2_byte_to_unicode();
        std::string  mapped;
        mapped.reserve(part.size() * 2);
        for (char c : part) {
            mapped += table[static_cast<unsigned char>(c)];
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
            for (size_t pos = 0; pos < symbol.size();) {
                const size_t  len = utf8_char_len(symbol, pos);
                const int32_t id  = vocab_.find(symbol.substr(pos, len));
                if (id >= 0 || vocab_.unk >= 0) {
                    out.push_back(id >= 0 ? id : vocab_.unk);
                }
                pos += len;
            }
        }
    }

    Vocab     vocab_;
    StringMap ranks_; // "left right" -> rank
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

} // namespace

std::unique_ptr<Tokenizer> make_gpt2_tokenizer(const gguf_context * ctx, std::string & error) {
    Vocab vocab;
    if (!read_vocab(ctx, /*need_scores=*/false, /*add_bos_default=*/false, vocab, error)) {
        return nullptr;
    }
    StringMap ranks;
    if (!read_merges(ctx, ranks, error)) {
        return nullptr;
    }
    return std::make_unique<Gpt2Tokenizer>(std::move(vocab), std::move(ranks));
}

} // namespace switchyard::run
