// Where the reader gets its bytes: a FILE, a memory buffer, or an application's callback (gguf_init_from_*).
// Every source has a name for messages and a known extent [begin, end): the reader checks each length it reads
// from the file against the bytes left before allocating anything for it.
#pragma once

#include "gguf.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace switchyard::gguf {

class Source {
public:
    virtual ~Source() = default;

    const std::string & name() const { return name_; }
    uint64_t            begin() const { return begin_; } // offset of the GGUF file's first byte
    uint64_t            end() const { return end_; }     // one past the last byte the source may hold

    // Reads n bytes at offset into dst; false when [offset, offset + n) is not inside [begin, end) or the
    // underlying read comes back short (end of file, I/O error, the callback returning less).
    bool read(uint64_t offset, void * dst, size_t n);

protected:
    Source(std::string name, uint64_t begin, uint64_t end) : name_(std::move(name)), begin_(begin), end_(end) {}

    virtual bool read_raw(uint64_t offset, void * dst, size_t n) = 0;

private:
    std::string name_;
    uint64_t    begin_;
    uint64_t    end_;
};

// The file from its current position to its end. NULL (logged, naming caller) when the file's position or size
// cannot be found (a pipe, say).
std::unique_ptr<Source> file_source(FILE * file, std::string name, const char * caller);

// size bytes at data (not copied: the buffer must outlive the source)
std::unique_ptr<Source> buffer_source(const void * data, size_t size);

// [0, size) through callback, at most max_chunk bytes per call (0: any)
std::unique_ptr<Source> callback_source(gguf_reader_callback_t callback, void * userdata, size_t max_chunk,
                                        uint64_t size);

} // namespace switchyard::gguf
