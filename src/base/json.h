// Minimal JSON string quoting for the observability outputs (plans, traces).
#pragma once

#include <cstdio>
#include <string>

namespace switchyard {

inline std::string json_string(const char * s) {
    std::string out = "\"";
    for (const char * p = s; *p; ++p) {
        const char c = *p;
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

} // namespace switchyard
