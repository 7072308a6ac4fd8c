// switchyard-run: a string as a JSON string literal (quotes, backslashes and control characters escaped), for
// the trace and --bench -o json.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace switchyard::run {

inline std::string json_quote(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof(esc), "\\u%04x", static_cast<unsigned char>(c));
            out += esc;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

} // namespace switchyard::run
