#include "text_stream.h"

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <utility>

namespace switchyard::run {

namespace {

constexpr const char * kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// The length of the character a lead byte starts and the range its second byte must fall in (Unicode's table
// of well-formed UTF-8 byte sequences); 0 for a byte that starts none.
struct Lead {
    int           len;
    unsigned char lo, hi;
};

Lead lead_of(unsigned char b) {
    if (b >= 0xC2 && b <= 0xDF) { return {2, 0x80, 0xBF}; }
    if (b == 0xE0) { return {3, 0xA0, 0xBF}; }
    if (b == 0xED) { return {3, 0x80, 0x9F}; } // no surrogates
    if (b >= 0xE1 && b <= 0xEF) { return {3, 0x80, 0xBF}; }
    if (b == 0xF0) { return {4, 0x90, 0xBF}; }
    if (b >= 0xF1 && b <= 0xF3) { return {4, 0x80, 0xBF}; }
    if (b == 0xF4) { return {4, 0x80, 0x8F}; } // at most U+10FFFF
    return {0, 0, 0};
}

void append_ascii(std::string & out, unsigned char c) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
        char esc[8];
        std::snprintf(esc, sizeof(esc), "\\x%02x", c);
        out += esc;
    } else {
        out += static_cast<char>(c);
    }
}

} // namespace

std::string TextStream::push(std::string_view piece) {
    held_.append(piece);
    std::string  out;
    const size_t n = held_.size();
    size_t       i = 0;
    while (i < n) {
        const auto b = static_cast<unsigned char>(held_[i]);
        if (b < 0x80) {
            append_ascii(out, b);
            ++i;
            continue;
        }
        const Lead lead = lead_of(b);
        if (lead.len == 0) {
            out += kReplacement;
            ++i;
            continue;
        }
        // the bytes that continue the character well, up to its length or the end of what we have
        size_t good = 1;
        while (good < static_cast<size_t>(lead.len) && i + good < n) {
            const auto c  = static_cast<unsigned char>(held_[i + good]);
            const bool ok = good == 1 ? c >= lead.lo && c <= lead.hi : c >= 0x80 && c <= 0xBF;
            if (!ok) {
                break;
            }
            ++good;
        }
        if (good == static_cast<size_t>(lead.len)) {
            if (b == 0xC2 && static_cast<unsigned char>(held_[i + 1]) <= 0x9F) { // C1 control U+0080..U+009F
                char esc[8];
                std::snprintf(esc, sizeof(esc), "\\u%04x", static_cast<unsigned char>(held_[i + 1]));
                out += esc;
            } else {
                out.append(held_, i, good);
            }
            i += good;
        } else if (i + good == n) { // cut short by the end of the piece: wait for the next one
            break;
        } else {
            out += kReplacement; // the maximal ill-formed part
            i += good;
        }
    }
    held_.erase(0, i);
    return out;
}

std::string TextStream::flush() {
    const bool had = !held_.empty();
    held_.clear();
    return had ? kReplacement : "";
}

namespace {

bool in_ranges(uint32_t cp, std::initializer_list<std::pair<uint32_t, uint32_t>> ranges) {
    for (const auto & [lo, hi] : ranges) {
        if (cp >= lo && cp <= hi) {
            return true;
        }
    }
    return false;
}

size_t columns_of(uint32_t cp) {
    if (in_ranges(cp, {{0x0300, 0x036F}, {0x200B, 0x200F}, {0x20D0, 0x20FF}, {0xFE20, 0xFE2F}})) {
        return 0;
    }
    if (in_ranges(cp, {{0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
                       {0xA000, 0xA4CF}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF60},
                       {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD}})) {
        return 2;
    }
    return 1;
}

} // namespace

size_t display_width(std::string_view text) {
    size_t width = 0;
    for (size_t i = 0; i < text.size();) {
        const auto b    = static_cast<unsigned char>(text[i]);
        const Lead lead = lead_of(b);
        size_t     len  = b < 0x80 ? 1 : static_cast<size_t>(lead.len);
        bool       ok   = len >= 1 && i + len <= text.size();
        for (size_t k = 1; ok && k < len; ++k) {
            const auto c = static_cast<unsigned char>(text[i + k]);
            ok           = k == 1 ? c >= lead.lo && c <= lead.hi : c >= 0x80 && c <= 0xBF;
        }
        if (!ok) {
            ++width;
            ++i;
            continue;
        }
        uint32_t cp = len == 1 ? b : b & (0x7Fu >> len);
        for (size_t k = 1; k < len; ++k) {
            cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
        }
        width += columns_of(cp);
        i += len;
    }
    return width;
}

std::string sanitize_text(std::string_view text) {
    TextStream s;
    std::string out = s.push(text);
    return out + s.flush();
}

} // namespace switchyard::run
