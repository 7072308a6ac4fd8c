// gguf.h: making and freeing contexts. The readers all go through read_file over a Source; everything runs
// under guard(), so running out of memory gives NULL and a message, never an exception in the caller.
#include "gguf/api_checks.h"
#include "gguf/reader.h"
#include "gguf/source.h"

#include "base/guard.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

using namespace switchyard;
using namespace switchyard::gguf;

namespace {

// *params.ctx is NULL until a read succeeds, so that a failed init leaves it NULL whatever failed
void clear_output(const gguf_init_params & params) {
    if (params.ctx != nullptr) {
        *params.ctx = nullptr;
    }
}

gguf_context * read_from(std::unique_ptr<Source> source, const gguf_init_params & params, const char * caller) {
    return source != nullptr ? read_file(*source, params, caller) : nullptr;
}

struct FileCloser {
    void operator()(FILE * f) const { std::fclose(f); }
};

} // namespace

extern "C" {

struct gguf_context * gguf_init_empty(void) {
    return guard("gguf_init_empty", nullptr, [] { return new gguf_context(); });
}

struct gguf_context * gguf_init_from_file_ptr(FILE * file, struct gguf_init_params params) {
    constexpr const char * caller = "gguf_init_from_file_ptr";
    clear_output(params);
    if (file == nullptr) {
        log_error("[%s] the file is NULL\n", caller);
        return nullptr;
    }
    return guard(caller, nullptr, [&] { return read_from(file_source(file, "<FILE*>", caller), params, caller); });
}

struct gguf_context * gguf_init_from_file(const char * fname, struct gguf_init_params params) {
    constexpr const char * caller = "gguf_init_from_file";
    clear_output(params);
    if (!check_name(fname, "file name", caller)) {
        return nullptr;
    }
    return guard(caller, nullptr, [&]() -> gguf_context * {
        std::unique_ptr<FILE, FileCloser> file(std::fopen(fname, "rb"));
        if (file == nullptr) {
            log_error("[%s] cannot open '%s': %s\n", caller, fname, std::strerror(errno));
            return nullptr;
        }
        return read_from(file_source(file.get(), fname, caller), params, caller);
    });
}

struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params) {
    constexpr const char * caller = "gguf_init_from_buffer";
    clear_output(params);
    if (data == nullptr && size > 0) {
        log_error("[%s] the buffer is NULL but its size is %zu\n", caller, size);
        return nullptr;
    }
    return guard(caller, nullptr, [&] { return read_from(buffer_source(data, size), params, caller); });
}

struct gguf_context * gguf_init_from_callback(gguf_reader_callback_t callback, void * userdata, size_t max_chunk_read,
                                              uint64_t max_expected_size, struct gguf_init_params params) {
    constexpr const char * caller = "gguf_init_from_callback";
    clear_output(params);
    if (callback == nullptr) {
        log_error("[%s] the callback is NULL\n", caller);
        return nullptr;
    }
    return guard(caller, nullptr, [&] {
        return read_from(callback_source(callback, userdata, max_chunk_read, max_expected_size), params, caller);
    });
}

void gguf_free(struct gguf_context * ctx) {
    delete ctx;
}

const char * gguf_type_name(enum gguf_type type) {
    return type_traits(raw_enum(type)).name;
}

} // extern "C"
