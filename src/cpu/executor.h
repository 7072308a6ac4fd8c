// The CPU backend's entry into the graph executor (executor.cpp).
#pragma once

#include "ggml-cpu.h"
#include "ggml.h"

namespace switchyard::cpu {

// Completes a plan whose n_threads and work_size are set: the thread pool, abort callback, use_ref and work memory
// of the computation; false (logged) when the work memory cannot be had.
using PreparePlan = bool (*)(void * user, ggml_cplan & cplan);

// ggml_graph_plan followed by ggml_graph_compute in one pass over the nodes instead of two (a decode step's graph
// has thousands of small nodes, checked on every token): the nodes are checked and their steps built for
// n_threads threads (an effective count, plan.cpp), the plan they imply is the one ggml_graph_plan makes
// (n_threads lowered to the most any node uses, the same work_size), `prepare` completes it, and the steps run.
// GGML_STATUS_ALLOC_FAILED when `prepare` fails.
ggml_status compute_graph(ggml_cgraph * cgraph, int n_threads, PreparePlan prepare, void * user);

} // namespace switchyard::cpu
