// tokenizer.ggml.model = "llama": SentencePiece-style BPE over scores.
//
// encode: the text is split around the special tokens it spells (tokenizer_vocab.h); each plain part gets its
// spaces as U+2581 and, when tokenizer.ggml.add_space_prefix (default true) and the part starts the text or
// follows a special token, one U+2581 in front (as llama.cpp does). Its characters then merge, the adjacent
// pair whose concatenation is the highest-scoring token first (ties: the leftmost). A character is as long as
// its first byte says (as llama.cpp cuts it, tokenizer_vocab.h lead_len_symbols: a malformed sequence takes the
// bytes after it along). A character left as no token goes out as its bytes through the <0xXX> byte tokens;
// when one of those bytes has no byte token, the character is one unknown token instead (nothing when the file
// names no unknown token either; llama.cpp would fail there). With add_eos_token, EOS ends the ids.
//
// piece: U+2581 as a space; a byte token as its byte; control and unused tokens as ""; the unknown token as
// U+2585 (as llama.cpp prints it). decode (tokenizer.h) goes further than llama.cpp, as SentencePiece does: a
// U+2581 made of byte tokens (a vocabulary without a U+2581 token, such as switchyard-make-model's) is a space.
#include "tokenizer_vocab.h"

#include "unicode.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace switchyard::run {

namespace {

constexpr std::string_view kSpaceMark = "\xe2\x96\x81"; // U+2581
constexpr std::string_view kUnknown   = "\xe2\x96\x85"; // U+2585

class LlamaTokenizer final : public Tokenizer {
public:
    LlamaTokenizer(Vocab vocab, bool add_space_prefix) : vocab_(std::move(vocab)), add_space_prefix_(add_space_prefix) {
        for (int b = 0; b < 256; ++b) {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "<0x%02X>", b);
            byte_ids_[static_cast<size_t>(b)] = vocab_.find(hex);
        }
    }

    std::vector<int32_t> encode(const std::string & text, bool add_special) const override {
        std::vector<int32_t> out;
        if (add_special && vocab_.add_bos && vocab_.bos >= 0) {
            out.push_back(vocab_.bos);
        }
        bool after_special = true; // the start of the text counts as one
        for (const Fragment & fragment : split_specials(vocab_, text)) {
            if (fragment.special >= 0) {
                out.push_back(fragment.special);
                after_special = true;
                continue;
            }
            encode_plain(fragment.text, add_space_prefix_ && after_special, out);
            after_special = false;
        }
        if (add_special && vocab_.add_eos && vocab_.eos >= 0) {
            out.push_back(vocab_.eos);
        }
        return out;
    }

    const char * pre_tokenizer() const override { return ""; }

    std::string piece(int32_t id) const override {
        if (!vocab_.valid(id)) {
            return "";
        }
        const std::string & text = vocab_.tokens[static_cast<size_t>(id)];
        switch (vocab_.type(id)) {
            case TokenType::Control:
            case TokenType::Unused:
                return "";
            case TokenType::Unknown:
                return std::string(kUnknown);
            case TokenType::Byte:
                if (const int byte = parse_byte_token(text); byte >= 0) {
                    return std::string(1, static_cast<char>(byte));
                }
                return text;
            default:
                return unescape(text);
        }
    }

    const char * kind() const override { return "llama"; }
    int32_t      n_vocab() const override { return static_cast<int32_t>(vocab_.tokens.size()); }
    int32_t      bos() const override { return vocab_.bos; }
    int32_t      eos() const override { return vocab_.eos; }
    bool is_eog(int32_t id) const override {
        return std::find(vocab_.eog.begin(), vocab_.eog.end(), id) != vocab_.eog.end();
    }

protected:
    // U+2581 that byte tokens spelled (the vocabulary has no U+2581 token) as a space, then no leading space
    void tidy_decoded(std::string & text) const override {
        if (text.find(kSpaceMark) != std::string::npos) {
            text = unescape(text);
        }
        if (add_space_prefix_ && !text.empty() && text[0] == ' ') {
            text.erase(0, 1);
        }
    }

private:
    // the byte of a "<0xXX>" token, -1 for another text
    static int parse_byte_token(std::string_view text) {
        const auto digit = [](char c) {
            if (c >= '0' && c <= '9') {
                return c - '0';
            }
            if (c >= 'A' && c <= 'F') {
                return c - 'A' + 10;
            }
            return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        };
        if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>' || digit(text[3]) < 0 ||
            digit(text[4]) < 0) {
            return -1;
        }
        return digit(text[3]) * 16 + digit(text[4]);
    }

    static std::string unescape(std::string_view text) {
        std::string out;
        out.reserve(text.size());
        for (size_t pos = 0; pos < text.size();) {
            if (text.substr(pos).starts_with(kSpaceMark)) {
                out += ' ';
                pos += kSpaceMark.size();
            } else {
                out += text[pos++];
            }
        }
        return out;
    }

    void encode_plain(std::string_view text, bool prefix, std::vector<int32_t> & out) const {
        std::string escaped;
        escaped.reserve(text.size() + 16);
        if (prefix) {
            escaped += kSpaceMark;
        }
        for (char c : text) {
            if (c == ' ') {
                escaped += kSpaceMark;
            } else {
                escaped += c;
            }
        }
        const std::string_view all(escaped);
        const auto score = [&](size_t pos, size_t left_len, size_t right_len) -> std::optional<double> {
            const int32_t id = vocab_.find(all.substr(pos, left_len + right_len));
            if (id < 0) {
                return std::nullopt;
            }
            return vocab_.scores[static_cast<size_t>(id)];
        };
        for (std::string_view symbol : merge_symbols(all, lead_len_symbols(all), score)) {
            if (const int32_t id = vocab_.find(symbol); id >= 0) {
                out.push_back(id);
            } else {
                push_bytes(symbol, out);
            }
        }
    }

    // A character that is no token: its bytes, or the unknown token when a byte token is missing.
    void push_bytes(std::string_view symbol, std::vector<int32_t> & out) const {
        for (char c : symbol) {
            if (byte_ids_[static_cast<unsigned char>(c)] < 0) {
                if (vocab_.unk >= 0) {
                    out.push_back(vocab_.unk);
                }
                return;
            }
        }
        for (char c : symbol) {
            out.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        }
    }

    Vocab                   vocab_;
    bool                    add_space_prefix_;
    std::array<int32_t, 256> byte_ids_{}; // the <0xXX> tokens, -1 where absent
};

} // namespace

std::unique_ptr<Tokenizer> make_llama_tokenizer(const gguf_context * ctx, std::string & error) {
    Vocab vocab;
    if (!read_vocab(ctx, /*need_scores=*/true, /*add_bos_default=*/true, vocab, error)) {
        return nullptr;
    }
    bool          add_space_prefix = true;
    const int64_t id               = gguf_find_key(ctx, "tokenizer.ggml.add_space_prefix");
    if (id >= 0) {
        if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_BOOL) {
            error = "tokenizer.ggml.add_space_prefix: expected a bool";
            return nullptr;
        }
        add_space_prefix = gguf_get_val_bool(ctx, id);
    }
    return std::make_unique<LlamaTokenizer>(std::move(vocab), add_space_prefix);
}

} // namespace switchyard::run
