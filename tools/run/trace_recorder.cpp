#include "trace_recorder.h"

#include "json_quote.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace switchyard::run {

namespace {

// the number after `"key": ` in an event line; false when absent
bool number_after(const std::string & line, const char * key, int64_t & v) {
    const std::string k  = std::string("\"") + key + "\": ";
    const size_t      at = line.find(k);
    if (at == std::string::npos) {
        return false;
    }
    char * end = nullptr;
    v          = std::strtoll(line.c_str() + at + k.size(), &end, 10);
    return end != line.c_str() + at + k.size();
}

std::string temporary_path() {
    static std::atomic<int> counter{0};
    std::error_code         ec;
    std::filesystem::path   dir = std::filesystem::temp_directory_path(ec);
    if (ec) {
        dir = "/tmp";
    }
    return (dir / ("switchyard-run-trace-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json"))
        .string();
}

} // namespace

TraceRecorder::~TraceRecorder() {
    detach();
    if (out_ != nullptr) {
        std::fclose(out_);
    }
}

bool TraceRecorder::open(const std::string & path, std::string & error) {
    out_ = std::fopen(path.c_str(), "w");
    if (out_ == nullptr) {
        error = "cannot write the trace to '" + path + "': " + std::strerror(errno);
        return false;
    }
    path_ = path;
    return true;
}

void TraceRecorder::attach(ggml_backend_sched_t sched) {
    detach();
    sched_ = sched;
    tmp_   = temporary_path();
    tracks_.clear();
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); ++i) {
        tracks_.push_back(ggml_backend_name(ggml_backend_sched_get_backend(sched, i)));
    }
    ggml_backend_sched_set_trace(sched_, tmp_.c_str());
}

void TraceRecorder::detach() {
    if (sched_ != nullptr) {
        ggml_backend_sched_set_trace(sched_, nullptr);
        sched_ = nullptr;
    }
    if (!tmp_.empty()) {
        std::remove(tmp_.c_str());
        tmp_.clear();
    }
}

void TraceRecorder::collect(int64_t n_tokens, int64_t n_past) {
    if (sched_ == nullptr) {
        return;
    }
    std::ifstream in(tmp_);
    const int     compute = n_computes_++;
    int64_t       first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    // the scheduler writes one event per line: {"ph": "X", "pid": 1, "tid": B, ..., "args": {"bytes": N}},
    for (std::string line; std::getline(in, line);) {
        const size_t start = line.find("{\"ph\": \"X\"");
        const size_t args  = line.find("\"args\": {");
        int64_t      ts = 0, dur = 0;
        if (start == std::string::npos || args == std::string::npos || !number_after(line, "ts", ts) ||
            !number_after(line, "dur", dur)) {
            continue;
        }
        std::string event = line.substr(start);
        while (!event.empty() && (event.back() == ',' || event.back() == ' ')) {
            event.pop_back();
        }
        event.insert(args - start + 9, "\"compute\": " + std::to_string(compute) + ", ");
        events_.push_back(event);
        first = std::min(first, ts);
        last  = std::max(last, ts + dur);
    }
    if (first > last) {
        return; // the scheduler wrote nothing for this computation
    }
    std::ostringstream slice;
    slice << "{\"ph\": \"X\", \"pid\": 1, \"tid\": " << tracks_.size() << ", \"name\": \"compute " << compute << ": "
          << n_tokens << " tokens after " << n_past << "\", \"cat\": \"graph\", \"ts\": " << first
          << ", \"dur\": " << last - first << ", \"args\": {\"compute\": " << compute << ", \"n_tokens\": " << n_tokens
          << ", \"n_past\": " << n_past << "}}";
    events_.push_back(slice.str());
}

bool TraceRecorder::finish(std::string & error) {
    if (out_ == nullptr) {
        error = "the trace file is not open";
        return false;
    }
    std::fprintf(out_, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    std::fprintf(out_, "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"switchyard-run\"}}");
    std::vector<std::string> names = tracks_;
    names.push_back("computations");
    for (size_t tid = 0; tid < names.size(); ++tid) {
        std::fprintf(out_, ",\n  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %zu, \"args\": {\"name\": %s}}",
                     tid, json_quote(names[tid]).c_str());
    }
    for (const std::string & e : events_) {
        std::fprintf(out_, ",\n  %s", e.c_str());
    }
    std::fprintf(out_, "\n]}\n");
    const bool failed = std::ferror(out_) != 0;
    const int  err    = errno;
    const bool closed = std::fclose(out_) == 0;
    out_              = nullptr;
    if (failed || !closed) {
        error = "cannot write the trace to '" + path_ + "': " + std::strerror(failed ? err : errno);
        return false;
    }
    return true;
}

} // namespace switchyard::run
