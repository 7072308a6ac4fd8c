// The rules llama.cpp v0.5.0 applies to a vocabulary by the texts of its tokens when it loads one
// (llama-vocab.cpp), which decide which tokens are special (found in the text as themselves) and which end the
// generation (tokenizer_vocab.h apply_token_rules):
//   - end-of-generation texts (<|eot_id|>, <|im_end|>, <|endoftext|>, </s>, <eos>, ...) end the generation and are
//     made control tokens whatever their type in the file; so are the end-of-turn, end-of-message and
//     fill-in-the-middle texts (<|fim_prefix|>, <PRE>, ...), and the fill-in-the-middle pad, repository and file
//     separator tokens also end the generation;
//   - gpt-oss's <|channel|> <|message|> <|start|> <|constrain|> are user-defined (found in the text, printed);
//   - with <|return|> and <|call|> (or <|calls|> and <|flush|>) <|end|> is user-defined and does not end the
//     generation; with <|tool_response>, </s> is a normal token that does not either (Gemma 4);
//   - a model whose general.name has "phi-3" or "phi3" in any case strips the whitespace after its special tokens
//     (all of them but <unk>, <s> and <|endoftext|>, as llama.cpp's RSTRIP attribute).
// llama.cpp gives the control type to the first end-of-turn or fill-in-the-middle text of each kind it meets in
// its hash map's order; here every such text gets it (a vocabulary with two texts of one kind is the only case
// that differs).
#include "tokenizer_vocab.h"

#include <algorithm>
#include <cctype>

namespace switchyard::run {

namespace {

constexpr std::string_view kEndOfGeneration[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xef\xbd\x9c" "end\xe2\x96\x81" "of\xe2\x96\x81" "sentence\xef\xbd\x9c>", // <｜end▁of▁sentence｜>
    "[e~[",
};

// the end-of-turn texts that are not also end-of-generation ones above, and the fill-in-the-middle prefix,
// suffix and middle texts: control tokens
constexpr std::string_view kControlLooking[] = {
    "<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>", "<PRE>",
    "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>",
    "<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>", "<SUF>",
    "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>",
    "<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>",
    "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>",
};

// fill-in-the-middle pad, repository and file separator texts: control tokens that end the generation
constexpr std::string_view kFimEnding[] = {
    "<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]",
    "<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>",
    "<|file_sep|>",
};

constexpr std::string_view kUserDefined[] = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};

void make_control(Vocab & vocab, int32_t id) {
    TokenType & t = vocab.types[static_cast<size_t>(id)];
    if (t != TokenType::Control && t != TokenType::UserDefined && t != TokenType::Unknown) {
        t = TokenType::Control;
    }
}

void add_eog(Vocab & vocab, int32_t id) {
    if (id >= 0 && std::find(vocab.eog.begin(), vocab.eog.end(), id) == vocab.eog.end()) {
        vocab.eog.push_back(id);
    }
}

void remove_eog(Vocab & vocab, int32_t id) {
    vocab.eog.erase(std::remove(vocab.eog.begin(), vocab.eog.end(), id), vocab.eog.end());
}

} // namespace

void apply_token_rules(Vocab & vocab, std::string_view model_name) {
    for (std::string_view text : kControlLooking) {
        if (const int32_t id = vocab.find(text); id >= 0) {
            make_control(vocab, id);
        }
    }
    for (std::string_view text : kFimEnding) {
        if (const int32_t id = vocab.find(text); id >= 0) {
            make_control(vocab, id);
            add_eog(vocab, id);
        }
    }
    for (std::string_view text : kEndOfGeneration) {
        if (const int32_t id = vocab.find(text); id >= 0) {
            make_control(vocab, id);
            add_eog(vocab, id);
        }
    }
    for (std::string_view text : kUserDefined) {
        if (const int32_t id = vocab.find(text); id >= 0) {
            vocab.types[static_cast<size_t>(id)] = TokenType::UserDefined;
        }
    }
    add_eog(vocab, vocab.eos);
    const int32_t end = vocab.find("<|end|>");
    if (end >= 0 && ((vocab.find("<|return|>") >= 0 && vocab.find("<|call|>") >= 0) ||
                     (vocab.find("<|calls|>") >= 0 && vocab.find("<|flush|>") >= 0))) {
        vocab.types[static_cast<size_t>(end)] = TokenType::UserDefined;
        remove_eog(vocab, end);
    }
    const int32_t s_end = vocab.find("</s>");
    if (s_end >= 0 && vocab.find("<|tool_response>") >= 0) {
        vocab.types[static_cast<size_t>(s_end)] = TokenType::Normal;
        remove_eog(vocab, s_end);
    }
    std::string name(model_name);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name.find("phi-3") != std::string::npos || name.find("phi3") != std::string::npos) {
        vocab.rstrip.assign(vocab.tokens.size(), false);
        for (size_t i = 0; i < vocab.tokens.size(); ++i) {
            const TokenType t = vocab.types[i];
            vocab.rstrip[i] = t == TokenType::Control || t == TokenType::UserDefined || t == TokenType::Unknown;
        }
        for (std::string_view text : {"<unk>", "<s>", "<|endoftext|>"}) {
            if (const int32_t id = vocab.find(text); id >= 0) {
                vocab.rstrip[static_cast<size_t>(id)] = false;
            }
        }
    }
}

} // namespace switchyard::run
