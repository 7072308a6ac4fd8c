// The quick plan tried first: blocks placed in creation order into a free list, as a run-time allocator would
// place them (upstream ggml's strategy, with the lifetimes this planner knows). A sweep over time allocates the
// blocks that start at t, then frees those that end at t (busy intervals are closed); each allocation takes
// the free range that fits with the least waste, else the end of the address space. O(n + n F) for F free
// ranges at a time (a handful in the graphs models build), against O(n log n) to O(n^2) for the lifetime-aware
// orders. When it reaches the lower bound, the planner needs nothing else.
#pragma once

#include "alloc/planner.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

// Places blocks[members[i]] for all i in one chunk (result.addresses, chunk_sizes, total; strategy left 0).
// False, with `result` unspecified, when one chunk of max_chunk_size bytes is not enough: the caller then uses
// the chunk-aware placement.
bool free_list_sweep(const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                     size_t max_chunk_size, int32_t n_times, PackResult & result);

} // namespace switchyard::alloc
