// Upstream ggml's internal base symbols that out-of-tree backend modules link against.
//
// These are not in any public header: upstream declares them in its private ggml-impl.h, and a backend built
// against upstream's tree (its CPU backend built with GGML_BACKEND_DL, for one) calls them from ggml-base. We
// export them with upstream's names, C linkage and meaning so such a module loads (dlopen with RTLD_NOW
// resolves every symbol up front) and runs on this library. Do not declare them in include/: programs must not
// come to depend on them.
//
//   ggml_aligned_malloc(size)        64-byte aligned memory, released with ggml_aligned_free (or free()).
//                                    size 0: warns, returns NULL. Out of memory: logs an error, returns NULL.
//   ggml_aligned_free(ptr, size)     releases it; size is unused (upstream uses it only on some platforms).
//   ggml_critical_section_start/end  one process-wide, non-recursive lock.
//   ggml_log_internal(level, fmt...) printf-style message into the log sink (ggml_log_set).
#include "base/guard.h"
#include "base/log.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#define SWITCHYARD_UPSTREAM_ABI __attribute__((visibility("default")))

extern "C" {

SWITCHYARD_UPSTREAM_ABI void * ggml_aligned_malloc(size_t size);
SWITCHYARD_UPSTREAM_ABI void   ggml_aligned_free(void * ptr, size_t size);
SWITCHYARD_UPSTREAM_ABI void   ggml_critical_section_start(void);
SWITCHYARD_UPSTREAM_ABI void   ggml_critical_section_end(void);
SWITCHYARD_UPSTREAM_ABI void   ggml_log_internal(enum ggml_log_level level, const char * format, ...)
    __attribute__((format(printf, 2, 3)));

} // extern "C"

namespace {

constexpr size_t kAlignedMallocAlignment = 64;

// The lock behind ggml_critical_section_*; std::mutex is constant-initialised, so it exists before any
// static constructor of a module could take it.
std::mutex g_critical_section;

} // namespace

extern "C" {

void * ggml_aligned_malloc(size_t size) {
    if (size == 0) {
        switchyard::log_warn("[ggml_aligned_malloc] allocating 0 bytes returns NULL\n");
        return nullptr;
    }
    void *    memory = nullptr;
    const int result = posix_memalign(&memory, kAlignedMallocAlignment, size);
    if (result != 0) {
        const char * reason = result == ENOMEM ? "insufficient memory"
                              : result == EINVAL ? "invalid alignment value"
                                                 : "unknown allocation error";
        switchyard::log_error("[ggml_aligned_malloc] %s (attempted to allocate %6.2f MB)\n", reason,
                              static_cast<double>(size) / (1024.0 * 1024.0));
        return nullptr;
    }
    return memory;
}

void ggml_aligned_free(void * ptr, size_t size) {
    (void) size;
    std::free(ptr);
}

void ggml_critical_section_start(void) {
    switchyard::guard_void("ggml_critical_section_start", [] { g_critical_section.lock(); });
}

void ggml_critical_section_end(void) {
    g_critical_section.unlock();
}

void ggml_log_internal(enum ggml_log_level level, const char * format, ...) {
    if (format == nullptr) {
        return;
    }
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    char      small[512];
    const int n = std::vsnprintf(small, sizeof(small), format, copy);
    va_end(copy);
    if (n >= 0 && static_cast<size_t>(n) < sizeof(small)) {
        switchyard::log(level, "%s", small);
    } else if (n >= 0) {
        switchyard::guard_void("ggml_log_internal", [&] {
            std::vector<char> big(static_cast<size_t>(n) + 1);
            std::vsnprintf(big.data(), big.size(), format, args);
            switchyard::log(level, "%s", big.data());
        });
    }
    va_end(args);
}

} // extern "C"
