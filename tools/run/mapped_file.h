// switchyard-run: a file mapped read-only into memory (POSIX mmap), so that the CPU can use a model's weights in
// place and other devices copy them straight from the page cache.
#pragma once

#include <cstddef>
#include <string>

namespace switchyard::run {

class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile();
    MappedFile(const MappedFile &)             = delete;
    MappedFile & operator=(const MappedFile &) = delete;

    // Maps the whole file; false with a message in `error` (naming the file) when it cannot be opened or mapped,
    // or is not a regular file (checked before opening: a FIFO would block the open).
    bool open(const std::string & path, std::string & error);

    const unsigned char * data() const { return static_cast<const unsigned char *>(addr_); }
    // the mapping as writable memory for ggml_backend_dev_buffer_from_host_ptr; the pages are mapped private
    // (copy on write), so nothing reaches the file
    void * mutable_data() const { return addr_; }
    size_t size() const { return size_; }

private:
    void * addr_ = nullptr;
    size_t size_ = 0;
};

} // namespace switchyard::run
