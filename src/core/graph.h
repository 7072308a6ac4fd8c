// The compute graph: nodes (tensors produced by ops, in execution order) and leafs (constants and inputs),
// with a hash set for "already in the graph" and a per-tensor use count. Backends and the scheduler read
// nodes/leafs directly.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

// Open-addressing set of tensor pointers; `used` is a bitset over the slots.
struct ggml_hash_set {
    size_t                size;
    uint32_t *            used;
    struct ggml_tensor ** keys;
};

enum ggml_cgraph_eval_order {
    GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT = 0,
    GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT,
    GGML_CGRAPH_EVAL_ORDER_COUNT
};

struct ggml_cgraph {
    int size;    // capacity of nodes/leafs/grads
    int n_nodes;
    int n_leafs;

    struct ggml_tensor ** nodes;
    struct ggml_tensor ** grads;     // nullptr unless created with grads
    struct ggml_tensor ** grad_accs; // nullptr unless created with grads
    struct ggml_tensor ** leafs;
    int32_t *             use_counts; // consumers inside the graph, indexed by hash slot

    struct ggml_hash_set visited_hash_set;

    enum ggml_cgraph_eval_order order;

    uint64_t uid; // unique per graph built; 0 for views and copies (unknown)
};

namespace switchyard {

inline constexpr size_t kHashFull = static_cast<size_t>(-1);

// Slot count for a set holding n tensors (a prime a bit above 2n).
size_t hash_size(size_t min_size);

// Slot of t if present, else the slot where it would go; kHashFull if the set is full.
size_t hash_find(const ggml_hash_set * set, const ggml_tensor * t);
bool   hash_contains(const ggml_hash_set * set, const ggml_tensor * t);
// Inserts t; returns its slot, or kHashFull when t was already present (the caller learns "seen before").
size_t hash_insert(ggml_hash_set * set, ggml_tensor * t);
size_t hash_find_or_insert(ggml_hash_set * set, ggml_tensor * t);
void   hash_reset(ggml_hash_set * set);

// A graph over nodes [i0, i1) of cgraph sharing its storage (no leafs, uid 0).
ggml_cgraph graph_view(ggml_cgraph * cgraph, int i0, int i1);

} // namespace switchyard
