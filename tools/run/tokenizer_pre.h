// The pre-tokenizers of byte-level BPE ("gpt2") vocabularies: how tokenizer.ggml.pre cuts the text into words
// before the merges, as llama.cpp v0.5.0 does for the names it knows (llama-vocab.cpp), with the settings it
// ties to the name.
//
// A pre-tokenizer is a list of regular expressions (tokenizer_regex.h) applied in turn, as llama.cpp's
// unicode_regex_split does: the first cuts the whole text into its matches and the stretches between them
// (both kept as words), each later one cuts every word so far the same way. The text is read as llama.cpp
// reads it (unicode.h's utf8_decode_lenient: a byte of malformed UTF-8 is U+FFFD).
//
// Known names (tokenizer.ggml.pre), grouped by the patterns they share:
//   default (and a file without the key), gpt-2 and its aliases (mpt, olmo, phi-2, jais, ...), llama3 /
//   llama-bpe and theirs (dbrx, smaug-bpe, glm4, ...), qwen2 and theirs (stablelm2, hunyuan, grok-2, ...),
//   qwen35, deepseek-llm, deepseek-coder, deepseek-v3 (hunyuan-dense, joyai-llm, hy_v4), falcon, starcoder and
//   theirs (refact, command-r, smollm, ...), poro-chat / bloom / gpt3-finnish, viking, chameleon, gpt-4o (llama4,
//   minimax-m2, ...), tekken, granite-embed-multi-97m, jais-2, spark2_5, youtu, bailingmoe, seed-coder,
//   ufakzeka, laguna, exaone-moe, minicpm5 (pre_tokenizer_names() lists them all).
// Not supported, refused by name: those llama.cpp splits with code of its own instead of a pattern
// (kimi-k2, afmoe, tiny_aya / cohere2moe, superbpe) and those that are not byte-level BPE (gemma4,
// sarvam-moe, whitespace, granite-embed-multi-311m).
#pragma once

#include "tokenizer_regex.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard::run {

class PreTokenizer {
public:
    // The pre-tokenizer of a tokenizer.ggml.pre value ("" when the file has none: llama.cpp's "default"), or
    // nullptr with a message naming it when it is not one of the known names.
    static std::unique_ptr<PreTokenizer> find(std::string_view name, std::string & error);

    // The words of cps as their lengths (in code points, none 0), in order: they add up to cps.size().
    std::vector<size_t> split(const std::vector<uint32_t> & cps) const;

    const std::string & name() const { return name_; }
    // a word that is a token as it stands is that token, without merging (llama3, tekken, ...)
    bool ignore_merges() const { return ignore_merges_; }
    // whether text starts with the BOS token when the file has no tokenizer.ggml.add_bos_token (llama3, tekken,
    // chameleon: true; the others false)
    bool add_bos() const { return add_bos_; }

private:
    std::string        name_;
    std::vector<Regex> regexes_;
    bool               ignore_merges_ = false;
    bool               add_bos_       = false;
};

// Every name find() knows, comma-separated, for messages.
std::string pre_tokenizer_names();

} // namespace switchyard::run
