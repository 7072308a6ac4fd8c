// gguf.h: writing a context out. The tensors' data is checked before the file is opened, so that a context
// missing some data leaves no half-written file behind.
#include "gguf/api_checks.h"
#include "gguf/writer.h"

#include "base/guard.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace switchyard;
using namespace switchyard::gguf;

namespace {

bool write_to(const gguf_context * ctx, FILE * file, bool only_meta, const char * caller) {
    FileSink sink(file);
    if (!write_meta(*ctx, sink) || (!only_meta && !write_data(*ctx, sink, caller))) {
        log_error("[%s] write error after %llu bytes: %s\n", caller,
                  static_cast<unsigned long long>(sink.written()), std::strerror(errno));
        return false;
    }
    return true;
}

} // namespace

extern "C" {

bool gguf_write_to_file_ptr(const struct gguf_context * ctx, FILE * file, bool only_meta) {
    constexpr const char * caller = "gguf_write_to_file_ptr";
    if (!check_ctx(ctx, caller)) {
        return false;
    }
    if (file == nullptr) {
        log_error("[%s] the file is NULL\n", caller);
        return false;
    }
    return guard(caller, false, [&] {
        return (only_meta || check_tensor_data(*ctx, caller)) && write_to(ctx, file, only_meta, caller);
    });
}

bool gguf_write_to_file(const struct gguf_context * ctx, const char * fname, bool only_meta) {
    constexpr const char * caller = "gguf_write_to_file";
    if (!check_ctx(ctx, caller) || !check_name(fname, "file name", caller)) {
        return false;
    }
    return guard(caller, false, [&] {
        if (!only_meta && !check_tensor_data(*ctx, caller)) {
            return false;
        }
        FILE * file = std::fopen(fname, "wb");
        if (file == nullptr) {
            log_error("[%s] cannot open '%s' for writing: %s\n", caller, fname, std::strerror(errno));
            return false;
        }
        const bool written = write_to(ctx, file, only_meta, caller);
        const bool closed  = std::fclose(file) == 0;
        if (written && !closed) {
            log_error("[%s] cannot finish writing '%s': %s\n", caller, fname, std::strerror(errno));
        }
        return written && closed;
    });
}

size_t gguf_get_meta_size(const struct gguf_context * ctx) {
    if (!check_ctx(ctx, "gguf_get_meta_size")) {
        return 0;
    }
    CountingSink sink;
    write_meta(*ctx, sink);
    return static_cast<size_t>(sink.written());
}

void gguf_get_meta_data(const struct gguf_context * ctx, void * data) {
    constexpr const char * caller = "gguf_get_meta_data";
    if (!check_ctx(ctx, caller)) {
        return;
    }
    if (data == nullptr) {
        log_error("[%s] the destination is NULL\n", caller);
        return;
    }
    MemorySink sink(data);
    write_meta(*ctx, sink);
}

} // extern "C"
