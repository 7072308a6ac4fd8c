// Shared by the bad-input tests: the error contract of issue 11, and the tools to check it.
//
// The contract: a user error or a resource failure returns a status (NULL / false / a ggml_status) and logs a
// message naming the function, through the ggml_log_set callback; the process is never aborted for it and no
// C++ exception crosses the C boundary. Programming errors (shape rules in op constructors) end in the abort
// callback (ggml_set_abort_callback). Every case checks the status, the message, and that nothing around the
// call was corrupted (neighbouring tensors and guard bytes unchanged, the object still usable).
//
// Tools:
//   LogCapture     records every log line (level and text) while it lives;
//   run_in_child   runs a body in a forked child, for what must not be tried in the test process: the abort
//                  callback (which ends the process), address-space limits (RLIMIT_AS), calls that may crash
//                  before their fix lands; the parent learns whether the child exited normally, the abort
//                  message if the callback fired, the body's report and what it wrote to stderr;
//   GuardedTensor  a tensor between two guard tensors in one buffer, to see writes that stray;
//   Owned<...>     RAII for contexts, buffers and backends.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include "base/owners.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace switchyard::bad_input {

// ---- sanitizers ----

// AddressSanitizer and ThreadSanitizer reserve terabytes of shadow memory up front, so an address-space limit
// (RLIMIT_AS) makes them fail before the code under test runs; those cases skip under them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// ---- log capture ----

// Captures everything logged while it lives (the default sink, stderr, comes back after).
class LogCapture {
public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    // an error-level line containing every one of the substrings
    bool has_error(std::initializer_list<const char *> parts) const {
        std::lock_guard lock(mutex_);
        for (const auto & [level, text] : lines_) {
            if (level != GGML_LOG_LEVEL_ERROR) {
                continue;
            }
            bool all = true;
            for (const char * part : parts) {
                all = all && text.find(part) != std::string::npos;
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    bool has_error(const char * part) const { return has_error({part}); }

    size_t errors() const {
        std::lock_guard lock(mutex_);
        size_t          n = 0;
        for (const auto & line : lines_) {
            n += line.first == GGML_LOG_LEVEL_ERROR ? 1 : 0;
        }
        return n;
    }

    std::string text() const {
        std::lock_guard lock(mutex_);
        std::string     all;
        for (const auto & [level, text] : lines_) {
            all += "  [level " + std::to_string(static_cast<int>(level)) + "] " + text;
        }
        return all.empty() ? std::string("  (nothing logged)\n") : all;
    }

    void clear() {
        std::lock_guard lock(mutex_);
        lines_.clear();
    }

private:
    static void callback(ggml_log_level level, const char * text, void * user_data) {
        auto *          self = static_cast<LogCapture *>(user_data);
        std::lock_guard lock(self->mutex_);
        self->lines_.emplace_back(level, text != nullptr ? text : "");
    }

    mutable std::mutex                                   mutex_;
    std::vector<std::pair<ggml_log_level, std::string>> lines_;
};

// "expected an error naming <fn>; log was: ..." for EXPECT_TRUE(log.has_error(...)) << logged(log)
inline std::string logged(const LogCapture & log) {
    return "\nlog:\n" + log.text();
}

// ---- child processes ----

// Exit codes of a child made by run_in_child.
inline constexpr int kChildPassed  = 0;
inline constexpr int kChildFailed  = 1;  // the body reported failed expectations
inline constexpr int kChildAborted = 86; // the abort callback fired

struct ChildResult {
    bool        exited    = false; // ended through exit, not a signal
    int         exit_code = -1;
    int         signal    = 0;
    std::string report;        // what the body returned (failed expectations), or the abort message
    std::string stderr_text;   // everything the child wrote to stderr

    bool passed() const { return exited && exit_code == kChildPassed; }
    bool aborted() const { return exited && exit_code == kChildAborted; }
    bool terminated_by_exception() const { return stderr_text.find("terminate called") != std::string::npos; }

    std::string describe() const {
        std::string s = exited ? "child exited with code " + std::to_string(exit_code)
                               : "child killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
        if (exited && exit_code == kChildAborted) {
            s += " (abort callback)";
        }
        s += "\nreport: " + (report.empty() ? std::string("(none)") : report);
        s += "\nstderr:\n" + (stderr_text.empty() ? std::string("(empty)\n") : stderr_text);
        return s;
    }
};

namespace detail {

inline int g_report_fd = -1;

inline void write_all(int fd, const std::string & text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            return;
        }
        done += static_cast<size_t>(n);
    }
}

// The abort callback of a child: report the message and leave at once (before std::abort).
inline void child_abort_callback(const char * message) {
    write_all(g_report_fd, std::string("abort callback: ") + (message != nullptr ? message : "(null)"));
    ::_exit(kChildAborted);
}

// Reads both pipes until the child has closed them.
inline void drain(int report_fd, int stderr_fd, std::string & report, std::string & err) {
    pollfd fds[2] = {{report_fd, POLLIN, 0}, {stderr_fd, POLLIN, 0}};
    int    open   = 2;
    char   chunk[4096];
    while (open > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            const ssize_t n = ::read(fds[i].fd, chunk, sizeof(chunk));
            if (n > 0) {
                (i == 0 ? report : err).append(chunk, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
}

} // namespace detail

// Runs body in a forked child with the abort callback installed. body returns "" when all its expectations held,
// else a description of what failed. The child never returns into the test framework: it leaves with _exit (no
// static destructors, no leak check of a deliberately starved child).
inline ChildResult run_in_child(const std::function<std::string()> & body) {
    ChildResult result;
    int         report_pipe[2];
    int         stderr_pipe[2];
    if (::pipe(report_pipe) != 0 || ::pipe(stderr_pipe) != 0) {
        result.report = "pipe() failed";
        return result;
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.report = "fork() failed";
        return result;
    }
    if (pid == 0) {
        ::close(report_pipe[0]);
        ::close(stderr_pipe[0]);
        ::dup2(stderr_pipe[1], STDERR_FILENO);
        ::close(stderr_pipe[1]);
        detail::g_report_fd = report_pipe[1];
        ggml_set_abort_callback(detail::child_abort_callback);
        std::string report;
        try {
            report = body();
        } catch (const std::exception & e) {
            report = std::string("exception escaped into the test: ") + e.what();
        } catch (...) {
            report = "unknown exception escaped into the test";
        }
        detail::write_all(report_pipe[1], report);
        std::fflush(nullptr);
        ::_exit(report.empty() ? kChildPassed : kChildFailed);
    }
    ::close(report_pipe[1]);
    ::close(stderr_pipe[1]);
    detail::drain(report_pipe[0], stderr_pipe[0], result.report, result.stderr_text);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exited    = WIFEXITED(status);
    result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
    result.signal    = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return result;
}

// Appends "what" to a child's report when cond is false (the child's stand-in for EXPECT_TRUE).
inline void check(std::string & report, bool cond, const std::string & what) {
    if (!cond) {
        report += what + "\n";
    }
}

// ---- owners ----

// the handle owners of src/base/owners.h (ContextPtr, BufferPtr, BackendPtr, SchedPtr, GallocrPtr)

// A context for tensor metadata (no_alloc) with room for n tensors and a graph.
inline ContextPtr meta_context(size_t n_tensors = 64) {
    ggml_init_params params = {n_tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    return ContextPtr(ggml_init(params));
}

// ---- data helpers ----

inline std::vector<float> iota_f32(size_t n, float start = 1.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = start + static_cast<float>(i);
    }
    return v;
}

inline std::vector<uint8_t> read_bytes(const ggml_tensor * t) {
    std::vector<uint8_t> out(ggml_nbytes(t));
    ggml_backend_tensor_get(t, out.data(), 0, out.size());
    return out;
}

inline void write_bytes(ggml_tensor * t, const std::vector<uint8_t> & bytes) {
    ggml_backend_tensor_set(t, bytes.data(), 0, bytes.size());
}

inline std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = static_cast<uint8_t>(seed + 31 * i);
    }
    return v;
}

// A tensor `t` with a guard tensor on each side, all three F32 [n] and adjacent in one buffer of buft, filled
// with distinct byte patterns. intact() says whether the three still hold them (t unchanged too).
class GuardedTensor {
public:
    GuardedTensor(ggml_backend_buffer_type_t buft, int64_t n) : ctx_(meta_context(8)) {
        lo_ = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, n);
        t_  = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, n);
        hi_ = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, n);
        ggml_set_name(lo_, "guard_lo");
        ggml_set_name(t_, "target");
        ggml_set_name(hi_, "guard_hi");
        buffer_.reset(ggml_backend_alloc_ctx_tensors_from_buft(ctx_.get(), buft));
        if (buffer_ == nullptr) {
            ADD_FAILURE() << "GuardedTensor: cannot allocate in " << ggml_backend_buft_name(buft);
            return;
        }
        const size_t bytes = ggml_nbytes(t_);
        lo_bytes_          = pattern(bytes, 0x11);
        t_bytes_           = pattern(bytes, 0x55);
        hi_bytes_          = pattern(bytes, 0x99);
        write_bytes(lo_, lo_bytes_);
        write_bytes(t_, t_bytes_);
        write_bytes(hi_, hi_bytes_);
    }

    ggml_tensor *         t() const { return t_; }
    ggml_context *        ctx() const { return ctx_.get(); }
    ggml_backend_buffer_t buffer() const { return buffer_.get(); }
    bool                  ok() const { return buffer_ != nullptr; }
    const std::vector<uint8_t> & original() const { return t_bytes_; }

    // the guards and t hold what they were given (read without logging into a capture of the caller's)
    ::testing::AssertionResult intact() const {
        if (read_bytes(lo_) != lo_bytes_) {
            return ::testing::AssertionFailure() << "the guard tensor before the target changed";
        }
        if (read_bytes(hi_) != hi_bytes_) {
            return ::testing::AssertionFailure() << "the guard tensor after the target changed";
        }
        if (read_bytes(t_) != t_bytes_) {
            return ::testing::AssertionFailure() << "the target tensor changed";
        }
        return ::testing::AssertionSuccess();
    }

private:
    ContextPtr           ctx_;
    BufferPtr            buffer_;
    ggml_tensor *        lo_ = nullptr;
    ggml_tensor *        t_  = nullptr;
    ggml_tensor *        hi_ = nullptr;
    std::vector<uint8_t> lo_bytes_, t_bytes_, hi_bytes_;
};

} // namespace switchyard::bad_input
