// switchyard-run: the generated text made safe to stream to a terminal, piece by piece. A token's piece may end
// in the middle of a UTF-8 character (byte tokens, or BPE pieces that split one): as llama.cpp does, the bytes
// of an incomplete character are held back until the next piece completes it. Bytes that cannot form a
// character (a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, a sequence
// cut short) become U+FFFD, one per maximal ill-formed part as Unicode recommends. Control characters other
// than newline and tab are written as escapes: C0 and DEL as \xNN, C1 (U+0080..U+009F) as \u00NN.
// Also: the display width of text, for tables.
#pragma once

#include <string>
#include <string_view>

namespace switchyard::run {

class TextStream {
public:
    // The text that can be written now for `piece` appended to what was held back; keeps the bytes of a
    // character that may still be completed.
    std::string push(std::string_view piece);

    // What is left at the end of the text: an incomplete character as U+FFFD, or "".
    std::string flush();

    // true while bytes are held back
    bool pending() const { return !held_.empty(); }

private:
    std::string held_;
};

// The whole of text through a fresh TextStream (push then flush).
std::string sanitize_text(std::string_view text);

// The columns text takes on a terminal, for aligning tables: one per character, two for the East Asian wide and
// fullwidth ones (CJK, Hangul, fullwidth forms, most emoji), none for combining marks (U+0300..U+036F,
// U+20D0..U+20FF, U+FE20..U+FE2F) and zero-width characters (U+200B..U+200F); a byte that starts no valid
// character counts one (it is shown as U+FFFD).
size_t display_width(std::string_view text);

} // namespace switchyard::run
