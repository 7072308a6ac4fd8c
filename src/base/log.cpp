#include "base/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace switchyard {
namespace {

// Routine messages (planning, buffer sizes) are logged at DEBUG: the default sink prints them only when
// GGML_LOG_DEBUG=1 is set, so a program that works prints nothing. A callback set with ggml_log_set receives
// every level and filters as it likes. CONT continues the previous message and follows its level.
bool debug_enabled() {
    static const bool enabled = [] {
        const char * v = std::getenv("GGML_LOG_DEBUG");
        return v != nullptr && v[0] != '\0' && v[0] != '0';
    }();
    return enabled;
}

void default_callback(ggml_log_level level, const char * text, void *) {
    static thread_local bool last_was_debug = false;
    const bool               debug = level == GGML_LOG_LEVEL_DEBUG || (level == GGML_LOG_LEVEL_CONT && last_was_debug);
    if (level != GGML_LOG_LEVEL_CONT) {
        last_was_debug = level == GGML_LOG_LEVEL_DEBUG;
    }
    if (debug && !debug_enabled()) {
        return;
    }
    std::fputs(text, stderr);
    std::fflush(stderr);
}

struct LogSink {
    std::mutex        mutex;
    ggml_log_callback callback  = default_callback;
    void *            user_data = nullptr;
};

LogSink & sink() {
    static LogSink s;
    return s;
}

void vlog(ggml_log_level level, const char * fmt, va_list args) {
    char    small[512];
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(small, sizeof(small), fmt, copy);
    va_end(copy);
    if (n < 0) {
        return;
    }
    LogSink & s = sink();
    if (static_cast<size_t>(n) < sizeof(small)) {
        std::lock_guard lock(s.mutex);
        s.callback(level, small, s.user_data);
        return;
    }
    std::vector<char> big(static_cast<size_t>(n) + 1);
    std::vsnprintf(big.data(), big.size(), fmt, args);
    std::lock_guard lock(s.mutex);
    s.callback(level, big.data(), s.user_data);
}

} // namespace

#define SWITCHYARD_LOG_BODY(level) \
    va_list args;                  \
    va_start(args, fmt);           \
    vlog(level, fmt, args);        \
    va_end(args)

void log(ggml_log_level level, const char * fmt, ...) { SWITCHYARD_LOG_BODY(level); }
void log_error(const char * fmt, ...) { SWITCHYARD_LOG_BODY(GGML_LOG_LEVEL_ERROR); }
void log_warn(const char * fmt, ...) { SWITCHYARD_LOG_BODY(GGML_LOG_LEVEL_WARN); }
void log_info(const char * fmt, ...) { SWITCHYARD_LOG_BODY(GGML_LOG_LEVEL_INFO); }
void log_debug(const char * fmt, ...) { SWITCHYARD_LOG_BODY(GGML_LOG_LEVEL_DEBUG); }

#undef SWITCHYARD_LOG_BODY

void set_log_callback(ggml_log_callback callback, void * user_data) {
    LogSink &       s = sink();
    std::lock_guard lock(s.mutex);
    s.callback  = callback ? callback : default_callback;
    s.user_data = callback ? user_data : nullptr;
}

void get_log_callback(ggml_log_callback * callback, void ** user_data) {
    LogSink &       s = sink();
    std::lock_guard lock(s.mutex);
    if (callback != nullptr) {
        *callback = s.callback;
    }
    if (user_data != nullptr) {
        *user_data = s.user_data;
    }
}

} // namespace switchyard

extern "C" void ggml_log_get(ggml_log_callback * log_callback, void ** user_data) {
    switchyard::get_log_callback(log_callback, user_data);
}

extern "C" void ggml_log_set(ggml_log_callback log_callback, void * user_data) {
    switchyard::set_log_callback(log_callback, user_data);
}
