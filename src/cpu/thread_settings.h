// Placement and priority of thread-pool workers (best-effort: a setting the system refuses is skipped and
// logged at debug level, never reported as an error).
#pragma once

#include "ggml.h"

namespace switchyard::cpu {

// Applies params.cpumask and params.prio to the calling thread, worker number ith of the pool. An all-false
// cpumask keeps the inherited affinity; with strict_cpu each worker gets one core of the mask, in turn.
void apply_worker_settings(const ggml_threadpool_params & params, int ith);

} // namespace switchyard::cpu
