// Shared by the GGUF tests: expected bytes built by hand from the format description (Bytes), the library's log
// captured (LogCapture), temporary files, and reading a file back.
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace gguf_test {

// Little-endian bytes appended one field at a time, as the format description lists them.
struct Bytes {
    std::vector<uint8_t> b;

    template <class T> Bytes & num(T v) {
        uint8_t raw[sizeof(T)];
        std::memcpy(raw, &v, sizeof(T));
        b.insert(b.end(), raw, raw + sizeof(T));
        return *this;
    }
    Bytes & u8(uint8_t v) { return num(v); }
    Bytes & i32(int32_t v) { return num(v); }
    Bytes & u32(uint32_t v) { return num(v); }
    Bytes & i64(int64_t v) { return num(v); }
    Bytes & u64(uint64_t v) { return num(v); }
    Bytes & raw(const void * p, size_t n) {
        const auto * c = static_cast<const uint8_t *>(p);
        b.insert(b.end(), c, c + n);
        return *this;
    }
    Bytes & str(const std::string & s) { return u64(s.size()).raw(s.data(), s.size()); }
    Bytes & zeros(size_t n) {
        b.insert(b.end(), n, 0);
        return *this;
    }
    // zero bytes up to a multiple of alignment
    Bytes & pad(size_t alignment) { return zeros((alignment - b.size() % alignment) % alignment); }
    // the header: magic, version 3, counts
    Bytes & header(int64_t n_tensors, int64_t n_kv) { return raw("GGUF", 4).u32(3).i64(n_tensors).i64(n_kv); }
    // a key and a scalar value of type t
    template <class T> Bytes & kv(const std::string & key, gguf_type t, T v) { return str(key).i32(t).num(v); }
    Bytes & tensor_info(const std::string & name, std::vector<int64_t> ne, ggml_type type, uint64_t offset) {
        str(name).u32(static_cast<uint32_t>(ne.size()));
        for (int64_t n : ne) {
            i64(n);
        }
        return i32(type).u64(offset);
    }
};

// Collects everything the library logs while it lives; restores the previous sink after.
class LogCapture {
public:
    LogCapture() {
        ggml_log_get(&prev_cb_, &prev_data_);
        ggml_log_set(
            [](ggml_log_level, const char * text, void * data) { *static_cast<std::string *>(data) += text; }, &text_);
    }
    ~LogCapture() { ggml_log_set(prev_cb_, prev_data_); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    const std::string & text() const { return text_; }
    bool                has(const std::string & s) const { return text_.find(s) != std::string::npos; }
    void                clear() { text_.clear(); }

private:
    std::string       text_;
    ggml_log_callback prev_cb_   = nullptr;
    void *            prev_data_ = nullptr;
};

// a path in the temporary directory, unique to this process and name; removed when the object goes
class TempFile {
public:
    explicit TempFile(const std::string & name)
        : path_((std::filesystem::temp_directory_path() /
                 ("gguf_test_" + std::to_string(getpid()) + "_" + name)).string()) {}
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile &)             = delete;
    TempFile & operator=(const TempFile &) = delete;

    const char * path() const { return path_.c_str(); }

private:
    std::string path_;
};

inline std::vector<uint8_t> read_all(const std::string & path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline void write_all(const std::string & path, const std::vector<uint8_t> & bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// everything gguf_write_to_file writes for ctx
inline std::vector<uint8_t> written(const gguf_context * ctx, bool only_meta = false) {
    TempFile f("written.gguf");
    EXPECT_TRUE(gguf_write_to_file(ctx, f.path(), only_meta));
    return read_all(f.path());
}

inline gguf_context * from_bytes(const std::vector<uint8_t> & bytes, bool no_alloc = true,
                                 ggml_context ** ctx = nullptr) {
    return gguf_init_from_buffer(bytes.data(), bytes.size(), gguf_init_params{no_alloc, ctx});
}

} // namespace gguf_test
