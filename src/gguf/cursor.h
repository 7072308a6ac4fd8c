// The reader's position in a source, and its one way to report a malformed file: a message that names the
// calling C function, the source, the byte offset and what was wrong.
#pragma once

#include "gguf/source.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace switchyard::gguf {

class Cursor {
public:
    Cursor(Source & source, const char * caller) : source_(source), caller_(caller), pos_(source.begin()) {}

    Source &     source() const { return source_; }
    const char * caller() const { return caller_; }
    uint64_t     pos() const { return pos_; }
    uint64_t     left() const { return source_.end() - pos_; } // bytes between the position and the end
    uint64_t     relative(uint64_t offset) const { return offset - source_.begin(); } // from the GGUF file's start

    // Logs "[caller] <source name>: offset <at>: <message>" (at: a byte offset in the source, as pos()); always
    // returns false.
    bool fail(uint64_t at, const char * fmt, ...) const __attribute__((format(printf, 3, 4)));

    // Reads n bytes and advances; a short read fails with "truncated: <what> needs n bytes, m left".
    bool read_bytes(void * dst, size_t n, const char * what);

    template <class T> bool read(T & v, const char * what) { return read_bytes(&v, sizeof(v), what); }

    // A string: u64 length (at most max_len and at most the bytes left), then the bytes.
    bool read_string(std::string & s, uint64_t max_len, const char * what);

private:
    Source &     source_;
    const char * caller_;
    uint64_t     pos_;
};

} // namespace switchyard::gguf
