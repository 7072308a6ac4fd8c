// UTF-8, code point classes and GPT-2's byte table (unicode.h); the class table itself is unicode_classes.cpp.
#include "unicode.h"

#include <algorithm>

namespace switchyard::run {

namespace {

// the bytes GPT-2's table keeps as themselves
bool is_gpt2_printable(uint32_t b) {
    return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

bool is_continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

} // namespace

size_t utf8_char_len(std::string_view text, size_t pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    size_t     len  = 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        len = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        len = 3;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        len = 4;
    }
    if (pos + len > text.size()) {
        return 1;
    }
    for (size_t k = 1; k < len; ++k) {
        if (!is_continuation(static_cast<unsigned char>(text[pos + k]))) {
            return 1;
        }
    }
    return len;
}

uint32_t utf8_decode(std::string_view text, size_t pos, size_t len) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (len == 1) {
        return lead;
    }
    uint32_t cp = lead & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
        cp = (cp << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3F);
    }
    return cp;
}

size_t utf8_lead_len(unsigned char lead) {
    return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

std::vector<uint32_t> utf8_decode_lenient(std::string_view text) {
    constexpr uint32_t kReplacement = 0xFFFD;
    std::vector<uint32_t> cps;
    cps.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        const auto lead = static_cast<unsigned char>(text[pos]);
        if (lead < 0x80) {
            cps.push_back(lead);
            ++pos;
            continue;
        }
        // 0x80..0xBF and 0xF8..0xFF start nothing; the others need their continuation bytes, all present
        const size_t len = lead < 0xC0 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF8 ? 4 : 0;
        bool ok = len > 0 && pos + len <= text.size();
        for (size_t k = 1; ok && k < len; ++k) {
            ok = is_continuation(static_cast<unsigned char>(text[pos + k]));
        }
        if (!ok) {
            cps.push_back(kReplacement);
            ++pos;
            continue;
        }
        cps.push_back(utf8_decode(text, pos, len));
        pos += len;
    }
    return cps;
}

CharClass char_class(uint32_t cp) {
    const ClassRun * end = kClassRuns + kClassRunCount;
    const ClassRun * it  = std::upper_bound(kClassRuns, end, cp, [](uint32_t c, const ClassRun & r) { return c < r.first; });
    return cp > 0x10FFFF || it == kClassRuns ? CharClass::Other : (it - 1)->cls;
}

const std::array<std::string, 256> & gpt2_byte_to_unicode() {
    static const std::array<std::string, 256> table = [] {
        std::array<std::string, 256> t;
        uint32_t next = 256;
        for (uint32_t b = 0; b < 256; ++b) {
            utf8_append(t[b], is_gpt2_printable(b) ? b : next++);
        }
        return t;
    }();
    return table;
}

int gpt2_unicode_to_byte(uint32_t cp) {
    if (is_gpt2_printable(cp)) {
        return static_cast<int>(cp);
    }
    // the n-th byte outside the printable ranges is 256 + n
    static const std::array<uint8_t, 68> shifted = [] {
        std::array<uint8_t, 68> t{};
        size_t n = 0;
        for (uint32_t b = 0; b < 256; ++b) {
            if (!is_gpt2_printable(b)) {
                t[n++] = static_cast<uint8_t>(b);
            }
        }
        return t;
    }();
    return cp >= 256 && cp < 256 + shifted.size() ? shifted[cp - 256] : -1;
}

} // namespace switchyard::run
