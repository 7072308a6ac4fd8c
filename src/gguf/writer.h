// The GGUF writer: a context serialised byte for byte as upstream ggml writes it (see the layout in gguf.h):
// the metadata (header, key-value pairs in order, tensor infos in order, zero padding to the alignment), then
// each tensor's data followed by zero padding to the alignment. Padding is counted from the first byte written.
#pragma once

#include "gguf/context.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace switchyard::gguf {

// Where the bytes go. write() returns false on an I/O error (the sink then refuses everything after).
class Sink {
public:
    virtual ~Sink() = default;

    bool     write(const void * data, size_t n);
    uint64_t written() const { return written_; }

protected:
    virtual bool write_raw(const void * data, size_t n) = 0;

private:
    uint64_t written_ = 0;
    bool     failed_  = false;
};

class CountingSink final : public Sink {
    bool write_raw(const void *, size_t) override { return true; }
};

class VectorSink final : public Sink {
public:
    std::vector<uint8_t> bytes;

private:
    bool write_raw(const void * data, size_t n) override;
};

// into caller-owned memory large enough for everything written
class MemorySink final : public Sink {
public:
    explicit MemorySink(void * dst) : dst_(static_cast<uint8_t *>(dst)) {}

private:
    bool write_raw(const void * data, size_t n) override {
        std::memcpy(dst_ + written(), data, n);
        return true;
    }

    uint8_t * dst_;
};

class FileSink final : public Sink {
public:
    explicit FileSink(FILE * file) : file_(file) {}

private:
    bool write_raw(const void * data, size_t n) override { return std::fwrite(data, 1, n, file_) == n; }

    FILE * file_;
};

// the metadata: everything before the data section
bool write_meta(const Context & ctx, Sink & sink);

// every tensor with bytes to write has them: host data, or a backend buffer, in a contiguous layout (logged,
// naming caller, when not)
bool check_tensor_data(const Context & ctx, const char * caller);

// the data section, after write_meta wrote the metadata to the same sink; requires check_tensor_data
bool write_data(const Context & ctx, Sink & sink, const char * caller);

} // namespace switchyard::gguf
