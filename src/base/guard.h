// The C boundary's exception guard. Inside the library, C++ containers and threads report running out of memory
// or threads by throwing (std::bad_alloc, std::system_error); no exception may cross into a C caller, where it
// would end the host process. Every extern "C" entry point that can allocate runs its body through guard(): an
// exception becomes the function's failure value (NULL, false, 0, GGML_STATUS_ALLOC_FAILED) and a log line that
// names the function.
//
//   ggml_gallocr_t ggml_gallocr_new_n(...) {
//       return guard("ggml_gallocr_new_n", nullptr, [&] { return ... ; });
//   }
//
// A body that must undo partial work on failure does so with RAII (destructors run while the exception unwinds);
// guard() only reports.
#pragma once

#include "ggml.h"

#include "base/log.h"

#include <exception>
#include <new>
#include <system_error>
#include <type_traits>
#include <utility>

namespace switchyard {

// Logs the exception in flight as "[caller] <what went wrong>". Call only inside a catch block.
inline void log_current_exception(const char * caller) noexcept {
    try {
        throw;
    } catch (const std::bad_alloc &) {
        log_error("[%s] out of memory\n", caller);
    } catch (const std::system_error & e) {
        log_error("[%s] system resource failure: %s\n", caller, e.what());
    } catch (const std::exception & e) {
        log_error("[%s] internal error: %s\n", caller, e.what());
    } catch (...) {
        log_error("[%s] unknown internal error\n", caller);
    }
}

// f() or, when it throws, on_failure (logged). R is f's result type; on_failure converts to it.
template <class F, class R = std::invoke_result_t<F>>
R guard(const char * caller, std::type_identity_t<R> on_failure, F && f) noexcept {
    try {
        return std::forward<F>(f)();
    } catch (...) {
        log_current_exception(caller);
        return on_failure;
    }
}

// For a body without a result (a void C function): true when it ran to the end.
template <class F>
bool guard_void(const char * caller, F && f) noexcept {
    try {
        std::forward<F>(f)();
        return true;
    } catch (...) {
        log_current_exception(caller);
        return false;
    }
}

// For a body returning a ggml_status: std::bad_alloc becomes GGML_STATUS_ALLOC_FAILED, any other exception
// GGML_STATUS_FAILED.
template <class F>
ggml_status guard_status(const char * caller, F && f) noexcept {
    try {
        return std::forward<F>(f)();
    } catch (const std::bad_alloc &) {
        log_current_exception(caller);
        return GGML_STATUS_ALLOC_FAILED;
    } catch (...) {
        log_current_exception(caller);
        return GGML_STATUS_FAILED;
    }
}

} // namespace switchyard
