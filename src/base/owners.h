// Owners for the C API's handles (as upstream's ggml-cpp.h offers them to applications): a std::unique_ptr that
// frees its context, buffer, allocator, event, backend or scheduler on every path out of a scope, error paths and exceptions
// included. Use them wherever a function creates several handles and can fail between creations.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <memory>

namespace switchyard {

struct ContextDeleter {
    void operator()(ggml_context * ctx) const { ggml_free(ctx); }
};
struct BufferDeleter {
    void operator()(ggml_backend_buffer_t buffer) const { ggml_backend_buffer_free(buffer); }
};
struct GallocrDeleter {
    void operator()(ggml_gallocr_t galloc) const { ggml_gallocr_free(galloc); }
};
struct EventDeleter {
    void operator()(ggml_backend_event_t event) const { ggml_backend_event_free(event); }
};
struct BackendDeleter {
    void operator()(ggml_backend_t backend) const { ggml_backend_free(backend); }
};
struct SchedDeleter {
    void operator()(ggml_backend_sched_t sched) const { ggml_backend_sched_free(sched); }
};

using ContextPtr = std::unique_ptr<ggml_context, ContextDeleter>;
using BufferPtr  = std::unique_ptr<ggml_backend_buffer, BufferDeleter>;
using GallocrPtr = std::unique_ptr<ggml_gallocr, GallocrDeleter>;
using EventPtr   = std::unique_ptr<ggml_backend_event, EventDeleter>;
using BackendPtr = std::unique_ptr<ggml_backend, BackendDeleter>;
using SchedPtr   = std::unique_ptr<ggml_backend_sched, SchedDeleter>;

} // namespace switchyard
