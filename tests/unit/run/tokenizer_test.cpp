// The tokenizers of switchyard-run (tools/run/tokenizer.h) on small vocabularies built into a gguf_context here.
// Expected ids are worked out by hand from each vocabulary, never produced by the code under test.
#include "tokenizer_spec.h"
#include "tokenizer_vocab.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace tokenizer_test;

// ---- llama (SentencePiece-style) ----

TEST(LlamaTokenizer, MergesTheHighestScoringPairFirst) {
    const auto ab_first = load(abc_vocab(-3.0f, -4.0f));
    ASSERT_NE(ab_first, nullptr);
    EXPECT_EQ(ab_first->encode("abc", false), (Ids{3, 7, 6}));   // ▁ ab c
    const auto bc_first = load(abc_vocab(-4.0f, -3.0f));
    ASSERT_NE(bc_first, nullptr);
    EXPECT_EQ(bc_first->encode("abc", false), (Ids{3, 4, 8}));   // ▁ a bc
    const auto tie = load(abc_vocab(-3.0f, -3.0f));
    ASSERT_NE(tie, nullptr);
    EXPECT_EQ(tie->encode("abc", false), (Ids{3, 7, 6}));        // ties: the leftmost pair
    EXPECT_STREQ(tie->kind(), "llama");
    EXPECT_EQ(tie->n_vocab(), 9);
}

TEST(LlamaTokenizer, MergesChainAcrossTheWholeText) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    const int32_t space_a = v.add(kMark + "a", -1.5f);
    const int32_t space_ab = v.add(kMark + "ab", -0.5f);
    const int32_t space_c = v.add(kMark + "c", -1.5f);
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    // "▁ab▁c": ▁a (-1.5) and ▁c (-1.5) beat ab (-3): ▁a first (leftmost), then ▁ab (-0.5), then ▁c
    EXPECT_EQ(tok->encode("ab c", false), (Ids{space_ab, space_c}));
    EXPECT_EQ(tok->encode("a", false), (Ids{space_a}));
}

TEST(LlamaTokenizer, ByteFallbackForCharactersThatAreNoToken) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    v.add_byte_tokens();
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    const int32_t c3 = v.id("<0xC3>"), a9 = v.id("<0xA9>");
    EXPECT_EQ(tok->encode("\xc3\xa9", false), (Ids{3, c3, a9})); // ▁ <0xC3> <0xA9>
    EXPECT_EQ(tok->encode("a\xc3\xa9" "b", false), (Ids{3, 4, c3, a9, 5}));
    const int32_t e2 = v.id("<0xE2>"), x98 = v.id("<0x98>"), x83 = v.id("<0x83>");
    EXPECT_EQ(tok->encode("\xe2\x98\x83", false), (Ids{3, e2, x98, x83})); // U+2603 snowman
    EXPECT_EQ(tok->piece(c3), "\xc3");
    EXPECT_EQ(tok->piece(a9), "\xa9");
}

TEST(LlamaTokenizer, UnknownTokenWithoutByteTokens) {
    VocabSpec  v   = abc_vocab(-3.0f, -4.0f);
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode("a\xc3\xa9" "b", false), (Ids{3, 4, 0, 5})); // one <unk> for the character
    EXPECT_EQ(tok->piece(0), "\xe2\x96\x85");                          // as llama.cpp prints <unk>
    v.unk = -1;
    const auto no_unk = load(v);
    ASSERT_NE(no_unk, nullptr);
    EXPECT_EQ(no_unk->encode("a\xc3\xa9" "b", false), (Ids{3, 4, 5})); // dropped
}

TEST(LlamaTokenizer, BosOnRequestWhenTheFileAsksForIt) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    const auto by_default = load(v); // add_bos_token absent: true for llama
    ASSERT_NE(by_default, nullptr);
    EXPECT_EQ(by_default->encode("a", true), (Ids{1, 3, 4}));
    EXPECT_EQ(by_default->encode("a", false), (Ids{3, 4}));
    EXPECT_EQ(by_default->encode("", true), (Ids{1}));
    EXPECT_EQ(by_default->encode("", false), (Ids{}));
    EXPECT_EQ(by_default->bos(), 1);
    EXPECT_EQ(by_default->eos(), 2);
    v.add_bos = false;
    const auto never = load(v);
    ASSERT_NE(never, nullptr);
    EXPECT_EQ(never->encode("a", true), (Ids{3, 4}));
}

TEST(LlamaTokenizer, LeadingSpaces) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode(" a", false), (Ids{3, 3, 4}));       // ▁▁a: the prefix and the text's own space
    EXPECT_EQ(tok->encode("a  b", false), (Ids{3, 4, 3, 3, 5})); // ▁a▁▁b
    EXPECT_EQ(tok->decode(tok->encode(" a", true)), " a");
    const int32_t two_marks = v.add(kMark + kMark, 0.0f);
    const auto with_pair = load(v);
    ASSERT_NE(with_pair, nullptr);
    EXPECT_EQ(with_pair->encode(" a", false), (Ids{two_marks, 4}));
    v.add_space_prefix = false;
    const auto no_prefix = load(v);
    ASSERT_NE(no_prefix, nullptr);
    EXPECT_EQ(no_prefix->encode("a b", false), (Ids{4, 3, 5}));
    EXPECT_EQ(no_prefix->decode(no_prefix->encode(" a b", false)), " a b");
}

TEST(LlamaTokenizer, PiecesAndRoundTrip) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    v.add_byte_tokens();
    // a merge path for each: he, ll -> hell -> hello -> ▁hello; wo -> wor -> ▁wor; ld
    const std::vector<std::string> words = {"he", "ll", "hell", "hello", kMark + "hello",
                                            "wo", "wor", kMark + "wor", "ld"};
    for (const std::string & word : words) {
        v.add(word, -1.0f);
    }
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->piece(v.id(kMark + "hello")), " hello");
    EXPECT_EQ(tok->piece(v.id("ll")), "ll");
    EXPECT_EQ(tok->piece(1), "");  // control
    EXPECT_EQ(tok->piece(-1), ""); // out of range
    EXPECT_EQ(tok->piece(99999), "");
    for (const std::string text : {"hello world", "Hello, World!\n\tTabs and  spaces ", "h\xc3\xa9llo w\xc3\xb6rld",
                                   "\xe2\x98\x83 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80", "x", ""}) {
        EXPECT_EQ(tok->decode(tok->encode(text, true)), text) << text;
        EXPECT_EQ(tok->decode(tok->encode(text, false)), text) << text;
    }
    EXPECT_EQ(tok->encode("hello world", false), (Ids{v.id(kMark + "hello"), v.id(kMark + "wor"), v.id("ld")}));
}

TEST(LlamaTokenizer, SpecialTokensInTheText) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    const int32_t eot = v.add("<|eot_id|>", 0.0f, kControl);
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    // a control token spelled in the text is that token; the plain text after it gets the space prefix again
    EXPECT_EQ(tok->encode("a</s>b", false), (Ids{3, 4, 2, 3, 5}));
    EXPECT_EQ(tok->encode("<s>a", false), (Ids{1, 3, 4}));
    EXPECT_EQ(tok->encode("a<|eot_id|>", false), (Ids{3, 4, eot}));
    EXPECT_EQ(tok->encode("<unk>", false), (Ids{0})); // the unknown token too, as llama.cpp
    EXPECT_TRUE(tok->is_eog(2));
    EXPECT_TRUE(tok->is_eog(eot));
    EXPECT_FALSE(tok->is_eog(1));
    EXPECT_FALSE(tok->is_eog(4));
    EXPECT_EQ(tok->piece(eot), "");
}

// The vocabulary switchyard-make-model writes (tools/model_writer/model.cpp, vocabulary() and set_metadata()),
// rebuilt here: <unk> <s> </s>, the 256 byte tokens, then ▁a .. ▁z, ▁aa, ... with scores -(i - 259).
VocabSpec make_model_vocab(int64_t n) {
    VocabSpec v;
    v.add("<unk>", 0.0f, kUnknown);
    v.add("<s>", 0.0f, kControl);
    v.add("</s>", 0.0f, kControl);
    v.add_byte_tokens();
    for (int64_t i = 0; static_cast<int64_t>(v.tokens.size()) < n; ++i) {
        std::string piece;
        for (int64_t k = i;; k = k / 26 - 1) {
            piece.insert(piece.begin(), static_cast<char>('a' + k % 26));
            if (k < 26) {
                break;
            }
        }
        v.add(kMark + piece, -static_cast<float>(v.tokens.size() - 259));
    }
    v.unk = 0;
    v.bos = 1;
    v.eos = 2;
    v.add_bos = true;
    return v;
}

TEST(LlamaTokenizer, MakeModelVocabulary) {
    const VocabSpec v = make_model_vocab(320);
    ASSERT_EQ(v.tokens[259], kMark + "a");
    ASSERT_EQ(v.tokens[285], kMark + "aa");
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->encode("a b", true), (Ids{1, 259, 260}));
    EXPECT_EQ(tok->encode("aa", true), (Ids{1, 285}));                           // ▁a (0) then ▁aa (-26)
    EXPECT_EQ(tok->encode("hello", false), (Ids{266, 3 + 'e', 3 + 'l', 3 + 'l', 3 + 'o'})); // ▁h, then bytes
    EXPECT_EQ(tok->encode("Hi", false), (Ids{3 + 0xE2, 3 + 0x96, 3 + 0x81, 3 + 'H', 3 + 'i'})); // no ▁H: ▁ too
    EXPECT_EQ(tok->decode(tok->encode("hello, big world\n", true)), "hello, big world\n");
    EXPECT_EQ(tok->decode(tok->encode("Hi 42", true)), "Hi 42"); // U+2581 spelled by byte tokens: a space
    EXPECT_EQ(tok->piece(3 + 0xE2), "\xe2");
    EXPECT_TRUE(tok->is_eog(2));
    EXPECT_EQ(tok->n_vocab(), 320);
}

// A long text (4 KiB, about 1000 tokens) round-trips through encode and decode. Its speed is measured by
// bench/ (no timed assertions in tests: CI machines are shared and noisy).
TEST(LlamaTokenizer, EncodesAndDecodesFourKilobytes) {
    const auto tok = load(make_model_vocab(32000));
    ASSERT_NE(tok, nullptr);
    std::string text;
    while (text.size() < 4096) {
        text += "the quick brown fox jumps over a lazy dog, caf\xc3\xa9 na\xc3\xafve 12345; ";
    }
    const Ids ids = tok->encode(text, true);
    EXPECT_GT(ids.size(), 1000u);
    EXPECT_EQ(tok->decode(ids), text);
}

// ---- gpt2 (byte-level BPE) ----

TEST(Gpt2ByteTable, PrintableBytesStayOthersShift) {
    const auto & table = switchyard::run::gpt2_byte_to_unicode();
    EXPECT_EQ(table['A'], "A");
    EXPECT_EQ(table[' '], "\xc4\xa0");  // U+0120 "Ġ"
    EXPECT_EQ(table['\n'], "\xc4\x8a"); // U+010A "Ċ"
    EXPECT_EQ(table[0], "\xc4\x80");    // U+0100
    EXPECT_EQ(table[0xAD], "\xc5\x83"); // U+0143, the last shifted byte (68th)
    for (int b = 0; b < 256; ++b) {
        const std::string & s = table[static_cast<size_t>(b)];
        const size_t len = switchyard::run::utf8_char_len(s, 0);
        ASSERT_EQ(len, s.size());
        EXPECT_EQ(switchyard::run::gpt2_unicode_to_byte(switchyard::run::utf8_decode(s, 0, len)), b);
    }
}

TEST(Gpt2Tokenizer, MergesByRank) {
    const VocabSpec bc_first = gpt2_vocab({"b c", "a b"});
    const auto tok1 = load(bc_first);
    ASSERT_NE(tok1, nullptr);
    EXPECT_EQ(tok1->encode("abc", false), (Ids{'a' , bc_first.id("bc")}));
    const VocabSpec ab_first = gpt2_vocab({"a b", "b c"});
    const auto tok2 = load(ab_first);
    ASSERT_NE(tok2, nullptr);
    EXPECT_EQ(tok2->encode("abc", false), (Ids{ab_first.id("ab"), 'c'}));
    EXPECT_STREQ(tok2->kind(), "gpt2");
}

TEST(Gpt2Tokenizer, MergesWithinPartsOnly) {
    const std::string G = "\xc4\xa0"; // Ġ, the space
    const VocabSpec v = gpt2_vocab({"h e", "l l", "he ll", "hell o", G + " w", G + "w o"});
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    // "hello" -> he, ll -> hell -> hello; " wor" -> Ġw -> Ġwo, r; the "o" of hello never merges with the space
    EXPECT_EQ(tok->encode("hello wor", false), (Ids{v.id("hello"), v.id(G + "wo"), 'r'}));
    EXPECT_EQ(tok->encode("hello", true), (Ids{v.id("hello")})); // add_bos_token absent: false for gpt2
}

TEST(Gpt2Tokenizer, RoundTripAndSpecialTokens) {
    const VocabSpec v = gpt2_vocab({"t h", "th e", "\xc4\xa0 the"});
    const auto tok = load(v);
    ASSERT_NE(tok, nullptr);
    const std::vector<std::string> texts = {"the cat's 3 hats, and  the rest!\n", "h\xc3\xa9llo \xe2\x98\x83\t\r\n",
                                            std::string("\0\x01\x7f", 3), ""};
    for (const std::string & text : texts) {
        EXPECT_EQ(tok->decode(tok->encode(text, false)), text);
    }
    // malformed UTF-8 is read as U+FFFD (as llama.cpp reads it), which then comes back
    EXPECT_EQ(tok->decode(tok->encode("a\xff" "b\xc3", false)), "a\xef\xbf\xbd" "b\xef\xbf\xbd");
    const int32_t eot = v.id("<|endoftext|>");
    EXPECT_EQ(tok->encode("the<|endoftext|> the", false), (Ids{v.id("the"), eot, v.id("\xc4\xa0the")}));
    EXPECT_EQ(tok->piece(eot), "");
    EXPECT_EQ(tok->piece(v.id("\xc4\xa0the")), " the");
    EXPECT_TRUE(tok->is_eog(eot));
    EXPECT_FALSE(tok->is_eog(v.id("the")));
    EXPECT_EQ(tok->encode("x", true), (Ids{'x'}));
    VocabSpec with_bos = v;
    with_bos.add_bos = true;
    const auto tok_bos = load(with_bos);
    ASSERT_NE(tok_bos, nullptr);
    EXPECT_EQ(tok_bos->encode("x", true), (Ids{eot, 'x'}));
}

// Random strings of awkward pieces (spaces, contractions, digits, punctuation, multi-byte and invalid UTF-8)
// decode back to themselves through both kinds (gpt2: with each malformed byte as U+FFFD, as llama.cpp reads it).
TEST(TokenizerRoundTrip, RandomText) {
    VocabSpec llama = abc_vocab(-3.0f, -4.0f);
    llama.add_byte_tokens();
    const auto spm = load(llama);
    const auto bpe = load(gpt2_vocab({"t h", "th e", "\xc4\xa0 the", "' s"}));
    ASSERT_NE(spm, nullptr);
    ASSERT_NE(bpe, nullptr);
    const std::vector<std::string> alphabet = {"a", "b", "c", "the", " ", "  ", "\n", "\t", "'s", "'", "42", ",",
                                               "!", "\xc3\xa9", "\xe2\x98\x83", "\xf0\x9f\x98\x80", "\xff",
                                               "\xc3", "\xd9\xa3", "\xc2\xa0"};
    // gpt2 reads the two malformed pieces as U+FFFD (no piece starts with a continuation byte that would complete
    // the lone \xc3)
    const auto bpe_text = [](const std::string & piece) {
        return piece == "\xff" || piece == "\xc3" ? std::string("\xef\xbf\xbd") : piece;
    };
    uint32_t state = 12345;
    for (int n = 0; n < 300; ++n) {
        std::string text, bpe_expected;
        const int   len = n % 12;
        for (int k = 0; k < len; ++k) {
            state = state * 1664525u + 1013904223u;
            text += alphabet[(state >> 16) % alphabet.size()];
            bpe_expected += bpe_text(alphabet[(state >> 16) % alphabet.size()]);
        }
        EXPECT_EQ(spm->decode(spm->encode(text, true)), text);
        EXPECT_EQ(bpe->decode(bpe->encode(text, true)), bpe_expected);
    }
}

// ---- errors ----

TEST(TokenizerErrors, UnsupportedModelNamesIt) {
    VocabSpec v = abc_vocab(-3.0f, -4.0f);
    v.model = "bert";
    const std::string error = load_error(make_gguf(v));
    EXPECT_NE(error.find("'bert'"), std::string::npos) << error;
}

TEST(TokenizerErrors, MissingAndMalformedKeys) {
    GgufPtr empty(gguf_init_empty());
    EXPECT_NE(load_error(empty).find("tokenizer.ggml.model"), std::string::npos);
    std::string error;
    EXPECT_EQ(Tokenizer::from_gguf(nullptr, error), nullptr);
    EXPECT_FALSE(error.empty());

    const VocabSpec good = abc_vocab(-3.0f, -4.0f);
    GgufPtr short_scores = make_gguf(good);
    const float two[2] = {0.0f, 0.0f};
    gguf_set_arr_data(short_scores.get(), "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, two, 2);
    EXPECT_NE(load_error(short_scores).find("tokenizer.ggml.scores"), std::string::npos);

    GgufPtr short_types = make_gguf(good);
    const int32_t types[2] = {1, 1};
    gguf_set_arr_data(short_types.get(), "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, 2);
    EXPECT_NE(load_error(short_types).find("tokenizer.ggml.token_type"), std::string::npos);

    GgufPtr no_scores = make_gguf(good);
    gguf_remove_key(no_scores.get(), "tokenizer.ggml.scores");
    EXPECT_NE(load_error(no_scores).find("tokenizer.ggml.scores"), std::string::npos);

    GgufPtr no_tokens = make_gguf(good);
    gguf_remove_key(no_tokens.get(), "tokenizer.ggml.tokens");
    EXPECT_NE(load_error(no_tokens).find("tokenizer.ggml.tokens"), std::string::npos);

    GgufPtr bad_bos = make_gguf(good);
    gguf_set_val_u32(bad_bos.get(), "tokenizer.ggml.bos_token_id", 9);
    EXPECT_NE(load_error(bad_bos).find("tokenizer.ggml.bos_token_id"), std::string::npos);

    GgufPtr wrong_type = make_gguf(good);
    gguf_set_val_str(wrong_type.get(), "tokenizer.ggml.add_bos_token", "yes");
    EXPECT_NE(load_error(wrong_type).find("tokenizer.ggml.add_bos_token"), std::string::npos);
}

TEST(TokenizerErrors, Gpt2Merges) {
    VocabSpec v = gpt2_vocab({"a b"});
    GgufPtr no_merges = make_gguf(v);
    gguf_remove_key(no_merges.get(), "tokenizer.ggml.merges");
    EXPECT_NE(load_error(no_merges).find("tokenizer.ggml.merges"), std::string::npos);
    v.merges.push_back("abc");
    const std::string error = load_error(make_gguf(v));
    EXPECT_NE(error.find("merge 1 'abc'"), std::string::npos) << error;
}

} // namespace
