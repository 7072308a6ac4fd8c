#include "gguf/cursor.h"

#include "base/log.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace switchyard::gguf {

bool Cursor::fail(uint64_t at, const char * fmt, ...) const {
    char    what[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(what, sizeof(what), fmt, args);
    va_end(args);
    log_error("[%s] %s: offset %" PRIu64 ": %s\n", caller_, source_.name().c_str(), at, what);
    return false;
}

bool Cursor::read_bytes(void * dst, size_t n, const char * what) {
    if (n > left()) {
        return fail(pos_, "truncated: %s needs %zu bytes, the file has %" PRIu64 " left", what, n, left());
    }
    if (!source_.read(pos_, dst, n)) {
        return fail(pos_, "cannot read %s (%zu bytes): read error or the source ended early", what, n);
    }
    pos_ += n;
    return true;
}

bool Cursor::read_string(std::string & s, uint64_t max_len, const char * what) {
    const uint64_t at  = pos_;
    uint64_t       len = 0;
    if (!read(len, what)) {
        return false;
    }
    if (len > left()) {
        return fail(at, "%s: string length %" PRIu64 " exceeds the %" PRIu64 " bytes left in the file", what, len,
                    left());
    }
    if (len > max_len) {
        return fail(at, "%s: string length %" PRIu64 " exceeds the limit of %" PRIu64, what, len, max_len);
    }
    s.resize(static_cast<size_t>(len));
    return read_bytes(s.data(), s.size(), what);
}

} // namespace switchyard::gguf
