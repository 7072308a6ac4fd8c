// Allocation-failure injection: the control of the counting allocator (failing_new_test.cpp replaces the global
// operator new/delete of this binary and interposes aligned_alloc) and the driver that runs one API call once
// per allocation it makes, with that allocation failing.
//
// Counting covers the thread that armed the injector only: allocations of worker threads are not counted and
// never fail, so the k-th allocation of a call is the same allocation in every run. Inside a Pause (the log
// callback below) nothing is counted either, so the test's own bookkeeping cannot be made to fail.
//
// inject_each(function, setup, call, verify):
//   1. warm-up: setup + call + verify, so lazily built statics exist before anything is measured;
//   2. count:   the call's allocations with none failing (n; the call must succeed);
//   3. for k in 0..n-1, from a fresh setup: allocation k fails (std::bad_alloc, or NULL for the nothrow and
//      C forms). The call must return normally (no exception may cross the C boundary), either succeeding
//      (the failure was absorbed; verify then checks the result) or failing with an error logged that names
//      one of `function`'s names; after the state is released, the number of live operator-new allocations
//      must be what it was before setup (no leak; LeakSanitizer checks the C allocations under ASan).
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include "base/owners.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace switchyard::alloc_failure {

inline constexpr long kNever = -1;

// Starts counting this thread's allocations; the one numbered fail_at (0-based) fails. kNever: none fails.
void arm(long fail_at);
// Stops counting; returns the number of allocations counted since arm.
long disarm();
// Whether the armed failure was injected.
bool injected();
// operator-new allocations of the whole process not yet deleted.
long live_allocations();
// aligned_alloc calls counted since arm (the C allocations the interposer sees).
long c_allocations();

// While one lives, this thread's allocations are neither counted nor failed.
class Pause {
public:
    Pause();
    ~Pause();
    Pause(const Pause &)             = delete;
    Pause & operator=(const Pause &) = delete;

private:
    bool previous_;
};

// Captures error lines while it lives, without being subject to the injector.
class ErrorLog {
public:
    ErrorLog() { ggml_log_set(&ErrorLog::callback, this); }
    ~ErrorLog() { ggml_log_set(nullptr, nullptr); }
    ErrorLog(const ErrorLog &)             = delete;
    ErrorLog & operator=(const ErrorLog &) = delete;

    bool names_any(const std::vector<std::string> & names) const {
        Pause           pause;
        std::lock_guard lock(mutex_);
        for (const std::string & line : lines_) {
            for (const std::string & name : names) {
                if (line.find(name) != std::string::npos) {
                    return true;
                }
            }
        }
        return false;
    }

    std::string text() const {
        Pause           pause;
        std::lock_guard lock(mutex_);
        std::string     all;
        for (const std::string & line : lines_) {
            all += "  " + line;
        }
        return all.empty() ? std::string("  (no error logged)\n") : all;
    }

private:
    static void callback(ggml_log_level level, const char * text, void * user_data) {
        if (level != GGML_LOG_LEVEL_ERROR) {
            return;
        }
        Pause           pause;
        auto *          self = static_cast<ErrorLog *>(user_data);
        std::lock_guard lock(self->mutex_);
        self->lines_.emplace_back(text != nullptr ? text : "");
    }

    mutable std::mutex       mutex_;
    std::vector<std::string> lines_;
};

struct Options {
    bool check_leaks   = true; // compare live operator-new allocations before setup and after release
    bool must_allocate = true; // the call must allocate something (false: zero allocations is a result too)
};

struct Summary {
    long n_allocations = 0; // counted in the call when nothing fails
    long c_allocations = 0; // of which aligned_alloc
    int  failed        = 0; // runs that failed cleanly
    int  absorbed      = 0; // runs that succeeded although an allocation failed
};

// See the header comment. setup() returns a std::unique_ptr<State>; call(State &) -> bool (success);
// verify(State &, bool ok) checks the state after the call (a successful call's result, a failed call's
// cleanliness) with EXPECT_*. names: the function names an error message may carry.
template <class Setup, class Call, class Verify>
Summary inject_each(std::initializer_list<const char *> names, Setup && setup, Call && call, Verify && verify,
                    Options options = {}) {
    const std::vector<std::string> accepted(names.begin(), names.end());
    const std::string              label = accepted.front();
    Summary                        summary;
    {
        auto state = setup();
        EXPECT_TRUE(call(*state)) << label << ": the call fails without injection";
        verify(*state, true);
    }
    {
        auto state = setup();
        arm(kNever);
        const bool ok         = call(*state);
        summary.n_allocations = disarm();
        summary.c_allocations = c_allocations();
        EXPECT_TRUE(ok) << label << ": the call fails without injection";
        verify(*state, ok);
    }
    if (options.must_allocate) {
        EXPECT_GT(summary.n_allocations, 0) << label << ": the call allocates nothing that can be injected";
    }
    for (long k = 0; k < summary.n_allocations; ++k) {
        SCOPED_TRACE(label + ": allocation " + std::to_string(k) + " of " + std::to_string(summary.n_allocations) +
                     " fails");
        const long live_before = live_allocations();
        {
            auto        state = setup();
            ErrorLog    log;
            bool        ok = false;
            std::string escaped;
            arm(k);
            try {
                ok = call(*state);
            } catch (const std::exception & e) {
                escaped = e.what();
            } catch (...) {
                escaped = "(not a std::exception)";
            }
            disarm();
            EXPECT_TRUE(escaped.empty()) << "an exception crossed the C boundary: " << escaped;
            EXPECT_TRUE(injected()) << "the call made fewer allocations than when nothing failed";
            if (ok) {
                ++summary.absorbed;
            } else if (escaped.empty()) {
                ++summary.failed;
                EXPECT_TRUE(log.names_any(accepted)) << "failure without an error naming the function\n" << log.text();
            }
            verify(*state, ok);
        }
        if (options.check_leaks) {
            EXPECT_EQ(live_allocations(), live_before) << "operator-new allocations leaked";
        }
    }
    std::printf("[ inject   ] %s: %ld allocations (%ld aligned_alloc), %d failed cleanly, %d absorbed\n",
                label.c_str(), summary.n_allocations, summary.c_allocations, summary.failed, summary.absorbed);
    return summary;
}

// ---- owners ----

// the handle owners of src/base/owners.h (ContextPtr, BufferPtr, BackendPtr, SchedPtr, GallocrPtr)

inline ContextPtr meta_context(size_t n_tensors = 128) {
    ggml_init_params params = {n_tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    return ContextPtr(ggml_init(params));
}

} // namespace switchyard::alloc_failure
