#include "gguf/source.h"

#include "base/log.h"

#include <cerrno>
#include <cstring>
#include <sys/types.h>

namespace switchyard::gguf {

bool Source::read(uint64_t offset, void * dst, size_t n) {
    if (offset < begin_ || offset > end_ || n > end_ - offset) {
        return false;
    }
    return n == 0 || read_raw(offset, dst, n);
}

namespace {

class FileSource final : public Source {
public:
    FileSource(FILE * file, std::string name, uint64_t begin, uint64_t end)
        : Source(std::move(name), begin, end), file_(file), pos_(begin) {}

private:
    bool read_raw(uint64_t offset, void * dst, size_t n) override {
        if (offset != pos_) {
            if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
                return false;
            }
            pos_ = offset;
        }
        const size_t got = std::fread(dst, 1, n, file_);
        pos_ += got;
        return got == n;
    }

    FILE *   file_;
    uint64_t pos_;
};

class BufferSource final : public Source {
public:
    BufferSource(const void * data, size_t size)
        : Source("<buffer>", 0, size), data_(static_cast<const uint8_t *>(data)) {}

private:
    bool read_raw(uint64_t offset, void * dst, size_t n) override {
        std::memcpy(dst, data_ + offset, n);
        return true;
    }

    const uint8_t * data_;
};

class CallbackSource final : public Source {
public:
    CallbackSource(gguf_reader_callback_t callback, void * userdata, size_t max_chunk, uint64_t size)
        : Source("<callback>", 0, size), callback_(callback), userdata_(userdata),
          max_chunk_(max_chunk == 0 ? SIZE_MAX : max_chunk) {}

private:
    // a callback may return fewer bytes than asked (as fread may): ask again for the rest; 0 is an end or error
    bool read_raw(uint64_t offset, void * dst, size_t n) override {
        auto * out = static_cast<uint8_t *>(dst);
        while (n > 0) {
            const size_t want = n < max_chunk_ ? n : max_chunk_;
            const size_t got  = callback_(userdata_, out, offset, want);
            if (got == 0 || got > want) {
                return false;
            }
            out += got;
            offset += got;
            n -= got;
        }
        return true;
    }

    gguf_reader_callback_t callback_;
    void *                 userdata_;
    size_t                 max_chunk_;
};

} // namespace

std::unique_ptr<Source> file_source(FILE * file, std::string name, const char * caller) {
    const off_t begin = ftello(file);
    if (begin < 0 || fseeko(file, 0, SEEK_END) != 0) {
        log_error("[%s] %s: cannot find the file's position or size (%s): the file must be seekable\n", caller,
                  name.c_str(), std::strerror(errno));
        return nullptr;
    }
    const off_t end = ftello(file);
    if (end < 0 || fseeko(file, begin, SEEK_SET) != 0) {
        log_error("[%s] %s: cannot find the file's size (%s)\n", caller, name.c_str(), std::strerror(errno));
        return nullptr;
    }
    const uint64_t last = end < begin ? static_cast<uint64_t>(begin) : static_cast<uint64_t>(end);
    return std::make_unique<FileSource>(file, std::move(name), static_cast<uint64_t>(begin), last);
}

std::unique_ptr<Source> buffer_source(const void * data, size_t size) {
    return std::make_unique<BufferSource>(data, size);
}

std::unique_ptr<Source> callback_source(gguf_reader_callback_t callback, void * userdata, size_t max_chunk,
                                        uint64_t size) {
    return std::make_unique<CallbackSource>(callback, userdata, max_chunk, size);
}

} // namespace switchyard::gguf
