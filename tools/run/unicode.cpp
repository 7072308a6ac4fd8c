// UTF-8, code point classes, GPT-2's byte table and pre-tokenizer (see unicode.h for the approximation made).
#include "unicode.h"

#include <algorithm>

namespace switchyard::run {

namespace {

struct Range {
    uint32_t  first;
    uint32_t  last;
    CharClass cls;
};

constexpr CharClass S = CharClass::Space;
constexpr CharClass N = CharClass::Number;
constexpr CharClass O = CharClass::Other;

// Non-ASCII code points that are not letters, sorted and disjoint; everything else beyond ASCII is a letter.
constexpr Range kRanges[] = {
    {0x0080, 0x0084, O}, {0x0085, 0x0085, S}, {0x0086, 0x009F, O}, {0x00A0, 0x00A0, S}, {0x00A1, 0x00A9, O},
    {0x00AB, 0x00B1, O}, {0x00B2, 0x00B3, N}, {0x00B4, 0x00B4, O}, {0x00B6, 0x00B8, O}, {0x00B9, 0x00B9, N},
    {0x00BB, 0x00BB, O}, {0x00BC, 0x00BE, N}, {0x00BF, 0x00BF, O}, {0x00D7, 0x00D7, O}, {0x00F7, 0x00F7, O},
    {0x02C2, 0x02C5, O}, {0x02D2, 0x02DF, O}, {0x02E5, 0x02EB, O}, {0x02ED, 0x02ED, O}, {0x02EF, 0x036F, O},
    {0x037E, 0x037E, O}, {0x0387, 0x0387, O}, {0x0483, 0x0489, O}, {0x055A, 0x055F, O}, {0x0589, 0x058A, O},
    {0x0591, 0x05BD, O}, {0x05BE, 0x05C7, O}, {0x05F3, 0x05F4, O}, {0x0600, 0x061F, O}, {0x064B, 0x065F, O},
    {0x0660, 0x0669, N}, {0x066A, 0x066D, O}, {0x0670, 0x0670, O}, {0x06D4, 0x06D4, O}, {0x06D6, 0x06ED, O},
    {0x06F0, 0x06F9, N}, {0x07C0, 0x07C9, N}, {0x0964, 0x0965, O}, {0x0966, 0x096F, N}, {0x09E6, 0x09EF, N},
    {0x0A66, 0x0A6F, N}, {0x0AE6, 0x0AEF, N}, {0x0B66, 0x0B6F, N}, {0x0BE6, 0x0BF2, N}, {0x0C66, 0x0C6F, N},
    {0x0CE6, 0x0CEF, N}, {0x0D66, 0x0D78, N}, {0x0E3F, 0x0E3F, O}, {0x0E50, 0x0E59, N}, {0x0ED0, 0x0ED9, N},
    {0x0F20, 0x0F33, N}, {0x1040, 0x1049, N}, {0x1680, 0x1680, S}, {0x17E0, 0x17E9, N}, {0x1810, 0x1819, N},
    {0x2000, 0x200A, S}, {0x200B, 0x2027, O}, {0x2028, 0x2029, S}, {0x202A, 0x202E, O}, {0x202F, 0x202F, S},
    {0x2030, 0x205E, O}, {0x205F, 0x205F, S}, {0x2060, 0x206F, O}, {0x2070, 0x2070, N}, {0x2074, 0x2079, N},
    {0x207A, 0x207E, O}, {0x2080, 0x2089, N}, {0x208A, 0x208E, O}, {0x20A0, 0x20F0, O}, {0x2100, 0x2101, O},
    {0x2103, 0x2106, O}, {0x2108, 0x2109, O}, {0x2116, 0x2118, O}, {0x211E, 0x2123, O}, {0x2125, 0x2125, O},
    {0x2127, 0x2127, O}, {0x2129, 0x2129, O}, {0x212E, 0x212E, O}, {0x213A, 0x213B, O}, {0x2140, 0x2144, O},
    {0x214A, 0x214D, O}, {0x214F, 0x214F, O}, {0x2150, 0x2182, N}, {0x2185, 0x2189, N}, {0x2190, 0x245F, O},
    {0x2460, 0x249B, N}, {0x249C, 0x24E9, O}, {0x24EA, 0x24FF, N}, {0x2500, 0x2775, O}, {0x2776, 0x2793, N},
    {0x2794, 0x2BFF, O}, {0x2E00, 0x2FFF, O}, {0x3000, 0x3000, S}, {0x3001, 0x3004, O}, {0x3007, 0x3007, N},
    {0x3008, 0x3020, O}, {0x3021, 0x3029, N}, {0x302A, 0x3030, O}, {0x3036, 0x3037, O}, {0x3038, 0x303A, N},
    {0x303D, 0x303F, O}, {0x3099, 0x309C, O}, {0x30A0, 0x30A0, O}, {0x30FB, 0x30FB, O}, {0x3200, 0x321F, O},
    {0x3220, 0x3229, N}, {0x322A, 0x3247, O}, {0x3248, 0x324F, N}, {0x3250, 0x3250, O}, {0x3251, 0x325F, N},
    {0x3260, 0x327F, O}, {0x3280, 0x3289, N}, {0x328A, 0x32B0, O}, {0x32B1, 0x32BF, N}, {0x32C0, 0x33FF, O},
    {0x4DC0, 0x4DFF, O}, {0xD800, 0xF8FF, O}, {0xFD3E, 0xFD3F, O}, {0xFE00, 0xFE6F, O}, {0xFEFF, 0xFEFF, O},
    {0xFF01, 0xFF0F, O}, {0xFF10, 0xFF19, N}, {0xFF1A, 0xFF20, O}, {0xFF3B, 0xFF40, O}, {0xFF5B, 0xFF65, O},
    {0xFFE0, 0xFFEE, O}, {0xFFF9, 0xFFFD, O}, {0x1D000, 0x1D24F, O}, {0x1D7CE, 0x1D7FF, N},
    {0x1F000, 0x1F0FF, O}, {0x1F100, 0x1F10C, N}, {0x1F10D, 0x1FBEF, O}, {0x1FBF0, 0x1FBF9, N},
    {0xE0000, 0xE01EF, O}, {0xF0000, 0x10FFFF, O},
};

constexpr bool ranges_sorted() {
    for (size_t i = 0; i < std::size(kRanges); ++i) {
        if (kRanges[i].first > kRanges[i].last || kRanges[i].first < 0x80) {
            return false;
        }
        if (i > 0 && kRanges[i - 1].last >= kRanges[i].first) {
            return false;
        }
    }
    return true;
}
static_assert(ranges_sorted(), "kRanges must be sorted, disjoint and beyond ASCII");

// the bytes GPT-2's table keeps as themselves
bool is_gpt2_printable(uint32_t b) {
    return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

bool is_continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

// One character of the text being split: where it is, and its class.
struct Char {
    size_t    pos;
    size_t    len;
    uint32_t  cp;
    CharClass cls;
};

std::vector<Char> split_chars(std::string_view text) {
    std::vector<Char> chars;
    chars.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        const size_t   len = utf8_char_len(text, pos);
        const uint32_t cp  = utf8_decode(text, pos, len);
        // a byte that starts no valid character is "other", whatever its value as a code point
        const CharClass cls = len == 1 && cp >= 0x80 ? CharClass::Other : char_class(cp);
        chars.push_back({pos, len, cp, cls});
        pos += len;
    }
    return chars;
}

// The length (in characters) of a contraction 's 't 're 've 'm 'll 'd at chars[i], 0 if there is none.
size_t contraction_at(const std::vector<Char> & chars, size_t i) {
    if (chars[i].cp != '\'' || i + 1 >= chars.size()) {
        return 0;
    }
    const uint32_t a = chars[i + 1].cp;
    if (a == 's' || a == 't' || a == 'm' || a == 'd') {
        return 2;
    }
    if (i + 2 < chars.size()) {
        const uint32_t b = chars[i + 2].cp;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) {
            return 3;
        }
    }
    return 0;
}

// The end of the part starting at chars[i] (an index into chars, > i).
size_t gpt2_part_end(const std::vector<Char> & chars, size_t i) {
    const size_t n = chars.size();
    if (const size_t c = contraction_at(chars, i); c > 0) {
        return i + c;
    }
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional space, then a run of one class
    size_t j = i;
    if (chars[j].cp == ' ' && j + 1 < n && chars[j + 1].cls != CharClass::Space) {
        ++j;
    }
    if (chars[j].cls != CharClass::Space) {
        const CharClass cls = chars[j].cls;
        while (j < n && chars[j].cls == cls) {
            ++j;
        }
        return j;
    }
    // '\s+(?!\S)' then '\s+': a run of whitespace, less its last character when a non-space follows (that one
    // then leads the next part), unless the run is that one character
    size_t k = i;
    while (k < n && chars[k].cls == CharClass::Space) {
        ++k;
    }
    if (k < n && k - i > 1) {
        --k;
    }
    return k;
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

void utf8_append(std::string & out, uint32_t cp) {
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

CharClass char_class(uint32_t cp) {
    if (cp < 0x80) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) {
            return CharClass::Letter;
        }
        if (cp >= '0' && cp <= '9') {
            return CharClass::Number;
        }
        if (cp == ' ' || (cp >= '\t' && cp <= '\r')) {
            return CharClass::Space;
        }
        return CharClass::Other;
    }
    const auto * end = std::end(kRanges);
    const auto * it  = std::upper_bound(std::begin(kRanges), end, cp,
                                        [](uint32_t c, const Range & r) { return c < r.first; });
    if (it != std::begin(kRanges) && cp <= (it - 1)->last) {
        return (it - 1)->cls;
    }
    return CharClass::Letter;
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

std::vector<std::string_view> gpt2_pre_tokenize(std::string_view text) {
    const std::vector<Char>       chars = split_chars(text);
    std::vector<std::string_view> parts;
    for (size_t i = 0; i < chars.size();) {
        const size_t end   = gpt2_part_end(chars, i);
        const size_t first = chars[i].pos;
        const size_t last  = chars[end - 1].pos + chars[end - 1].len;
        parts.push_back(text.substr(first, last - first));
        i = end;
    }
    return parts;
}

} // namespace switchyard::run
