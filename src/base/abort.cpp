#include "base/abort.h"

#include "base/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace switchyard {
namespace {

std::atomic<ggml_abort_callback_t> g_abort_callback{nullptr};

[[noreturn]] void vfatal(const char * prefix, const char * fmt, va_list args) {
    char message[2048];
    int  n = 0;
    if (prefix) {
        n = std::snprintf(message, sizeof(message), "%s", prefix);
    }
    std::vsnprintf(message + n, sizeof(message) - static_cast<size_t>(n), fmt, args);
    log_error("%s\n", message);
    if (ggml_abort_callback_t cb = g_abort_callback.load()) {
        cb(message);
    }
    std::abort();
}

} // namespace

void fatal(const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vfatal(nullptr, fmt, args);
}

} // namespace switchyard

extern "C" ggml_abort_callback_t ggml_set_abort_callback(ggml_abort_callback_t callback) {
    return switchyard::g_abort_callback.exchange(callback);
}

extern "C" void ggml_abort(const char * file, int line, const char * fmt, ...) {
    char prefix[512];
    std::snprintf(prefix, sizeof(prefix), "%s:%d: ", file, line);
    va_list args;
    va_start(args, fmt);
    switchyard::vfatal(prefix, fmt, args);
}
