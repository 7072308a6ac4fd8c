#include "prompt.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace switchyard::run {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

} // namespace

std::string process_escapes(const std::string & text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\' || i + 1 >= text.size()) {
            out += text[i];
            continue;
        }
        const char c = text[++i];
        switch (c) {
            case 'n':  out += '\n'; break;
            case 'r':  out += '\r'; break;
            case 't':  out += '\t'; break;
            case '\\': out += '\\'; break;
            case '"':  out += '"'; break;
            case '\'': out += '\''; break;
            default:
                if (c == 'x' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
                    out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
                    i += 2;
                } else {
                    out += '\\';
                    out += c;
                }
        }
    }
    return out;
}

bool read_prompt_file(const std::string & path, std::string & text, std::string & error) {
    std::FILE * f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        error = "cannot read the prompt file '" + path + "': " + std::strerror(errno);
        return false;
    }
    text.clear();
    char   buf[65536];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
        text.append(buf, n);
    }
    const bool failed = std::ferror(f) != 0;
    const int  err    = errno;
    std::fclose(f);
    if (failed) {
        error = "cannot read the prompt file '" + path + "': " + std::strerror(err);
        return false;
    }
    if (!text.empty() && text.back() == '\n') {
        text.pop_back();
    }
    return true;
}

bool prompt_tokens(const Model & model, const Options & o, std::unique_ptr<Tokenizer> & tok, std::vector<int32_t> & ids,
                   std::string & error) {
    if (o.tokens_given) {
        ids = o.tokens;
        return true;
    }
    std::string text = o.prompt;
    if (!o.prompt_file.empty() && !read_prompt_file(o.prompt_file, text, error)) {
        return false;
    }
    if (o.escape) {
        text = process_escapes(text);
    }
    tok = Tokenizer::from_gguf(model.gguf(), error);
    if (!tok) {
        error = "cannot tokenize the prompt: " + error + " (--tokens takes token ids instead)";
        return false;
    }
    ids = tok->encode(text, true);
    if (ids.empty()) {
        error = "the prompt has no tokens";
        return false;
    }
    return true;
}

} // namespace switchyard::run
