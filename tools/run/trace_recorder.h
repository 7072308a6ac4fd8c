// switchyard-run --trace: one Chrome/Perfetto trace (JSON "traceEvents", loadable by ui.perfetto.dev and
// chrome://tracing) of every computation of a run. The scheduler's own trace (ggml_backend_sched_set_trace)
// rewrites its file after each compute, so the recorder points it at a temporary file, reads that file's slices
// after each computation (collect), and writes them all at the end (finish): one track (tid) per backend of the
// scheduler with its name, the scheduler's slices (one per split and per input copy, with the bytes copied),
// each with args.compute = its computation's index, and on a track of its own ("computations") one slice per
// computation spanning its slices, named "compute N: T tokens after P".
#pragma once

#include "ggml-backend.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::run {

class TraceRecorder {
public:
    TraceRecorder() = default;
    ~TraceRecorder();
    TraceRecorder(const TraceRecorder &)             = delete;
    TraceRecorder & operator=(const TraceRecorder &) = delete;

    // Opens path for writing now (created or truncated), so that a path that cannot be written fails before the
    // run; false with a message naming the path and the system's reason.
    bool open(const std::string & path, std::string & error);

    // Starts tracing the scheduler's computations (into a temporary file); the track names are its backends'.
    void attach(ggml_backend_sched_t sched);
    // Stops tracing (the scheduler writes no more); collected slices stay.
    void detach();

    // Reads the slices of the computation that just ran (n_tokens after n_past cached ones).
    void collect(int64_t n_tokens, int64_t n_past);

    // Writes the trace to the opened path and closes it; false with a message when the write fails.
    bool finish(std::string & error);

    int n_computes() const { return n_computes_; }

private:
    std::FILE *              out_   = nullptr;
    std::string              path_;
    std::string              tmp_;
    ggml_backend_sched_t     sched_ = nullptr;
    std::vector<std::string> tracks_; // the backends' names, by tid
    std::vector<std::string> events_; // JSON objects
    int                      n_computes_ = 0;
};

} // namespace switchyard::run
