// The Unicode the tokenizers need: UTF-8 stepping, a coarse class per code point, GPT-2's byte-to-unicode table
// and the GPT-2 pre-tokenizer.
//
// The classes approximate the Unicode general categories that GPT-2's pattern asks for (\p{L}, \p{N}, \s) with a
// short table instead of the full Unicode database:
//   - ASCII exactly: A-Z a-z letters, 0-9 digits, \t \n \v \f \r and space whitespace, the rest other;
//   - non-ASCII whitespace: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000;
//   - non-ASCII numbers: superscript/subscript digits, vulgar fractions, the decimal digits of the common scripts
//     (Arabic, Devanagari ... Thai, fullwidth), number forms, circled numbers, CJK numerals such as U+3007;
//   - non-ASCII "other" (neither letter, number nor space): Latin-1 punctuation and symbols, combining marks
//     (U+0300-U+036F, which \p{L} does not include either), general punctuation, currency, arrows, mathematical
//     and technical symbols, box drawing, dingbats, CJK punctuation, fullwidth punctuation, emoji;
//   - every other code point is a letter.
// Text that is not valid UTF-8 is taken a byte at a time; a stray byte is "other".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard::run {

// The length in bytes of the UTF-8 character starting at text[pos] (1 for a byte that starts no valid one, at
// most the bytes left).
size_t utf8_char_len(std::string_view text, size_t pos);

// The code point of the UTF-8 character at text[pos] of length utf8_char_len (the byte itself when invalid).
uint32_t utf8_decode(std::string_view text, size_t pos, size_t len);

// Appends the UTF-8 encoding of cp.
void utf8_append(std::string & out, uint32_t cp);

enum class CharClass : uint8_t { Letter, Number, Space, Other };

CharClass char_class(uint32_t cp);

// GPT-2's table: every byte as a printable code point (33-126, 161-172, 174-255 as themselves, the other 68
// bytes as 256, 257, ... in byte order), as UTF-8.
const std::array<std::string, 256> & gpt2_byte_to_unicode();

// The byte a code point of that table stands for, -1 for a code point outside it.
int gpt2_unicode_to_byte(uint32_t cp);

// Splits text as GPT-2's pattern does:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (with char_class for the classes). The parts concatenate to text.
std::vector<std::string_view> gpt2_pre_tokenize(std::string_view text);

} // namespace switchyard::run
