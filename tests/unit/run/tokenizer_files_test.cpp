// switchyard-make-model --tokenizer (tools/model_writer/tokenizer_files.h) and its JSON reader (json.h), on small
// files written here: the keys it makes, worked out by hand from each file.
#include "model_writer/json.h"
#include "model_writer/tokenizer_files.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using switchyard::model_writer::Json;
using switchyard::model_writer::Vocabulary;
using switchyard::model_writer::read_tokenizer_files;

// A file of the test's own, removed at the end.
class TempFile {
public:
    TempFile(const std::string & name, const std::string & text)
        : path_((std::filesystem::temp_directory_path() / ("switchyard_tokfiles_" + name)).string()) {
        std::FILE * f = std::fopen(path_.c_str(), "wb");
        EXPECT_NE(f, nullptr);
        if (f != nullptr) {
            std::fwrite(text.data(), 1, text.size(), f);
            std::fclose(f);
        }
    }
    ~TempFile() { std::remove(path_.c_str()); }
    const std::string & path() const { return path_; }

private:
    std::string path_;
};

std::string parse_error(const std::string & text) {
    std::string error;
    EXPECT_FALSE(Json::parse(text, error).has_value()) << text;
    return error;
}

TEST(TokenizerFilesJson, Values) {
    std::string                error;
    const std::optional<Json> j = Json::parse(
        " {\"a\": [1, -2.5e1, true, false, null], \"s\": \"x\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\", \"a\": 3} ", error);
    ASSERT_TRUE(j.has_value()) << error;
    ASSERT_TRUE(j->is(Json::Type::Object));
    ASSERT_EQ(j->members().size(), 3u);
    const Json * a = j->find("a"); // the first of a repeated name
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->items().size(), 5u);
    EXPECT_EQ(a->items()[0].integer(), 1);
    EXPECT_EQ(a->items()[1].number(), -25.0);
    EXPECT_FALSE(a->items()[1].integer().has_value());
    EXPECT_TRUE(a->items()[2].boolean());
    EXPECT_TRUE(a->items()[4].is(Json::Type::Null));
    EXPECT_EQ(j->find("s")->string(), "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_EQ(j->find("missing"), nullptr);
}

TEST(TokenizerFilesJson, ErrorsSayWhere) {
    EXPECT_EQ(parse_error("{\"a\": 1,\n  \"b\" 2}"), "line 2, column 7: expected ':' after a member name");
    EXPECT_EQ(parse_error("[1, 2"), "line 1, column 6: expected ',' or ']'");
    EXPECT_EQ(parse_error("\"\\ud800x\""), "line 1, column 8: a lone surrogate in a \\u escape");
    EXPECT_EQ(parse_error("\"a\nb\""), "line 1, column 3: a control character in a string");
    EXPECT_EQ(parse_error("{} x"), "line 1, column 4: text after the value");
    EXPECT_EQ(parse_error(std::string(300, '[')), "line 1, column 258: nested deeper than 256 levels");
    EXPECT_EQ(parse_error("tru"), "line 1, column 1: not a JSON value");
}

TEST(TokenizerFiles, Gpt2Pair) {
    const TempFile encoder("encoder.json", "{\"a\": 0, \"b\": 1, \"ab\": 3, \"<|endoftext|>\": 4}");
    const TempFile merges("vocab.bpe", "#version: 0.2\na b\n\n");
    Vocabulary     v;
    std::string    error;
    ASSERT_TRUE(read_tokenizer_files({merges.path(), encoder.path()}, "", v, error)) << error;
    EXPECT_EQ(v.model, "gpt2");
    EXPECT_EQ(v.pre, "gpt-2");
    EXPECT_EQ(v.tokens, (std::vector<std::string>{"a", "b", "[PAD2]", "ab", "<|endoftext|>"})); // id 2: a gap
    EXPECT_EQ(v.types, (std::vector<int32_t>{1, 1, 5, 1, 3}));
    EXPECT_EQ(v.merges, (std::vector<std::string>{"a b"}));
    EXPECT_EQ(v.bos, 4);
    EXPECT_EQ(v.eos, 4);
    EXPECT_FALSE(v.add_bos.has_value());
    EXPECT_TRUE(v.scores.empty());
    ASSERT_TRUE(read_tokenizer_files({encoder.path(), merges.path()}, "llama-bpe", v, error)) << error;
    EXPECT_EQ(v.pre, "llama-bpe");
    const TempFile bad("bad.bpe", "#version: 0.2\na b c\n");
    EXPECT_FALSE(read_tokenizer_files({encoder.path(), bad.path()}, "", v, error));
    EXPECT_NE(error.find("line 2: 'a b c' is not two parts"), std::string::npos) << error;
}

// A tokenizer.json of model type BPE: the vocabulary, merges and byte_fallback given
std::string hf_json(const std::string & vocab, const std::string & merges, bool byte_fallback,
                    const std::string & pre_tokenizer = "null") {
    return "{\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true}, "
           "{\"id\": 1, \"content\": \"<s>\", \"special\": true}, {\"id\": 5, \"content\": \"<x>\", \"special\": false}],"
           " \"pre_tokenizer\": " + pre_tokenizer + ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": " +
           (byte_fallback ? "true" : "false") + ", \"vocab\": " + vocab + ", \"merges\": " + merges + "}}";
}

TEST(TokenizerFiles, HuggingFaceSentencePieceStyle) {
    // merges: "b c" (rank 0) makes bc, "a bc" (1) makes abc, "a b" (2) makes ab
    const TempFile tok("tokenizer.json", hf_json("{\"<unk>\": 0, \"<s>\": 1, \"<0x41>\": 2, \"a\": 3, \"b\": 4, "
                                                  "\"c\": 6, \"bc\": 7, \"abc\": 8, \"ab\": 9}",
                                                  "[\"b c\", \"a bc\", \"a b\"]", true));
    const TempFile cfg("tokenizer_config.json", "{\"bos_token\": {\"content\": \"<s>\"}, \"unk_token\": \"<unk>\", "
                                                 "\"add_bos_token\": true, \"add_eos_token\": false}");
    Vocabulary  v;
    std::string error;
    ASSERT_TRUE(read_tokenizer_files({tok.path(), cfg.path()}, "", v, error)) << error;
    EXPECT_EQ(v.model, "llama");
    EXPECT_EQ(v.pre, "default");
    EXPECT_EQ(v.tokens[5], "<x>");
    EXPECT_EQ(v.types, (std::vector<int32_t>{2, 3, 6, 1, 1, 4, 1, 1, 1, 1})); // <unk> unknown, <x> user-defined
    EXPECT_EQ(v.scores, (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, -1, -2})); // bc 0, abc -1, ab -2
    EXPECT_TRUE(v.merges.empty());
    EXPECT_EQ(v.bos, 1);
    EXPECT_EQ(v.unk, 0);
    EXPECT_EQ(v.eos, -1);
    EXPECT_EQ(v.add_bos, true);
    EXPECT_EQ(v.add_eos, false);
}

TEST(TokenizerFiles, HuggingFaceByteLevel) {
    const std::string vocab = "{\"<unk>\": 0, \"<s>\": 1, \"a\": 2, \"b\": 3, \"ab\": 4}";
    const std::string llama3_split =
        "{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": "
        "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+"
        "[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}}, {\"type\": \"ByteLevel\", \"use_regex\": false}]}";
    const TempFile llama3("llama3.json", hf_json(vocab, "[[\"a\", \"b\"]]", false, llama3_split));
    Vocabulary     v;
    std::string    error;
    ASSERT_TRUE(read_tokenizer_files({llama3.path()}, "", v, error)) << error;
    EXPECT_EQ(v.model, "gpt2");
    EXPECT_EQ(v.pre, "llama-bpe");
    EXPECT_EQ(v.merges, (std::vector<std::string>{"a b"}));
    EXPECT_TRUE(v.scores.empty());
    const TempFile gpt2("gpt2.json", hf_json(vocab, "[\"a b\"]", false, "{\"type\": \"ByteLevel\"}"));
    ASSERT_TRUE(read_tokenizer_files({gpt2.path()}, "", v, error)) << error;
    EXPECT_EQ(v.pre, "gpt-2");
    // a space within a part of a merge pair is written as U+0120, as gguf-py does
    const TempFile spaced("spaced.json", hf_json(vocab, "[[\"a b\", \"c\"]]", false, "{\"type\": \"ByteLevel\"}"));
    ASSERT_TRUE(read_tokenizer_files({spaced.path()}, "", v, error)) << error;
    EXPECT_EQ(v.merges, (std::vector<std::string>{"a\xc4\xa0" "b c"}));
    const TempFile other("other.json", hf_json(vocab, "[]", false, "{\"type\": \"Whitespace\"}"));
    EXPECT_FALSE(read_tokenizer_files({other.path()}, "", v, error));
    EXPECT_NE(error.find("--tokenizer-pre"), std::string::npos) << error;
    ASSERT_TRUE(read_tokenizer_files({other.path()}, "qwen2", v, error)) << error;
    EXPECT_EQ(v.pre, "qwen2");
}

TEST(TokenizerFiles, Refused) {
    Vocabulary     v;
    std::string    error;
    const TempFile unigram("unigram.json", "{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}");
    EXPECT_FALSE(read_tokenizer_files({unigram.path()}, "", v, error));
    EXPECT_NE(error.find("model type 'Unigram' is not supported (BPE only)"), std::string::npos) << error;
    const TempFile encoder("lone.json", "{\"a\": 0}");
    EXPECT_FALSE(read_tokenizer_files({encoder.path()}, "", v, error));
    EXPECT_NE(error.find("--tokenizer takes encoder.json and vocab.bpe"), std::string::npos) << error;
    const TempFile broken("broken.json", "{\"model\": {\"type\": \"BPE\",\n\"vocab\": {]}}");
    EXPECT_FALSE(read_tokenizer_files({broken.path()}, "", v, error));
    EXPECT_NE(error.find("line 2, column 11: expected a member name in quotes"), std::string::npos) << error;
}

} // namespace
