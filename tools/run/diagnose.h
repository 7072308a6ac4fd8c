// switchyard-run: finding where a computation first produces a non-finite value (NaN or infinity), for the
// message when the logits are not finite. The tokens are run again from an empty cache with the scheduler's
// eval callback (ggml_backend_sched_set_eval_callback) inspecting the output of each node in graph order: the
// first F32 or F16 node holding a non-finite value stops the computation and is described by its name (graph.h
// names them as llama.cpp does), its op and its sources.
#pragma once

#include "context.h"

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard::run {

// The index of the first non-finite value, -1 when all are finite.
int64_t first_non_finite(const std::vector<float> & values);

// Runs tokens through ctx from an empty cache (the cache then holds them, as far as the computation got) and
// returns "node 'ffn_out-1' (MUL_MAT of 'blk.1.ffn_down.weight' and 'ffn_swiglu-1') holds nan at element 12",
// or a sentence saying no node did when every output was finite.
std::string find_non_finite_node(Context & ctx, const std::vector<int32_t> & tokens);

} // namespace switchyard::run
