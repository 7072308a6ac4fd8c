// UTF-8 encoding of one code point, shared by the model writer's JSON reader (json.cpp: \u escapes) and the
// runner's tokenizer (run/unicode.cpp), which sits above it. Header-only.
#pragma once

#include <cstdint>
#include <string>

namespace switchyard {

// Appends code point cp to out as one to four UTF-8 bytes (cp <= 0x1FFFFF: four bytes above 0xFFFF, as written,
// even past U+10FFFF).
inline void utf8_append(std::string & out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

} // namespace switchyard
