// The tokenizers where they follow llama.cpp's choices rather than the obvious ones (tools/run/tokenizer.h): the
// pre-tokenizer tokenizer.ggml.pre names, ignore_merges, the BOS and EOS defaults, the order in which special
// tokens are found, the byte fallback of byte-level BPE, and how the SentencePiece-style tokenizer cuts
// malformed UTF-8. Expected ids are worked out by hand from each small vocabulary.
#include "tokenizer_spec.h"

#include <gtest/gtest.h>

namespace {

using namespace tokenizer_test;

TEST(TokenizerCompat, Gpt2FilesUseTheirPreTokenizer) {
    // the words decide what may merge: "1", "2", "3" merge to "123" within a word only
    VocabSpec v = gpt2_vocab({"1 2", "12 3"});
    const int32_t n123 = v.id("123");
    v.pre = "llama-bpe"; // \p{N}{1,3}: "123" is a word
    const auto llama3 = load(v);
    ASSERT_NE(llama3, nullptr);
    EXPECT_EQ(llama3->encode("123", false), (Ids{n123}));
    EXPECT_STREQ(llama3->pre_tokenizer(), "llama-bpe");
    v.pre = "qwen2"; // \p{N}: one word per digit
    const auto qwen2 = load(v);
    ASSERT_NE(qwen2, nullptr);
    EXPECT_EQ(qwen2->encode("123", false), (Ids{'1', '2', '3'}));
    v.pre.reset(); // no key: llama.cpp's "default", whose \p{N}+ then [0-9]{3} keep 123 whole
    const auto fallback = load(v);
    ASSERT_NE(fallback, nullptr);
    EXPECT_STREQ(fallback->pre_tokenizer(), "default");
    EXPECT_EQ(fallback->encode("1234", false), (Ids{n123, '4'}));
}

TEST(TokenizerCompat, UnknownPreTokenizerIsAnError) {
    VocabSpec v = gpt2_vocab({});
    v.pre       = "my-own";
    const std::string error = load_error(make_gguf(v));
    EXPECT_NE(error.find("tokenizer.ggml.pre: unknown pre-tokenizer 'my-own'"), std::string::npos) << error;
    v.pre = "kimi-k2";
    EXPECT_NE(load_error(make_gguf(v)).find("'kimi-k2' is not supported"), std::string::npos);
}

TEST(TokenizerCompat, IgnoreMergesTakesWholeWords) {
    // "abc" is a token, but no merge leads to it: llama3's ignore_merges finds it; gpt-2 merges a b only
    VocabSpec v   = gpt2_vocab({"a b"});
    const int32_t abc = v.add("abc");
    v.pre         = "llama-bpe";
    const auto whole = load(v);
    ASSERT_NE(whole, nullptr);
    EXPECT_EQ(whole->encode("abc", false), (Ids{abc}));
    v.pre = "gpt-2";
    const auto merged = load(v);
    ASSERT_NE(merged, nullptr);
    EXPECT_EQ(merged->encode("abc", false), (Ids{v.id("ab"), 'c'}));
}

TEST(TokenizerCompat, BosAndEosDefaults) {
    VocabSpec v = gpt2_vocab({});
    v.pre       = "llama-bpe"; // LLaMA 3's pre-tokenizer adds BOS unless the file says otherwise
    const int32_t eot = v.id("<|endoftext|>");
    EXPECT_EQ(load(v)->encode("x", true), (Ids{eot, 'x'}));
    v.add_bos = false;
    EXPECT_EQ(load(v)->encode("x", true), (Ids{'x'}));
    v.pre = "gpt-2"; // no BOS by default
    v.add_bos.reset();
    EXPECT_EQ(load(v)->encode("x", true), (Ids{'x'}));
    v.add_eos = true; // EOS at the end when the file asks, with add_special only
    EXPECT_EQ(load(v)->encode("x", true), (Ids{'x', eot}));
    EXPECT_EQ(load(v)->encode("x", false), (Ids{'x'}));
    VocabSpec llama = abc_vocab(-3.0f, -4.0f);
    llama.add_eos   = true;
    EXPECT_EQ(load(llama)->encode("a", true), (Ids{1, 3, 4, 2}));
}

TEST(TokenizerCompat, LongestSpecialTokenFirstAnywhere) {
    // llama.cpp looks for the longest special token everywhere first: in "ab_c", "b_c" (3 bytes) wins over the
    // "ab" (2 bytes) that starts further left
    VocabSpec v = gpt2_vocab({});
    const int32_t ab = v.add("ab", 0.0f, kControl);
    const int32_t bc = v.add("b_c", 0.0f, kControl);
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode("ab_c", false), (Ids{'a', bc}));
    EXPECT_EQ(tok->encode("ab_x ab", false), (Ids{ab, '_', 'x', v.id("\xc4\xa0"), ab})); // Ġ: the space
}

TEST(TokenizerCompat, Gpt2ByteFallbackByByte) {
    // a merged symbol that is no token (the vocabulary lacks "xy" but has the merge) goes out as the bytes of its
    // text that are tokens by themselves: x and y here
    VocabSpec v = gpt2_vocab({});
    v.merges.push_back("x y");
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode("xy", false), (Ids{'x', 'y'}));
    // and "\xc4\xa0" (Ġ, the space) merged with x: its two bytes are no tokens, so only x is left
    v.merges = {"\xc4\xa0 x"};
    const auto tok2 = load(v);
    ASSERT_NE(tok2, nullptr);
    EXPECT_EQ(tok2->encode(" x", false), (Ids{'x'}));
}

TEST(TokenizerCompat, LlamaCutsMalformedUtf8ByTheLeadByte) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    v.add_byte_tokens();
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    const int32_t c3 = v.id("<0xC3>"), x61 = v.id("<0x61>");
    // "\xc3" says two bytes: it takes the a along, so "ab" cannot merge; the pair goes out as byte tokens
    EXPECT_EQ(tok->encode("\xc3" "ab", false), (Ids{3, c3, x61, 5}));
    EXPECT_EQ(tok->decode(tok->encode("\xc3" "ab", true)), "\xc3" "ab");
    // a lone lead byte at the end takes what is left
    EXPECT_EQ(tok->encode("b\xc3", false), (Ids{3, 5, c3}));
}

TEST(TokenizerCompat, TokensThatLookSpecialAreSpecial) {
    // normal tokens by type, but llama.cpp makes control tokens of these texts (and end-of-generation ones of
    // <|im_end|>), user-defined of <|channel|>
    VocabSpec     v       = gpt2_vocab({});
    const int32_t im_end  = v.add("<|im_end|>");
    const int32_t pre     = v.add("<PRE>");
    const int32_t channel = v.add("<|channel|>");
    const int32_t s_end   = v.add("</s>");
    const auto    tok     = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode("x<|im_end|><PRE><|channel|></s>", false), (Ids{'x', im_end, pre, channel, s_end}));
    EXPECT_TRUE(tok->is_eog(im_end));
    EXPECT_TRUE(tok->is_eog(s_end));
    EXPECT_FALSE(tok->is_eog(pre));
    EXPECT_EQ(tok->piece(pre), "");               // control: not printed
    EXPECT_EQ(tok->piece(channel), "<|channel|>"); // user-defined: printed
    // with <|tool_response>, </s> is an ordinary token (Gemma 4): spelt out by its characters
    v.add("<|tool_response>", 0.0f, kControl);
    const auto gemma = load(v);
    ASSERT_NE(gemma, nullptr);
    EXPECT_EQ(gemma->encode("</s>", false), (Ids{'<', '/', 's', '>'}));
    EXPECT_FALSE(gemma->is_eog(s_end));
}

TEST(TokenizerCompat, Phi3StripsTheSpaceAfterSpecialTokens) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    // after </s> the text " b" gets the space prefix again: ▁▁b; Phi-3 drops the space first: ▁b
    EXPECT_EQ(load(v)->encode("a</s> b", false), (Ids{3, 4, 2, 3, 3, 5}));
    v.name = "Phi-3 mini 4k";
    EXPECT_EQ(load(v)->encode("a</s> b", false), (Ids{3, 4, 2, 3, 5}));
    EXPECT_EQ(load(v)->encode("<s> a", false), (Ids{1, 3, 3, 4})); // not after <s>
}

} // namespace
