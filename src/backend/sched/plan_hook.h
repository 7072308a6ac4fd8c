// The scheduler's plan export (ggml_backend_sched_plan_json) asks a backend's own describer for the part only the
// backend knows: for the meta backend, how it splits, all-reduces and gathers the nodes of a split. The scheduler
// sits below the meta device and knows no device; the meta device registers its describer when it creates its
// first backend, so a split can only be on a meta backend after the describer is there.
#pragma once

#include "ggml-backend.h"

#include <string>

namespace switchyard::sched {

// A JSON object describing how `backend` runs `graph`, or "null" when `backend` is not the describer's kind.
using BackendPlanJsonFn = std::string (*)(ggml_backend_t backend, const ggml_cgraph * graph);

// Sets the describer (one: the meta device's); later calls with the same function change nothing.
void set_backend_plan_json(BackendPlanJsonFn fn);

} // namespace switchyard::sched
