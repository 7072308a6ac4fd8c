// The meta backend's part of the scheduler's plan export (ggml_backend_sched_plan_json): for the nodes of one
// split, the split state of every computed tensor, the all-reduces, gathers and replicated fallbacks the meta
// backend will perform, and the device memory of the compute buffers the nodes live in.
#pragma once

#include "ggml-backend.h"

#include <string>

namespace switchyard::meta {

// A JSON object describing how meta_backend runs graph; "null" if meta_backend is not a meta backend. Does not
// need the graph to be allocated (states come from the split rules then).
std::string plan_json(ggml_backend_t meta_backend, const ggml_cgraph * graph);

} // namespace switchyard::meta
