// The pre-tokenizers' regular expressions (tools/run/tokenizer_regex.h) and the Unicode they read
// (tools/run/unicode.h): match lengths and classes worked out by hand.
#include "tokenizer_regex.h"
#include "unicode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using switchyard::run::CharClass;
using switchyard::run::Regex;
using switchyard::run::char_class;
using switchyard::run::utf8_decode_lenient;

std::vector<uint32_t> cps(const std::string & text) {
    return utf8_decode_lenient(text);
}

// The length of the match of pattern at text's code point pos (-1: none); the text searched ends at n code
// points (all of it when n is -1).
std::ptrdiff_t match(const std::string & pattern, const std::string & text, size_t pos = 0, std::ptrdiff_t n = -1) {
    std::string                error;
    const std::optional<Regex> regex = Regex::compile(pattern, error);
    EXPECT_TRUE(regex.has_value()) << error;
    if (!regex) {
        return -2;
    }
    const std::vector<uint32_t> c = cps(text);
    return regex->match(c.data(), n < 0 ? c.size() : static_cast<size_t>(n), pos);
}

std::string compile_error(const std::string & pattern) {
    std::string error;
    EXPECT_FALSE(Regex::compile(pattern, error).has_value()) << pattern;
    return error;
}

TEST(TokenizerRegex, AlternativesInOrderAndGreedyBacktracking) {
    EXPECT_EQ(match("a|ab", "ab"), 1); // the first alternative that matches, not the longest
    EXPECT_EQ(match("ab|a", "ab"), 2);
    EXPECT_EQ(match("a+ab", "aaab"), 4); // a+ gives back one a
    EXPECT_EQ(match("a*", "bbb"), 0);
    EXPECT_EQ(match("x|y", "z"), -1);
    EXPECT_EQ(match("(?:ab)+c", "ababc"), 5);
    EXPECT_EQ(match("(IMGIMG)((A|B|C){1,4})Z", "IMGIMGABCAZ"), 11);
    EXPECT_EQ(match("(IMGIMG)((A|B|C){1,4})Z", "IMGIMGABCABZ"), -1); // five letters
}

TEST(TokenizerRegex, CountedRepeats) {
    EXPECT_EQ(match("\\p{N}{1,3}", "12345"), 3);
    EXPECT_EQ(match("\\p{N}{1,3}", "1x"), 1);
    EXPECT_EQ(match("a{2}", "aaa"), 2);
    EXPECT_EQ(match("a{2}", "a"), -1);
    EXPECT_EQ(match("a{2,}", "aaaa"), 4);
    EXPECT_EQ(match("\\s{4}(?!\\S)|\\s{1,2}(?!\\S)", "     x"), 4); // five spaces: four, then one is left
}

TEST(TokenizerRegex, LookaheadsAndTheEnd) {
    EXPECT_EQ(match("\\s+(?!\\S)", "   x"), 2); // the last space stays with the x
    EXPECT_EQ(match("\\s+(?!\\S)", "   "), 3);
    EXPECT_EQ(match("\\s+(?!\\S)", " x"), -1);
    EXPECT_EQ(match("a(?=b)", "ab"), 1);
    EXPECT_EQ(match("a(?=b)", "ac"), -1);
    EXPECT_EQ(match("a(?!b)", "ab", 0, 1), 1); // the text searched ends before the b
    EXPECT_EQ(match("\\s+$", "a  ", 1), 2);
    EXPECT_EQ(match("\\s+$", "  a"), -1);
    EXPECT_EQ(match("((?=[\\p{L}])([^a-z]))+", "AB\xc3\x89" "cd"), 3); // letters that are no a-z: A B É
}

TEST(TokenizerRegex, ClassesAndEscapes) {
    EXPECT_EQ(match("[^\\s\\p{L}\\p{N}]+", "!?\xe2\x80\x94" "a"), 3); // ! ? and the em dash
    EXPECT_EQ(match("[^\\r\\n\\p{L}\\p{N}]?\\p{L}+", "\nab"), -1);
    EXPECT_EQ(match("[^\\r\\n\\p{L}\\p{N}]?\\p{L}+", "\tab"), 3);
    EXPECT_EQ(match("\\$\\+\\^\\|\\\\", "$+^|\\"), 5);
    EXPECT_EQ(match("[\\p{P}\\$\\+<=>\\^~\\|`]+", "<=>`!a"), 5);
    EXPECT_EQ(match("[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+", "\\abc"), 4);
    EXPECT_EQ(match("[\\p{P}!-/:-@\\[-`{-~]", "^"), 1);
    EXPECT_EQ(match("[\\t\\n]|    |  ", "   "), 2);
    EXPECT_EQ(match("[\xe4\xb8\x80-\xe9\xbe\xa5]+", "\xe4\xb8\xad\xe6\x96\x87" "a"), 2); // [一-龥]+ on 中文a
    EXPECT_EQ(match("\\d+", "12\xd9\xa3"), 2);        // \d is 0-9 only: not U+0663
    EXPECT_EQ(match("\\p{N}+", "12\xd9\xa3"), 3);     // \p{N} takes it
    EXPECT_EQ(match("[\\p{Lu}]+", "aB"), 2);          // \p{Lu} is every letter, as llama.cpp reads it
    EXPECT_EQ(match("\\S+", "ab c"), 2);
    EXPECT_EQ(match(" ?[^(\\s|.,!?\xe2\x80\xa6)]+", " ab(c"), 3);
}

TEST(TokenizerRegex, RefusedPatterns) {
    EXPECT_NE(compile_error("(a").find("without ')'"), std::string::npos);
    EXPECT_NE(compile_error("a)").find("unbalanced"), std::string::npos);
    EXPECT_NE(compile_error("[ab").find("without ']'"), std::string::npos);
    EXPECT_NE(compile_error("(a*)*").find("can match nothing"), std::string::npos);
    EXPECT_NE(compile_error("a+?").find("lazy"), std::string::npos);
    EXPECT_NE(compile_error("\\p{Han}+").find("\\p{Han}"), std::string::npos);
    EXPECT_NE(compile_error("\\bx").find("\\b"), std::string::npos);
    EXPECT_NE(compile_error("*a").find("unexpected '*'"), std::string::npos);
    EXPECT_NE(compile_error("[z-a]").find("out of order"), std::string::npos);
    EXPECT_NE(compile_error("a{3,1}").find("{n,m}"), std::string::npos);
    EXPECT_NE(compile_error("(?<=a)b").find("(?"), std::string::npos);
}

TEST(Unicode, ClassesOfUnicode15_1) {
    EXPECT_EQ(char_class('A'), CharClass::Letter);
    EXPECT_EQ(char_class('5'), CharClass::Number);
    EXPECT_EQ(char_class('!'), CharClass::Punctuation);
    EXPECT_EQ(char_class('$'), CharClass::Symbol);
    EXPECT_EQ(char_class(' '), CharClass::Space);
    EXPECT_EQ(char_class('\t'), CharClass::Space);
    EXPECT_EQ(char_class(0x1F), CharClass::Other);   // a control that is no whitespace
    EXPECT_EQ(char_class(0x85), CharClass::Space);   // NEXT LINE
    EXPECT_EQ(char_class(0xA0), CharClass::Space);   // NO-BREAK SPACE
    EXPECT_EQ(char_class(0x301), CharClass::Mark);   // COMBINING ACUTE ACCENT
    EXPECT_EQ(char_class(0x915), CharClass::Letter); // DEVANAGARI LETTER KA
    EXPECT_EQ(char_class(0x93E), CharClass::Mark);   // DEVANAGARI VOWEL SIGN AA (Mc)
    EXPECT_EQ(char_class(0x663), CharClass::Number); // ARABIC-INDIC DIGIT THREE
    EXPECT_EQ(char_class(0x2164), CharClass::Number); // ROMAN NUMERAL FIVE (Nl)
    EXPECT_EQ(char_class(0x200B), CharClass::Other); // ZERO WIDTH SPACE (Cf, no whitespace)
    EXPECT_EQ(char_class(0x2014), CharClass::Punctuation);
    EXPECT_EQ(char_class(0x1F600), CharClass::Symbol); // GRINNING FACE
    EXPECT_EQ(char_class(0x0378), CharClass::Other);   // unassigned
    EXPECT_EQ(char_class(0x2EBF0), CharClass::Letter); // CJK Extension I, new in Unicode 15.1
    EXPECT_EQ(char_class(0x1FAE9), CharClass::Other);  // assigned in Unicode 16.0: not yet
    EXPECT_EQ(char_class(0xD800), CharClass::Other);   // a surrogate
    EXPECT_EQ(char_class(0x10FFFF), CharClass::Other);
    EXPECT_EQ(char_class(0x110000), CharClass::Other);
}

TEST(Unicode, LenientDecodingAsLlamaCpp) {
    using V = std::vector<uint32_t>;
    EXPECT_EQ(cps("a\xc3\xa9"), (V{'a', 0xE9}));
    EXPECT_EQ(cps("a\xff"), (V{'a', 0xFFFD}));
    EXPECT_EQ(cps("\xc3"), (V{0xFFFD}));                    // cut short
    EXPECT_EQ(cps("\xc3" "a"), (V{0xFFFD, 'a'}));
    EXPECT_EQ(cps("\xe2\x82"), (V{0xFFFD, 0xFFFD}));         // the lead, then the stray continuation byte
    EXPECT_EQ(cps("\xc0\x80"), (V{0}));                      // overlong, taken as it says
    EXPECT_EQ(cps("\xed\xa0\x80"), (V{0xD800}));              // a surrogate
    EXPECT_EQ(cps("\xf4\x90\x80\x80"), (V{0x110000}));        // past U+10FFFF
    EXPECT_EQ(cps("\xf8\x88\x80\x80\x80"), (V(5, 0xFFFD))); // no five-byte forms
    EXPECT_EQ(switchyard::run::utf8_lead_len(0x7F), 1u);
    EXPECT_EQ(switchyard::run::utf8_lead_len(0xBF), 1u);
    EXPECT_EQ(switchyard::run::utf8_lead_len(0xC0), 2u);
    EXPECT_EQ(switchyard::run::utf8_lead_len(0xEF), 3u);
    EXPECT_EQ(switchyard::run::utf8_lead_len(0xFF), 4u);
}

} // namespace
