// The pre-tokenizers of byte-level BPE vocabularies (tools/run/tokenizer_pre.h): the words each cuts a text
// into, worked out by hand from llama.cpp's patterns for the name.
#include "tokenizer_pre.h"
#include "unicode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using switchyard::run::PreTokenizer;
using Words = std::vector<std::string>;

// The words of text as the named pre-tokenizer cuts it, as UTF-8.
Words words(const std::string & name, const std::string & text) {
    std::string error;
    const auto  pre = PreTokenizer::find(name, error);
    EXPECT_NE(pre, nullptr) << error;
    if (!pre) {
        return {};
    }
    const std::vector<uint32_t> cps = switchyard::run::utf8_decode_lenient(text);
    Words                       out;
    size_t                      start = 0;
    for (const size_t len : pre->split(cps)) {
        EXPECT_GT(len, 0u);
        std::string word;
        for (size_t i = start; i < start + len; ++i) {
            switchyard::run::utf8_append(word, cps[i]);
        }
        out.push_back(word);
        start += len;
    }
    EXPECT_EQ(start, cps.size());
    return out;
}

const std::string kMixed = "Hello world's 12345 ok!!\n\n  x";

TEST(PreTokenizer, Gpt2) {
    EXPECT_EQ(words("gpt-2", kMixed), (Words{"Hello", " world", "'s", " 12345", " ok", "!!", "\n\n ", " x"}));
    EXPECT_EQ(words("gpt-2", "I'm don't we'll they're I've he'd it's"),
              (Words{"I", "'m", " don", "'t", " we", "'ll", " they", "'re", " I", "'ve", " he", "'d", " it", "'s"}));
    EXPECT_EQ(words("gpt-2", "'x 'S WE'RE"), (Words{"'", "x", " '", "S", " WE", "'", "RE"})); // lower case only
    EXPECT_EQ(words("gpt-2", "abc123 45x"), (Words{"abc", "123", " 45", "x"}));
    EXPECT_EQ(words("gpt-2", "Hello, world!!! (ok)"), (Words{"Hello", ",", " world", "!!!", " (", "ok", ")"}));
    EXPECT_EQ(words("gpt-2", "a   b"), (Words{"a", "  ", " b"})); // the last space goes with the word
    EXPECT_EQ(words("gpt-2", "a  "), (Words{"a", "  "}));
    EXPECT_EQ(words("gpt-2", "a \nb"), (Words{"a", " ", "\n", "b"}));
    EXPECT_EQ(words("gpt-2", ""), (Words{}));
    // letters of other scripts; U+0663 a number; U+2014 punctuation; U+00A0 whitespace; a combining accent is
    // no letter (\p{M}): it goes with the punctuation
    EXPECT_EQ(words("gpt-2", "h\xc3\xa9llo \xd0\xbc\xd0\xb8\xd1\x80 \xe4\xb8\xad\xe6\x96\x87"),
              (Words{"h\xc3\xa9llo", " \xd0\xbc\xd0\xb8\xd1\x80", " \xe4\xb8\xad\xe6\x96\x87"}));
    EXPECT_EQ(words("gpt-2", "x\xd9\xa3\xd9\xa3"), (Words{"x", "\xd9\xa3\xd9\xa3"}));
    EXPECT_EQ(words("gpt-2", "a\xc2\xa0\xc2\xa0" "b"), (Words{"a", "\xc2\xa0", "\xc2\xa0", "b"}));
    EXPECT_EQ(words("gpt-2", "e\xcc\x81t\xc3\xa9"), (Words{"e", "\xcc\x81", "t\xc3\xa9"}));
    // malformed UTF-8 is read as U+FFFD, which is "other"
    EXPECT_EQ(words("gpt-2", "ab\xff" "cd"), (Words{"ab", "\xef\xbf\xbd", "cd"}));
    EXPECT_EQ(words("mpt", "a  b"), (Words{"a", " ", " b"})); // an alias
}

TEST(PreTokenizer, Llama3) {
    EXPECT_EQ(words("llama-bpe", kMixed),
              (Words{"Hello", " world", "'s", " ", "123", "45", " ok", "!!\n\n", " ", " x"}));
    EXPECT_EQ(words("llama3", "WE'RE it'S"), (Words{"WE", "'RE", " it", "'S"})); // any case
    EXPECT_EQ(words("llama3", "(hello)\r\n\r\nx"), (Words{"(hello", ")\r\n\r\n", "x"}));
    EXPECT_EQ(words("llama3", "a \n \n b"), (Words{"a", " \n \n", " b"})); // \s*[\r\n]+ up to the last newline
    std::string error;
    const auto  pre = PreTokenizer::find("llama-bpe", error);
    ASSERT_NE(pre, nullptr);
    EXPECT_TRUE(pre->ignore_merges());
    EXPECT_TRUE(pre->add_bos());
    EXPECT_EQ(pre->name(), "llama-bpe");
}

TEST(PreTokenizer, Qwen2OneDigitAtATime) {
    EXPECT_EQ(words("qwen2", kMixed), (Words{"Hello", " world", "'s", " ", "1", "2", "3", "4", "5", " ok", "!!\n\n",
                                             " ", " x"}));
    // qwen35 keeps combining marks with the letters; qwen2 does not
    EXPECT_EQ(words("qwen2", "e\xcc\x81t"), (Words{"e", "\xcc\x81t"}));
    EXPECT_EQ(words("qwen35", "e\xcc\x81t"), (Words{"e\xcc\x81t"}));
}

TEST(PreTokenizer, DeepseekLlmAndCoder) {
    const std::string text = "Hi \xe4\xbd\xa0\xe5\xa5\xbd, 123\n"; // Hi 你好, 123
    EXPECT_EQ(words("deepseek-llm", text),
              (Words{"Hi", " ", "\xe4\xbd\xa0\xe5\xa5\xbd", ",", " ", "123", "\n"}));
    EXPECT_EQ(words("deepseek-coder", text),
              (Words{"Hi", " ", "\xe4\xbd\xa0\xe5\xa5\xbd", ",", " ", "1", "2", "3", "\n"}));
    EXPECT_EQ(words("deepseek-llm", "ab  \ncd  "), (Words{"ab", "  ", "\n", "cd", "  "})); // \s+$ per word
}

TEST(PreTokenizer, FalconStarcoderAndDefault) {
    EXPECT_EQ(words("falcon", "a+b=12345!"), (Words{"a", "+", "b", "=", "123", "45", "!"}));
    EXPECT_EQ(words("starcoder", "x 42"), (Words{"x", " ", "4", "2"}));
    EXPECT_EQ(words("default", "it's $1234."), (Words{"it", "'", "s", " ", "$", "123", "4", "."}));
    EXPECT_EQ(words("", "it's $1234."), (Words{"it", "'", "s", " ", "$", "123", "4", "."})); // no key: default
}

TEST(PreTokenizer, BloomAndGpt4o) {
    EXPECT_EQ(words("bloom", "Hello, world. (ok)"), (Words{"Hello", ",", " world", ". (", "ok", ")"}));
    EXPECT_EQ(words("gpt-4o", "HelloWorld ABCdef ABC \xc3\x9cn\xc3\xaf" "code"),
              (Words{"Hello", "World", " ABCdef", " ABC", " \xc3\x9cn\xc3\xaf" "code"}));
}

TEST(PreTokenizer, EveryNameCompilesAndUnknownOnesAreRefused) {
    const std::string names = switchyard::run::pre_tokenizer_names();
    size_t            count = 0;
    for (size_t start = 0; start < names.size();) {
        size_t end = names.find(", ", start);
        end        = end == std::string::npos ? names.size() : end;
        std::string error;
        EXPECT_NE(PreTokenizer::find(names.substr(start, end - start), error), nullptr) << error;
        ++count;
        start = end + 2;
    }
    EXPECT_GE(count, 80u);
    std::string error;
    EXPECT_EQ(PreTokenizer::find("no-such-model", error), nullptr);
    EXPECT_NE(error.find("unknown pre-tokenizer 'no-such-model'"), std::string::npos) << error;
    EXPECT_NE(error.find("llama-bpe"), std::string::npos) << error; // the supported ones are listed
    EXPECT_EQ(PreTokenizer::find("kimi-k2", error), nullptr);
    EXPECT_NE(error.find("'kimi-k2' is not supported"), std::string::npos) << error;
}

} // namespace
