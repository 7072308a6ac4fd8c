// switchyard-run --bench: the ceiling of token generation on this machine, measured in the same run. Generating a
// token reads every weight matrix once, so tokens/s cannot exceed (DRAM read bandwidth) / (bytes of weights read
// per token) when the weights live in DRAM.
#pragma once

#include "model.h"

#include <cstdint>

namespace switchyard::run {

// GB/s of reading a 1 GiB array (larger than the last-level caches) summed by n_threads threads; the median of
// three passes. 0 when the array cannot be allocated.
double dram_read_gbs(int n_threads);

// Bytes of weights one generated token reads: every matrix once, one row of the token embeddings (all of them
// when the output is tied to them).
uint64_t weight_bytes_per_token(const Model & model);

} // namespace switchyard::run
