#include "mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace switchyard::run {

MappedFile::~MappedFile() {
    if (addr_ != nullptr) {
        munmap(addr_, size_);
    }
}

bool MappedFile::open(const std::string & path, std::string & error) {
    // the type first: opening a FIFO would wait for a writer (and O_NONBLOCK keeps a file swapped in between
    // from blocking the open)
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "'" + path + "' is not a regular file (a model is memory-mapped)";
        return false;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = "'" + path + "' is not a regular file (a model is memory-mapped)";
        ::close(fd);
        return false;
    }
    if (st.st_size == 0) {
        error = "'" + path + "' is empty";
        ::close(fd);
        return false;
    }
    size_            = static_cast<size_t>(st.st_size);
    void * const mem = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    const int    err = errno;
    ::close(fd);
    if (mem == MAP_FAILED) {
        size_ = 0;
        error = "cannot map '" + path + "': " + std::strerror(err);
        return false;
    }
    addr_ = mem;
    return true;
}

} // namespace switchyard::run
