// The model writer, for switchyard-make-model --tokenizer (tokenizer_files.h): the files read, told apart by their
// contents, and made into a Vocabulary.
#include "tokenizer_files.h"

#include "json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace switchyard::model_writer {

namespace {

// llama.cpp's token types
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6;

// The patterns of tokenizer.json's Split pre-tokenizer that name a llama.cpp pre-tokenizer
constexpr std::pair<std::string_view, std::string_view> kKnownSplits[] = {
    {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
     "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     "llama-bpe"},
    {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
     "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     "qwen2"},
};

bool read_file(const std::string & path, std::string & text, std::string & error) {
    std::FILE * f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    char   buf[65536];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
        text.append(buf, n);
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) {
        error = "cannot read '" + path + "'";
    }
    return !failed;
}

// The files given, by kind.
struct Files {
    std::optional<Json> tokenizer; // tokenizer.json: an object with "model"
    std::optional<Json> config;    // tokenizer_config.json: another object
    std::optional<Json> encoder;   // encoder.json / vocab.json: an object of integers only
    std::string         merges;    // vocab.bpe: text starting with "#version"
    std::string         names[4];  // the path of each, for messages
};

bool classify(const std::string & path, Files & files, std::string & error) {
    std::string text;
    if (!read_file(path, text, error)) {
        return false;
    }
    if (text.rfind("#version", 0) == 0) {
        files.merges   = std::move(text);
        files.names[3] = path;
        return true;
    }
    std::string         why;
    std::optional<Json> json = Json::parse(text, why);
    if (!json || !json->is(Json::Type::Object)) {
        error = "'" + path + "' is neither a JSON object (" + (json ? "another JSON value" : why) +
                ") nor GPT-2's vocab.bpe (its first line \"#version ...\")";
        return false;
    }
    const auto & members = json->members();
    if (const Json * model = json->find("model"); model != nullptr && model->is(Json::Type::Object)) {
        files.tokenizer = std::move(json);
        files.names[0]  = path;
    } else if (!members.empty() && std::all_of(members.begin(), members.end(), [](const auto & m) {
                   return m.second.integer().has_value();
               })) {
        files.encoder  = std::move(json);
        files.names[2] = path;
    } else {
        files.config   = std::move(json);
        files.names[1] = path;
    }
    return true;
}

// Places text at id, growing the table with unused "[PAD<id>]" entries; false for a bad id.
bool place(Vocabulary & v, int64_t id, const std::string & text, int32_t type) {
    if (id < 0 || id >= (int64_t{1} << 24)) {
        return false;
    }
    for (auto i = static_cast<int64_t>(v.tokens.size()); i <= id; ++i) {
        v.tokens.push_back("[PAD" + std::to_string(i) + "]");
        v.types.push_back(kUnused);
    }
    v.tokens[static_cast<size_t>(id)] = text;
    v.types[static_cast<size_t>(id)]  = type;
    return true;
}

int32_t find_token(const Vocabulary & v, const std::string & text) {
    const auto it = std::find(v.tokens.begin(), v.tokens.end(), text);
    return it == v.tokens.end() ? -1 : static_cast<int32_t>(it - v.tokens.begin());
}

bool looks_special(const std::string & t) {
    return t.size() >= 4 && t.rfind("<|", 0) == 0 && t.compare(t.size() - 2, 2, "|>") == 0;
}

bool read_gpt2_files(const Files & files, Vocabulary & v, std::string & error) {
    for (const auto & [text, value] : files.encoder->members()) {
        if (!place(v, *value.integer(), text, looks_special(text) ? kControl : kNormal)) {
            error = "'" + files.names[2] + "': token '" + text + "' has a bad id";
            return false;
        }
    }
    size_t line_no = 1;
    for (size_t pos = files.merges.find('\n'); pos != std::string::npos && pos + 1 < files.merges.size();) {
        const size_t      end  = std::min(files.merges.find('\n', pos + 1), files.merges.size());
        const std::string line = files.merges.substr(pos + 1, end - pos - 1);
        ++line_no;
        pos = end;
        if (line.empty()) {
            continue;
        }
        const size_t space = line.find(' ');
        if (space == 0 || space == std::string::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos) {
            error = "'" + files.names[3] + "' line " + std::to_string(line_no) + ": '" + line +
                    "' is not two parts separated by a space";
            return false;
        }
        v.merges.push_back(line);
    }
    v.model  = "gpt2";
    v.pre    = "gpt-2";
    v.bos    = find_token(v, "<|endoftext|>");
    v.eos    = v.bos;
    v.source = files.names[2] + " + " + files.names[3];
    return true;
}

// tokenizer.json's model.merges as "left right" strings
bool read_merges(const Json & model, const std::string & path, std::vector<std::string> & merges, std::string & error) {
    const Json * list = model.find("merges");
    if (list == nullptr || !list->is(Json::Type::Array)) {
        error = "'" + path + "': model.merges is missing or not an array";
        return false;
    }
    for (const Json & m : list->items()) {
        if (m.is(Json::Type::String) && m.string().find(' ', 1) != std::string::npos) {
            merges.push_back(m.string());
            continue;
        }
        if (m.is(Json::Type::Array) && m.items().size() == 2 && m.items()[0].is(Json::Type::String) &&
            m.items()[1].is(Json::Type::String)) {
            std::string merge;
            for (const Json & part : m.items()) {
                for (char c : part.string()) {
                    merge += c == ' ' ? std::string("\xc4\xa0") : std::string(1, c); // U+0120, as gguf-py writes it
                }
                merge += ' ';
            }
            merge.pop_back();
            merges.push_back(merge);
            continue;
        }
        error = "'" + path + "': merge " + std::to_string(merges.size()) + " is neither \"a b\" nor [\"a\", \"b\"]";
        return false;
    }
    return true;
}

// tokenizer.ggml.pre of a byte-level tokenizer.json, from its pre_tokenizer ("" when it cannot be told)
std::string byte_level_pre(const Json & tokenizer) {
    const Json * pre = tokenizer.find("pre_tokenizer");
    if (pre == nullptr) {
        return "";
    }
    const Json * type = pre->find("type");
    if (type != nullptr && type->string() == "ByteLevel") {
        const Json * use_regex = pre->find("use_regex");
        return use_regex == nullptr || use_regex->boolean() ? "gpt-2" : "";
    }
    const Json * steps = pre->find("pretokenizers");
    if (steps == nullptr || steps->items().empty()) {
        return "";
    }
    const Json * pattern = steps->items()[0].find("pattern");
    const Json * regex   = pattern != nullptr ? pattern->find("Regex") : nullptr;
    for (const auto & [split, name] : kKnownSplits) {
        if (regex != nullptr && regex->string() == split) {
            return std::string(name);
        }
    }
    return "";
}

// the id of a tokenizer_config.json entry ("<s>" or {"content": "<s>"}) among the added tokens (-1: none)
int32_t config_token(const Files & files, const char * key) {
    const Json * entry   = files.config ? files.config->find(key) : nullptr;
    const Json * content = entry != nullptr && entry->is(Json::Type::Object) ? entry->find("content") : entry;
    const Json * added   = files.tokenizer->find("added_tokens");
    if (content == nullptr || !content->is(Json::Type::String) || added == nullptr) {
        return -1;
    }
    for (const Json & token : added->items()) {
        const Json * text = token.find("content");
        const Json * id   = token.find("id");
        if (text != nullptr && id != nullptr && text->string() == content->string() && id->integer()) {
            return static_cast<int32_t>(*id->integer());
        }
    }
    return -1;
}

// tokenizer.json's tokens: model.vocab, then the added tokens at their ids (special: control, else user-defined)
bool read_hf_tokens(const Files & files, const Json & model, bool spm, Vocabulary & v, std::string & error) {
    const std::string & path  = files.names[0];
    const Json *        vocab = model.find("vocab");
    if (vocab == nullptr || !vocab->is(Json::Type::Object)) {
        error = "'" + path + "': model.vocab is missing or not an object";
        return false;
    }
    for (const auto & [text, id] : vocab->members()) {
        const bool byte = spm && text.size() == 6 && text.rfind("<0x", 0) == 0 && text[5] == '>';
        if (!id.integer() || !place(v, *id.integer(), text, byte ? kByte : kNormal)) {
            error = "'" + path + "': token '" + text + "' has a bad id";
            return false;
        }
    }
    static const std::vector<Json> none;
    const Json *                   added = files.tokenizer->find("added_tokens");
    for (const Json & token : added != nullptr ? added->items() : none) {
        const Json * text    = token.find("content");
        const Json * id      = token.find("id");
        const Json * special = token.find("special");
        if (text == nullptr || id == nullptr || !id->integer() ||
            !place(v, *id->integer(), text->string(), special && special->boolean() ? kControl : kUserDefined)) {
            error = "'" + path + "': an added token without content or a good id";
            return false;
        }
    }
    return true;
}

// the special token ids and add_bos / add_eos that tokenizer_config.json gives
void read_hf_config(const Files & files, Vocabulary & v) {
    v.bos = config_token(files, "bos_token");
    v.eos = config_token(files, "eos_token");
    v.unk = config_token(files, "unk_token");
    v.pad = config_token(files, "pad_token");
    const std::pair<const char *, std::optional<bool> *> flags[] = {{"add_bos_token", &v.add_bos},
                                                                   {"add_eos_token", &v.add_eos}};
    for (const auto & [key, field] : flags) {
        const Json * flag = files.config ? files.config->find(key) : nullptr;
        if (flag != nullptr && flag->is(Json::Type::Bool)) {
            *field = flag->boolean();
        }
    }
}

// SentencePiece-style: a token's score is minus the rank of the first merge that makes it; no merges written
void score_by_merges(Vocabulary & v) {
    v.scores.assign(v.tokens.size(), 0.0f);
    std::unordered_map<std::string, int32_t> ids;
    for (size_t i = 0; i < v.tokens.size(); ++i) {
        ids.emplace(v.tokens[i], static_cast<int32_t>(i));
    }
    std::vector<bool> scored(v.tokens.size(), false);
    for (size_t rank = 0; rank < v.merges.size(); ++rank) {
        std::string joined = v.merges[rank];
        joined.erase(joined.find(' ', 1), 1);
        const auto it = ids.find(joined);
        if (it != ids.end() && !scored[static_cast<size_t>(it->second)]) {
            scored[static_cast<size_t>(it->second)]   = true;
            v.scores[static_cast<size_t>(it->second)] = -static_cast<float>(rank);
        }
    }
    v.merges.clear();
}

bool read_hf_files(const Files & files, const std::string & pre, Vocabulary & v, std::string & error) {
    const std::string & path  = files.names[0];
    const Json &        model = *files.tokenizer->find("model");
    const Json *        type  = model.find("type");
    if (type == nullptr || type->string() != "BPE") {
        error = "'" + path + "': model type '" + (type ? type->string() : "") + "' is not supported (BPE only)";
        return false;
    }
    const Json * fallback = model.find("byte_fallback");
    const bool   spm      = fallback != nullptr && fallback->boolean();
    if (!read_hf_tokens(files, model, spm, v, error) || !read_merges(model, path, v.merges, error)) {
        return false;
    }
    read_hf_config(files, v);
    v.source = files.names[0] + (files.config ? " + " + files.names[1] : "");
    if (spm) {
        v.model = "llama";
        v.pre   = pre.empty() ? "default" : pre;
        score_by_merges(v);
        if (v.unk >= 0) {
            v.types[static_cast<size_t>(v.unk)] = kUnknown;
        }
        return true;
    }
    v.model = "gpt2";
    v.pre   = pre.empty() ? byte_level_pre(*files.tokenizer) : pre;
    if (v.pre.empty()) {
        error = "'" + path + "': tokenizer.ggml.pre cannot be told from its pre_tokenizer: name it with "
                "--tokenizer-pre (see llama.cpp's list, or switchyard-run's error for a wrong one)";
        return false;
    }
    return true;
}

} // namespace

bool read_tokenizer_files(const std::vector<std::string> & paths, const std::string & pre, Vocabulary & out,
                          std::string & error) {
    Files files;
    for (const std::string & path : paths) {
        if (!classify(path, files, error)) {
            return false;
        }
    }
    out = Vocabulary{};
    if (files.encoder && !files.merges.empty() && !files.tokenizer && !files.config && paths.size() == 2) {
        if (!read_gpt2_files(files, out, error)) {
            return false;
        }
        out.pre = pre.empty() ? out.pre : pre;
        return true;
    }
    if (files.tokenizer && !files.encoder && files.merges.empty() && paths.size() <= 2) {
        return read_hf_files(files, pre, out, error);
    }
    error = "--tokenizer takes encoder.json and vocab.bpe (GPT-2's files), or tokenizer.json and optionally "
            "tokenizer_config.json (a Hugging Face tokenizer)";
    return false;
}

} // namespace switchyard::model_writer
