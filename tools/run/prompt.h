// switchyard-run: the prompt as the command line gives it: -p's text (or -f's file), escapes processed with -e,
// then token ids through the file's tokenizer; or --tokens' ids as they are.
#pragma once

#include "cli.h"
#include "model.h"
#include "tokenizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace switchyard::run {

// llama.cpp's escapes: \n \r \t \\ \" \' and \xNN (two hex digits) become the character; a backslash before
// anything else (or at the end) stays as it is, with what follows.
std::string process_escapes(const std::string & text);

// The contents of a prompt file with one trailing newline dropped (as llama.cpp's -f); false with a message
// naming the path and the system's reason when it cannot be read.
bool read_prompt_file(const std::string & path, std::string & text, std::string & error);

// The prompt's token ids: --tokens (tok stays null), or the prompt (-p or -f, with -e's escapes) through the
// file's tokenizer (made into tok). False with a message when the file has no usable tokenizer, the prompt file
// cannot be read or the prompt has no tokens.
bool prompt_tokens(const Model & model, const Options & o, std::unique_ptr<Tokenizer> & tok, std::vector<int32_t> & ids,
                   std::string & error);

} // namespace switchyard::run
