// switchyard-run's tokenizers, built from a GGUF file's tokenizer.ggml.* metadata as llama.cpp reads it:
//
//   tokenizer.ggml.model = "llama"  SentencePiece-style: text with spaces as U+2581 (and one prepended), pieces
//                                   merged by score (the highest-scoring adjacent pair first), characters that
//                                   are no piece as their UTF-8 bytes through the <0xXX> byte tokens
//   tokenizer.ggml.model = "gpt2"   byte-level BPE: the pre-tokenizer that tokenizer.ggml.pre names cuts the text
//                                   into words (tokenizer_pre.h: GPT-2's, LLaMA 3's, Qwen2's, ...), each word's
//                                   bytes map to printable characters (GPT-2's byte-to-unicode table), then the
//                                   tokenizer.ggml.merges ranks merge pairs (lowest rank first)
//
// Keys used: tokenizer.ggml.tokens, .scores (llama), .token_type, .merges (gpt2), .pre (gpt2), .bos_token_id,
// .eos_token_id, .unknown_token_id, .add_bos_token, .add_eos_token, .add_space_prefix (llama, default true). Any
// other model name, and a pre-tokenizer the gpt2 kind does not know, is an error that names it. The ids are
// llama.cpp's (v0.5.0) for the same file and text: tests/tokenizer/run.sh compares them.
//
// Special tokens: the text of a control, user-defined or unknown token (token_type 3, 4, 2) that appears in the
// text is that token ("<s>", "<|endoftext|>"; the longest token first, as llama.cpp finds them), as llama.cpp does
// when asked to parse special tokens (llama-cli and llama-tokenize do for prompts). Tokens whose text looks
// special (<|im_end|>, </s>, <PRE>, ...) count as control tokens whatever their type, as llama.cpp has them
// (tokenizer_special.cpp). Details of each kind: tokenizer_llama.cpp, tokenizer_gpt2.cpp.
//
// A Tokenizer does not change after from_gguf: its const methods may be called from several threads at once.
#pragma once

#include "gguf.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace switchyard::run {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // The tokenizer of a GGUF file's metadata, or nullptr with a message in `error` (unsupported model name,
    // missing or malformed keys).
    static std::unique_ptr<Tokenizer> from_gguf(const gguf_context * ctx, std::string & error);

    // Token ids of `text`; with add_special, the BOS id first and the EOS id last where the file asks for them
    // (add_bos_token: default true for llama, for gpt2 the pre-tokenizer's default, false for most;
    // add_eos_token: default false), as llama.cpp's llama_tokenize(add_special). Never fails: characters without
    // a token go out as byte tokens, else as the unknown token (llama), else not at all.
    virtual std::vector<int32_t> encode(const std::string & text, bool add_special) const = 0;

    // The text of one token for streaming output: its piece with U+2581 as a space (llama) or its bytes (gpt2),
    // a byte token as its byte; control tokens (BOS, EOS, ...) as "". Bytes of a multi-byte character may come
    // in several tokens: concatenate before printing whole characters.
    virtual std::string piece(int32_t id) const = 0;

    // The text of ids: their pieces concatenated, then tidied by the kind (llama: a U+2581 spelled by byte tokens
    // becomes a space too, and the one space that encode puts in front of the text is dropped, as SentencePiece
    // decodes), so that decode(encode(text, add_special)) == text for text without a literal U+2581 (and, for gpt2,
    // valid UTF-8: a malformed byte comes back as U+FFFD), special tokens in the text and characters that needed the unknown token aside. Use piece() for
    // streaming output.
    std::string decode(const std::vector<int32_t> & ids) const;

    virtual const char * kind() const = 0; // "llama" or "gpt2"
    // gpt2: the pre-tokenizer's name (tokenizer_pre.h; "default" for a file without the key); llama: ""
    virtual const char * pre_tokenizer() const = 0;
    virtual int32_t      n_vocab() const = 0;
    virtual int32_t      bos() const = 0; // -1 when the file names none
    virtual int32_t      eos() const = 0; // -1 when the file names none
    // true for the end-of-generation tokens: EOS, and those llama.cpp ends the generation on by their text
    // (<|eot_id|>, <|im_end|>, <|endoftext|>, </s>, <end_of_turn>, ...: tokenizer_special.cpp)
    virtual bool is_eog(int32_t id) const = 0;

protected:
    // (optional) what decode does to the concatenated pieces; defaults to nothing
    virtual void tidy_decoded(std::string & text) const { (void) text; }
};

} // namespace switchyard::run
