// Fatal errors: broken internal invariants and programming errors (a shape error in an op constructor).
// The message is logged, handed to the callback set with ggml_set_abort_callback, and the process aborts.
// Nothing that depends on run-time data or resources may end up here: those return a status.
#pragma once

#include "ggml.h"

namespace switchyard {

[[noreturn]] void fatal(const char * fmt, ...) __attribute__((format(printf, 1, 2)));

// fatal() unless cond holds; for internal invariants.
inline void check(bool cond, const char * what) {
    if (!cond) {
        fatal("internal invariant failed: %s", what);
    }
}

} // namespace switchyard
