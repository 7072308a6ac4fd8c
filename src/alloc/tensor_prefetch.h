// Prefetching a tensor's header ahead of a pass over a graph. A graph of 10,000 nodes spreads its tensors over
// megabytes, more than the core's cache: a pass that reads each node's sources and view source then waits on
// memory at every node. Asking for the tensor a few nodes ahead overlaps those waits.
#pragma once

#include "ggml.h"

#include <cstddef>

namespace switchyard::alloc {

// How many nodes ahead the graph passes prefetch.
inline constexpr int kPrefetchDistance = 8;

// Starts loading every cache line of *t (no effect on the program's meaning; t may be any readable tensor).
inline void prefetch_tensor(const ggml_tensor * t) {
    const char * bytes = reinterpret_cast<const char *>(t);
    for (size_t offset = 0; offset < sizeof(ggml_tensor); offset += 64) {
        __builtin_prefetch(bytes + offset);
    }
    __builtin_prefetch(bytes + sizeof(ggml_tensor) - 1);
}

// For a pass over nodes: at node i, loads node i + kPrefetchDistance.
inline void prefetch_ahead(ggml_tensor * const * nodes, int n_nodes, int i) {
    if (i + kPrefetchDistance < n_nodes) {
        prefetch_tensor(nodes[i + kPrefetchDistance]);
    }
}

} // namespace switchyard::alloc
