// Compute graphs: the tensor hash set, graph storage inside a context, building (a depth-first walk that
// appends every tensor once, sources before consumers), copies, views and accessors. Printing and DOT export
// live in graph_io.cpp.
//
// A graph is one context object (GGML_OBJECT_TYPE_GRAPH): the ggml_cgraph header followed by its arrays,
// laid out by graph_layout() so that ggml_graph_overhead_custom() and ggml_new_graph_custom() always agree.
#include "core/graph.h"

#include "ggml-backend.h"

#include "base/abort.h"
#include "base/log.h"
#include "core/context.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <new>
#include <vector>

namespace switchyard {

namespace {

constexpr size_t kBitsPerWord = 32;

size_t bitset_words(size_t n) {
    return (n + kBitsPerWord - 1) / kBitsPerWord;
}

bool bit_get(const uint32_t * bits, size_t i) {
    return (bits[i / kBitsPerWord] >> (i % kBitsPerWord)) & 1u;
}

void bit_set(uint32_t * bits, size_t i) {
    bits[i / kBitsPerWord] |= 1u << (i % kBitsPerWord);
}

bool is_prime(size_t n) {
    if (n < 2) {
        return false;
    }
    for (size_t d = 2; d * d <= n; ++d) {
        if (n % d == 0) {
            return false;
        }
    }
    return true;
}

size_t slot_of(const ggml_hash_set * set, const ggml_tensor * t) {
    // tensors are at least 16-byte aligned: the low bits carry no information
    return (reinterpret_cast<uintptr_t>(t) >> 4) % set->size;
}

size_t align_to(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

// Byte offsets of a graph's arrays from the start of its ggml_cgraph header.
struct GraphLayout {
    size_t hash_slots;
    size_t nodes, leafs, use_counts, keys, grads, grad_accs, used;
    size_t total;
};

GraphLayout graph_layout(size_t size, bool grads) {
    GraphLayout l{};
    l.hash_slots = hash_size(size);
    size_t off   = sizeof(ggml_cgraph);
    auto   take  = [&off](size_t bytes, size_t align) {
        const size_t at = align_to(off, align);
        off             = at + bytes;
        return at;
    };
    constexpr size_t kPtr = sizeof(ggml_tensor *);
    l.nodes      = take(size * kPtr, kPtr);
    l.leafs      = take(size * kPtr, kPtr);
    l.use_counts = take(l.hash_slots * sizeof(int32_t), sizeof(int32_t));
    l.keys       = take(l.hash_slots * kPtr, kPtr);
    l.grads      = grads ? take(l.hash_slots * kPtr, kPtr) : 0;
    l.grad_accs  = grads ? take(l.hash_slots * kPtr, kPtr) : 0;
    l.used       = take(bitset_words(l.hash_slots) * sizeof(uint32_t), sizeof(uint32_t));
    l.total      = off;
    return l;
}

uint64_t next_graph_uid() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Leafs are constants and inputs: no op, not a trainable parameter. Everything else is a node.
bool is_leaf(const ggml_tensor * t) {
    return t->op == GGML_OP_NONE && !(t->flags & GGML_TENSOR_FLAG_PARAM);
}

// Appends a tensor whose sources are all in the graph already, as a leaf or as a node. Unnamed tensors get the
// names upstream gives them ("leaf_<i>", "node_<i>").
void append_visited(ggml_cgraph * g, ggml_tensor * t) {
    const bool leaf = is_leaf(t);
    int &      n    = leaf ? g->n_leafs : g->n_nodes;
    if (n >= g->size) {
        fatal("[ggml_build_forward_expand] graph is full: adding '%s' needs more than %d %s; "
              "create the graph with ggml_new_graph_custom and a larger size",
              t->name, g->size, leaf ? "leafs" : "nodes");
    }
    if (t->name[0] == '\0') {
        ggml_format_name(t, leaf ? "leaf_%d" : "node_%d", n);
    }
    (leaf ? g->leafs : g->nodes)[n++] = t;
}

// Sets the COMPUTE flag on t (if it is a node) and on every node it depends on that lacks it. Used when a
// tensor already in the graph is reached again after its flag was cleared (the meta backend clears it).
void mark_compute(ggml_tensor * root) {
    if (is_leaf(root) || (root->flags & GGML_TENSOR_FLAG_COMPUTE)) {
        return; // the common case: nothing to do, no allocation
    }
    std::vector<ggml_tensor *> stack{root};
    while (!stack.empty()) {
        ggml_tensor * t = stack.back();
        stack.pop_back();
        if (is_leaf(t) || (t->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            continue;
        }
        t->flags |= GGML_TENSOR_FLAG_COMPUTE;
        for (ggml_tensor * src : t->src) {
            if (src) {
                stack.push_back(src);
            }
        }
    }
}

struct VisitFrame {
    ggml_tensor * tensor;
    int           next_src; // position in the evaluation order of the next source to look at
};

int src_index(const ggml_cgraph * g, int pos) {
    return g->order == GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT ? GGML_MAX_SRC - 1 - pos : pos;
}

// First visit of t: records it in the hash set with no uses yet, flagged for computing when `compute`. Returns
// its slot.
size_t enter(ggml_cgraph * g, ggml_tensor * t, bool compute) {
    const size_t slot = hash_find_or_insert(&g->visited_hash_set, t);
    g->use_counts[slot] = 0;
    if (compute && !is_leaf(t)) {
        t->flags |= GGML_TENSOR_FLAG_COMPUTE;
    }
    return slot;
}

// Iterative post-order depth-first walk from root (graphs can be deeper than the stack allows recursion).
// Every source edge of a newly added tensor counts one use of that source. With `compute`, root and everything it
// depends on get GGML_TENSOR_FLAG_COMPUTE (also those already in the graph); without, new tensors are only placed.
void visit(ggml_cgraph * g, ggml_tensor * root, bool compute) {
    ggml_hash_set * set = &g->visited_hash_set;
    if (hash_contains(set, root)) {
        if (compute) {
            mark_compute(root);
        }
        return;
    }
    enter(g, root, compute);
    std::vector<VisitFrame> stack{{root, 0}};
    while (!stack.empty()) {
        VisitFrame & top = stack.back();
        if (top.next_src == GGML_MAX_SRC) {
            append_visited(g, top.tensor);
            stack.pop_back();
            continue;
        }
        ggml_tensor * src = top.tensor->src[src_index(g, top.next_src++)];
        if (!src) {
            continue;
        }
        const size_t slot = hash_find(set, src);
        if (slot != kHashFull && bit_get(set->used, slot)) {
            if (compute) {
                mark_compute(src);
            }
            g->use_counts[slot]++;
            continue;
        }
        g->use_counts[enter(g, src, compute)]++;
        stack.push_back({src, 0}); // invalidates `top`
    }
}

} // namespace

size_t hash_size(size_t min_size) {
    size_t n = min_size * 2;
    if (n < 2) {
        return 2;
    }
    while (!is_prime(n)) {
        ++n;
    }
    return n;
}

size_t hash_find(const ggml_hash_set * set, const ggml_tensor * t) {
    const size_t start = slot_of(set, t);
    size_t       i     = start;
    do {
        if (!bit_get(set->used, i) || set->keys[i] == t) {
            return i;
        }
        i = (i + 1) % set->size;
    } while (i != start);
    return kHashFull;
}

bool hash_contains(const ggml_hash_set * set, const ggml_tensor * t) {
    const size_t i = hash_find(set, t);
    return i != kHashFull && bit_get(set->used, i);
}

size_t hash_insert(ggml_hash_set * set, ggml_tensor * t) {
    const size_t i = hash_find(set, t);
    if (i == kHashFull) {
        fatal("[hash_insert] tensor hash set of %zu slots is full", set->size);
    }
    if (bit_get(set->used, i)) {
        return kHashFull;
    }
    bit_set(set->used, i);
    set->keys[i] = t;
    return i;
}

size_t hash_find_or_insert(ggml_hash_set * set, ggml_tensor * t) {
    const size_t i = hash_find(set, t);
    if (i == kHashFull) {
        fatal("[hash_find_or_insert] tensor hash set of %zu slots is full", set->size);
    }
    bit_set(set->used, i);
    set->keys[i] = t;
    return i;
}

void hash_reset(ggml_hash_set * set) {
    std::memset(set->used, 0, bitset_words(set->size) * sizeof(uint32_t));
}

ggml_cgraph graph_view(ggml_cgraph * cgraph, int i0, int i1) {
    ggml_cgraph view{};
    view.size             = i1 - i0; // full: nothing can be appended to a view
    view.n_nodes          = i1 - i0;
    view.n_leafs          = 0;
    view.nodes            = cgraph->nodes + i0;
    view.grads            = nullptr;
    view.grad_accs        = nullptr;
    view.leafs            = nullptr;
    view.use_counts       = cgraph->use_counts;
    view.visited_hash_set = cgraph->visited_hash_set;
    view.order            = cgraph->order;
    view.uid              = 0;
    return view;
}

} // namespace switchyard

using namespace switchyard;

namespace {

bool has_slot(const ggml_cgraph * g, const ggml_tensor * t, size_t * slot) {
    *slot = hash_find(&g->visited_hash_set, t);
    return *slot != kHashFull && bit_get(g->visited_hash_set.used, *slot);
}

void copy_grads(const ggml_cgraph * src, ggml_cgraph * dst) {
    const size_t slots = dst->visited_hash_set.size;
    if (dst->grads) {
        std::memset(dst->grads, 0, slots * sizeof(ggml_tensor *));
        std::memset(dst->grad_accs, 0, slots * sizeof(ggml_tensor *));
    }
    if (!src->grads) {
        return;
    }
    if (!dst->grads) {
        fatal("[ggml_graph_cpy] the source graph has gradients, the destination has no room for them");
    }
    for (int i = 0; i < src->n_nodes; ++i) {
        size_t is = 0;
        size_t id = 0;
        if (has_slot(src, src->nodes[i], &is) && has_slot(dst, dst->nodes[i], &id)) {
            dst->grads[id]     = src->grads[is];
            dst->grad_accs[id] = src->grad_accs[is];
        }
    }
}

// The gradient of a loss with respect to itself: 1.
void set_loss_grad(ggml_tensor * acc) {
    if (acc->type != GGML_TYPE_F32 || !ggml_is_scalar(acc)) {
        fatal("[ggml_graph_reset] the gradient of loss '%s' must be an f32 scalar", acc->name);
    }
    const float one = 1.0f;
    if (acc->buffer) {
        ggml_backend_tensor_set(acc, &one, 0, sizeof(one));
    } else if (acc->data) {
        std::memcpy(acc->data, &one, sizeof(one));
    } else {
        log_error("[ggml_graph_reset] gradient '%s' has no data\n", acc->name);
    }
}

// ggml_build_forward_expand (compute = true) and ggml_build_forward_order (false); `name` tags the messages.
void build_forward(ggml_cgraph * cgraph, ggml_tensor * tensor, bool compute, const char * name) {
    if (!cgraph || !tensor) {
        log_error("[%s] %s is NULL\n", name, cgraph ? "tensor" : "graph");
        return;
    }
    const int n_nodes = cgraph->n_nodes;
    const int n_leafs = cgraph->n_leafs;
    try {
        visit(cgraph, tensor, compute);
    } catch (const std::bad_alloc &) {
        // out of memory for the walk's stack: tensors entered but not added would look visited to the next
        // expand, so the graph is cleared rather than left half-built. (Only bad_alloc is caught here: a full
        // graph goes through fatal(), whose abort callback may unwind through this function.)
        log_error("[%s] out of memory: the graph is cleared\n", name);
        ggml_graph_clear(cgraph);
        cgraph->uid = next_graph_uid();
        return;
    }
    if (cgraph->n_nodes > n_nodes && cgraph->nodes[cgraph->n_nodes - 1] != tensor) {
        fatal("[%s] internal error: '%s' is not the last node added", name, tensor->name);
    }
    if (cgraph->n_nodes != n_nodes || cgraph->n_leafs != n_leafs) {
        cgraph->uid = next_graph_uid(); // a changed graph: state cached under the old uid is stale
    }
}

} // namespace

extern "C" {

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    return GGML_OBJECT_SIZE + GGML_PAD(graph_layout(size, grads).total, GGML_MEM_ALIGN);
}

size_t ggml_graph_overhead(void) {
    return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    if (!ctx) {
        log_error("[ggml_new_graph_custom] context is NULL\n");
        return nullptr;
    }
    if (size > static_cast<size_t>(INT_MAX)) {
        log_error("[ggml_new_graph_custom] graph size %zu is too large (at most %d)\n", size, INT_MAX);
        return nullptr;
    }
    const GraphLayout l   = graph_layout(size, grads);
    ggml_object *     obj = context_new_object(ctx, GGML_OBJECT_TYPE_GRAPH, l.total, "ggml_new_graph_custom");
    if (!obj) {
        return nullptr;
    }
    char * base = static_cast<char *>(object_payload(ctx, obj));
    auto   at   = [base](size_t off) { return reinterpret_cast<ggml_tensor **>(base + off); };
    auto * g    = reinterpret_cast<ggml_cgraph *>(base);
    *g          = ggml_cgraph{};

    g->size             = static_cast<int>(size);
    g->nodes            = at(l.nodes);
    g->leafs            = at(l.leafs);
    g->grads            = grads ? at(l.grads) : nullptr;
    g->grad_accs        = grads ? at(l.grad_accs) : nullptr;
    g->use_counts       = reinterpret_cast<int32_t *>(base + l.use_counts);
    g->visited_hash_set = ggml_hash_set{l.hash_slots, reinterpret_cast<uint32_t *>(base + l.used), at(l.keys)};
    g->order            = GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT;
    g->uid              = 0;
    hash_reset(&g->visited_hash_set);
    if (grads) {
        std::memset(g->grads, 0, l.hash_slots * sizeof(ggml_tensor *));
        std::memset(g->grad_accs, 0, l.hash_slots * sizeof(ggml_tensor *));
    }
    return g;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    build_forward(cgraph, tensor, true, "ggml_build_forward_expand");
}

void ggml_build_forward_order(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    build_forward(cgraph, tensor, false, "ggml_build_forward_order");
}

struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors,
                                               int n_tensors, int idx) {
    if (!tensors || idx < 0 || idx >= n_tensors) {
        fatal("[ggml_build_forward_select] index %d is not one of the %d tensors", idx, tensors ? n_tensors : 0);
    }
    for (int i = 0; i < n_tensors; ++i) {
        build_forward(cgraph, tensors[i], i == idx, "ggml_build_forward_select");
    }
    return tensors[idx];
}

void ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    if (cgraph->n_nodes >= cgraph->size) {
        fatal("[ggml_graph_add_node] graph is full (%d nodes)", cgraph->size);
    }
    cgraph->nodes[cgraph->n_nodes++] = tensor;
    cgraph->uid                      = next_graph_uid();
}

void ggml_graph_cpy(struct ggml_cgraph * src, struct ggml_cgraph * dst) {
    if (src == dst) {
        return;
    }
    if (dst->size < src->n_nodes || dst->size < src->n_leafs ||
        dst->visited_hash_set.size < src->visited_hash_set.size) {
        fatal("[ggml_graph_cpy] destination graph (size %d, %zu hash slots) is smaller than the source "
              "(%d nodes, %d leafs, %zu hash slots)",
              dst->size, dst->visited_hash_set.size, src->n_nodes, src->n_leafs, src->visited_hash_set.size);
    }
    dst->n_nodes = src->n_nodes;
    dst->n_leafs = src->n_leafs;
    dst->order   = src->order;
    dst->uid     = 0;
    for (int i = 0; i < src->n_nodes; ++i) {
        dst->nodes[i] = src->nodes[i];
    }
    for (int i = 0; i < src->n_leafs; ++i) {
        dst->leafs[i] = src->leafs[i];
    }
    hash_reset(&dst->visited_hash_set);
    const ggml_hash_set & sset = src->visited_hash_set;
    for (size_t i = 0; i < sset.size; ++i) {
        if (bit_get(sset.used, i)) {
            dst->use_counts[hash_find_or_insert(&dst->visited_hash_set, sset.keys[i])] = src->use_counts[i];
        }
    }
    copy_grads(src, dst);
}

struct ggml_cgraph * ggml_graph_dup(struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads) {
    // a view has the size of its node range but its parent's hash set: the copy needs room for both
    size_t size = static_cast<size_t>(cgraph->size);
    size        = std::max(size, static_cast<size_t>(std::max(cgraph->n_nodes, cgraph->n_leafs)));
    if (hash_size(size) < cgraph->visited_hash_set.size) {
        size = (cgraph->visited_hash_set.size + 1) / 2;
    }
    ggml_cgraph * result = ggml_new_graph_custom(ctx, size, cgraph->grads != nullptr || force_grads);
    if (!result) {
        return nullptr;
    }
    ggml_graph_cpy(cgraph, result);
    return result;
}

void ggml_graph_reset(struct ggml_cgraph * cgraph) {
    if (!cgraph || !cgraph->grads) {
        return; // a graph without gradients has nothing to reset
    }
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        ggml_tensor * node = cgraph->nodes[i];
        if (node->op == GGML_OP_OPT_STEP_ADAMW) {
            ggml_set_zero(node->src[2]); // first and second moments
            ggml_set_zero(node->src[3]);
        }
        ggml_tensor * acc = ggml_graph_get_grad_acc(cgraph, node);
        if (!acc) {
            continue;
        }
        if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            set_loss_grad(acc);
        } else {
            ggml_set_zero(acc);
        }
    }
}

void ggml_graph_clear(struct ggml_cgraph * cgraph) {
    cgraph->n_nodes = 0;
    cgraph->n_leafs = 0;
    cgraph->uid     = 0;
    hash_reset(&cgraph->visited_hash_set);
}

int ggml_graph_size(struct ggml_cgraph * cgraph) { return cgraph->size; }
struct ggml_tensor ** ggml_graph_nodes(struct ggml_cgraph * cgraph) { return cgraph->nodes; }
int ggml_graph_n_nodes(struct ggml_cgraph * cgraph) { return cgraph->n_nodes; }

struct ggml_tensor * ggml_graph_node(struct ggml_cgraph * cgraph, int i) {
    const int j = i < 0 ? cgraph->n_nodes + i : i;
    if (j < 0 || j >= cgraph->n_nodes) {
        log_error("[ggml_graph_node] index %d out of range for a graph of %d nodes\n", i, cgraph->n_nodes);
        return nullptr;
    }
    return cgraph->nodes[j];
}

struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * cgraph, const char * name) {
    for (int i = 0; i < cgraph->n_leafs; ++i) {
        if (std::strcmp(cgraph->leafs[i]->name, name) == 0) {
            return cgraph->leafs[i];
        }
    }
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        if (std::strcmp(cgraph->nodes[i]->name, name) == 0) {
            return cgraph->nodes[i];
        }
    }
    return nullptr;
}

struct ggml_tensor * ggml_graph_get_grad(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    size_t slot = 0;
    return cgraph->grads && has_slot(cgraph, node, &slot) ? cgraph->grads[slot] : nullptr;
}

struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    size_t slot = 0;
    return cgraph->grad_accs && has_slot(cgraph, node, &slot) ? cgraph->grad_accs[slot] : nullptr;
}

} // extern "C"
