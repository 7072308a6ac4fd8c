// A Chrome/Perfetto trace (JSON "traceEvents") of each compute: one track (tid) per backend, one slice per
// split and per input copy, with the bytes copied. Enabled by GGML_SCHED_TRACE=<path> or
// ggml_backend_sched_set_trace; the file is rewritten after every compute.
#include "backend/sched/sched.h"

#include "base/json.h"
#include "base/log.h"

#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::sched {

struct Trace {
    struct Slice {
        int         backend_id;
        std::string name;
        const char * category;
        int64_t     t_start_us;
        int64_t     t_end_us;
        size_t      bytes;
    };
    std::vector<Slice> slices;
};

void trace_enable(ggml_backend_sched * sched, const char * path) {
    if (!path || !*path) {
        trace_free(sched);
        sched->trace_path.clear();
        return;
    }
    sched->trace_path = path;
    if (!sched->trace) {
        sched->trace.reset(new Trace());
    }
}

void trace_begin(ggml_backend_sched * sched) {
    sched->trace->slices.clear();
}

void trace_slice(ggml_backend_sched * sched, int backend_id, const char * name, const char * category,
                 int64_t t_start_us, int64_t t_end_us, size_t bytes) {
    sched->trace->slices.push_back(Trace::Slice{backend_id, name, category, t_start_us, t_end_us, bytes});
}

void trace_end(ggml_backend_sched * sched) {
    std::FILE * f = std::fopen(sched->trace_path.c_str(), "w");
    if (!f) {
        log_error("[ggml_backend_sched] cannot write the trace to '%s'\n", sched->trace_path.c_str());
        return;
    }
    std::fprintf(f, "{\"traceEvents\": [\n");
    for (int i = 0; i < sched->n_backends; ++i) {
        std::fprintf(f, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": %s}},\n",
                     i, json_string(ggml_backend_name(sched->backends[i])).c_str());
    }
    const auto & slices = sched->trace->slices;
    for (size_t i = 0; i < slices.size(); ++i) {
        const Trace::Slice & s = slices[i];
        std::fprintf(f,
                     "  {\"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"name\": %s, \"cat\": \"%s\", \"ts\": %lld, "
                     "\"dur\": %lld, \"args\": {\"bytes\": %zu}}%s\n",
                     s.backend_id, json_string(s.name.c_str()).c_str(), s.category, static_cast<long long>(s.t_start_us),
                     static_cast<long long>(s.t_end_us - s.t_start_us), s.bytes, i + 1 < slices.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
}

void trace_free(ggml_backend_sched * sched) {
    sched->trace.reset();
}

void TraceDeleter::operator()(Trace * trace) const {
    delete trace;
}

} // namespace switchyard::sched
