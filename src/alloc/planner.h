// Offline placement of one allocator group's blocks, with every block's lifetime known.
//
// First the quick plan of free_list_sweep.h (creation order into a free list, O(n) for the graphs models
// build); it is kept when it reaches the lower bound (the most bytes alive at one time), which no plan can beat.
// Otherwise the planner places blocks one at a time in a chosen order (largest first by default); each goes to a
// hole of the address space that no already placed block with an intersecting lifetime occupies (best fit among
// holes, or lowest address). Placing big blocks first while the address space is still empty avoids the
// fragmentation of an allocator that must decide when each tensor is created. Several orders are tried and the
// smallest plan kept (the quick one included); the search stops early when a plan reaches the lower bound.
#pragma once

#include "alloc/dyn_allocator.h"
#include "alloc/graph_scan.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

struct PackResult {
    std::vector<Address> addresses;   // per member block, in the order of `members`
    std::vector<size_t>  chunk_sizes; // per chunk (at least one)
    size_t               total       = 0;
    size_t               lower_bound = 0;
    int                  strategy    = 0; // which order/policy won (for logs and benchmarks)
};

// PackResult::strategy of the quick creation-order plan (free_list_sweep.h); the lifetime-aware orders are 0...
inline constexpr int kFreeListStrategy = -1;

enum class PlanPolicy {
    Smallest, // the smallest plan found (stops at the lower bound): the default
    Quick,    // the free-list sweep alone when it fits one chunk (SWITCHYARD_GALLOC_PLAN=quick): faster; on
              // alloc_plan's graphs 1.00-1.10 x the bound for language models, 1.19-1.30 x for the MLP and CNNs
};

// Places blocks[members[i]] for all i. n_times: the number of distinct times (end_time + 1).
PackResult pack_blocks(const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                       size_t max_chunk_size, int32_t n_times, PlanPolicy policy = PlanPolicy::Smallest);

// The policy named by the environment variable SWITCHYARD_GALLOC_PLAN ("quick"; anything else: Smallest).
PlanPolicy plan_policy_from_env();

// The most bytes alive at one time among blocks[members[i]].
size_t live_lower_bound(const std::vector<Block> & blocks, const std::vector<int32_t> & members, int32_t n_times);

// Names of the strategies tried by pack_blocks, indexed by PackResult::strategy.
const char * pack_strategy_name(int strategy);

} // namespace switchyard::alloc
