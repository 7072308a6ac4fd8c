// Compute graphs: storage in a context, the hash set, forward expansion (topological order), views and copies.
#include "core/graph.h"

#include "base/abort.h"
#include "base/log.h"
#include "core/context.h"

#include <atomic>
#include <cstring>

namespace switchyard {

namespace {

std::atomic<uint64_t> g_next_graph_uid{1};

constexpr size_t kPrimes[] = {2,        3,        5,        11,        17,        37,        67,        131,
                              257,      521,      1031,     2053,      4099,      8209,      16411,     32771,
                              65537,    131101,   262147,   524309,    1048583,   2097169,   4194319,   8388617,
                              16777259, 33554467, 67108879, 134217757, 268435459, 536870923, 1073741827, 2147483659};

size_t hash_of(const ggml_tensor * t) {
    return static_cast<size_t>(reinterpret_cast<uintptr_t>(t) >> 4);
}

bool bit_get(const uint32_t * bits, size_t i) { return (bits[i / 32] >> (i % 32)) & 1u; }
void bit_set(uint32_t * bits, size_t i) { bits[i / 32] |= 1u << (i % 32); }
size_t bitset_words(size_t n) { return (n + 31) / 32; }

size_t align(size_t n) { return (n + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *); }

// Bytes of a graph object of `size` nodes: header, nodes, leafs, use counts, hash keys, hash bitset, grads.
size_t graph_nbytes(size_t size, bool grads) {
    const size_t hsize = hash_size(size * 2);
    size_t       n     = align(sizeof(ggml_cgraph));
    n += align(size * sizeof(ggml_tensor *)) * 2;           // nodes, leafs
    n += align(hsize * sizeof(int32_t));                    // use counts
    n += align(hsize * sizeof(ggml_tensor *));              // hash keys
    n += align(bitset_words(hsize) * sizeof(uint32_t));     // hash bitset
    if (grads) {
        n += align(hsize * sizeof(ggml_tensor *)) * 2;      // grads, grad accumulators
    }
    return n;
}

void visit(ggml_cgraph * g, ggml_tensor * node) {
    if (hash_insert(&g->visited_hash_set, node) == kHashFull) {
        return; // already in the graph
    }
    for (int k = 0; k < GGML_MAX_SRC; ++k) {
        const int     j   = g->order == GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT ? k : GGML_MAX_SRC - 1 - k;
        ggml_tensor * src = node->src[j];
        if (src) {
            visit(g, src);
            g->use_counts[hash_find(&g->visited_hash_set, src)]++;
        }
    }
    if (node->op == GGML_OP_NONE && !(node->flags & GGML_TENSOR_FLAG_PARAM)) {
        if (g->n_leafs >= g->size) {
            fatal("[ggml_build_forward_expand] graph is full: more than %d leafs", g->size);
        }
        if (std::strlen(node->name) == 0) {
            ggml_format_name(node, "leaf_%d", g->n_leafs);
        }
        g->leafs[g->n_leafs++] = node;
    } else {
        if (g->n_nodes >= g->size) {
            fatal("[ggml_build_forward_expand] graph is full: more than %d nodes", g->size);
        }
        if (std::strlen(node->name) == 0) {
            ggml_format_name(node, "node_%d", g->n_nodes);
        }
        node->flags |= GGML_TENSOR_FLAG_COMPUTE;
        g->nodes[g->n_nodes++] = node;
    }
}

} // namespace

size_t hash_size(size_t min_size) {
    for (size_t p : kPrimes) {
        if (p >= min_size) {
            return p;
        }
    }
    return min_size | 1;
}

size_t hash_find(const ggml_hash_set * set, const ggml_tensor * t) {
    const size_t h = hash_of(t) % set->size;
    size_t       i = h;
    while (bit_get(set->used, i) && set->keys[i] != t) {
        i = (i + 1) % set->size;
        if (i == h) {
            return kHashFull;
        }
    }
    return i;
}

bool hash_contains(const ggml_hash_set * set, const ggml_tensor * t) {
    const size_t i = hash_find(set, t);
    return i != kHashFull && bit_get(set->used, i);
}

size_t hash_insert(ggml_hash_set * set, ggml_tensor * t) {
    const size_t i = hash_find(set, t);
    if (i == kHashFull) {
        fatal("hash set is full");
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
        fatal("hash set is full");
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
    view.size             = i1 - i0;
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

extern "C" {

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    return GGML_OBJECT_SIZE + GGML_PAD(graph_nbytes(size, grads), GGML_MEM_ALIGN);
}

size_t ggml_graph_overhead(void) { return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false); }

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    const size_t  nbytes = graph_nbytes(size, grads);
    ggml_object * obj    = context_new_object(ctx, GGML_OBJECT_TYPE_GRAPH, nbytes, "ggml_new_graph_custom");
    if (!obj) {
        return nullptr;
    }
    char *       p     = static_cast<char *>(object_payload(ctx, obj));
    const size_t hsize = hash_size(size * 2);
    auto *       g     = reinterpret_cast<ggml_cgraph *>(p);
    p += align(sizeof(ggml_cgraph));
    auto take = [&p](size_t bytes) {
        char * q = p;
        p += align(bytes);
        return q;
    };
    auto ** nodes      = reinterpret_cast<ggml_tensor **>(take(size * sizeof(ggml_tensor *)));
    auto ** leafs      = reinterpret_cast<ggml_tensor **>(take(size * sizeof(ggml_tensor *)));
    auto *  use_counts = reinterpret_cast<int32_t *>(take(hsize * sizeof(int32_t)));
    auto ** keys       = reinterpret_cast<ggml_tensor **>(take(hsize * sizeof(ggml_tensor *)));
    auto *  used       = reinterpret_cast<uint32_t *>(take(bitset_words(hsize) * sizeof(uint32_t)));
    ggml_tensor ** grad_arr = grads ? reinterpret_cast<ggml_tensor **>(take(hsize * sizeof(ggml_tensor *))) : nullptr;
    ggml_tensor ** acc_arr  = grads ? reinterpret_cast<ggml_tensor **>(take(hsize * sizeof(ggml_tensor *))) : nullptr;
    *g = ggml_cgraph{static_cast<int>(size), 0, 0, nodes, grad_arr, acc_arr, leafs, use_counts,
                     ggml_hash_set{hsize, used, keys}, GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT, 0};
    hash_reset(&g->visited_hash_set);
    if (grads) {
        std::memset(grad_arr, 0, hsize * sizeof(ggml_tensor *));
        std::memset(acc_arr, 0, hsize * sizeof(ggml_tensor *));
    }
    return g;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    if (!tensor) {
        log_error("[ggml_build_forward_expand] tensor is NULL\n");
        return;
    }
    const int n_before = cgraph->n_nodes;
    visit(cgraph, tensor);
    if (cgraph->n_nodes > n_before) {
        cgraph->uid = g_next_graph_uid.fetch_add(1);
    }
}

void ggml_graph_cpy(struct ggml_cgraph * src, struct ggml_cgraph * dst) {
    if (dst->size < src->n_nodes || dst->size < src->n_leafs || dst->visited_hash_set.size < src->visited_hash_set.size) {
        fatal("[ggml_graph_cpy] destination graph (size %d) is smaller than the source (%d nodes, %d leafs)", dst->size,
              src->n_nodes, src->n_leafs);
    }
    dst->n_nodes = src->n_nodes;
    dst->n_leafs = src->n_leafs;
    dst->order   = src->order;
    dst->uid     = 0;
    std::memcpy(dst->nodes, src->nodes, static_cast<size_t>(src->n_nodes) * sizeof(ggml_tensor *));
    std::memcpy(dst->leafs, src->leafs, static_cast<size_t>(src->n_leafs) * sizeof(ggml_tensor *));
    hash_reset(&dst->visited_hash_set);
    for (size_t i = 0; i < src->visited_hash_set.size; ++i) {
        if (bit_get(src->visited_hash_set.used, i)) {
            const size_t j = hash_find_or_insert(&dst->visited_hash_set, src->visited_hash_set.keys[i]);
            dst->use_counts[j] = src->use_counts[i];
            if (src->grads && dst->grads) {
                dst->grads[j]     = src->grads[i];
                dst->grad_accs[j] = src->grad_accs[i];
            }
        }
    }
}

struct ggml_cgraph * ggml_graph_dup(struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads) {
    ggml_cgraph * g = ggml_new_graph_custom(ctx, static_cast<size_t>(cgraph->size), cgraph->grads || force_grads);
    if (g) {
        ggml_graph_cpy(cgraph, g);
    }
    return g;
}

void ggml_graph_reset(struct ggml_cgraph * cgraph) {
    if (!cgraph || !cgraph->grads) {
        return;
    }
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        const size_t  slot = hash_find(&cgraph->visited_hash_set, cgraph->nodes[i]);
        ggml_tensor * grad = slot == kHashFull ? nullptr : cgraph->grads[slot];
        if (grad && grad->data && !grad->buffer) {
            std::memset(grad->data, 0, ggml_nbytes(grad));
        }
    }
}

void ggml_graph_clear(struct ggml_cgraph * cgraph) {
    cgraph->n_leafs = 0;
    cgraph->n_nodes = 0;
    hash_reset(&cgraph->visited_hash_set);
}

int ggml_graph_size(struct ggml_cgraph * cgraph) { return cgraph->size; }
int ggml_graph_n_nodes(struct ggml_cgraph * cgraph) { return cgraph->n_nodes; }
struct ggml_tensor ** ggml_graph_nodes(struct ggml_cgraph * cgraph) { return cgraph->nodes; }

struct ggml_tensor * ggml_graph_node(struct ggml_cgraph * cgraph, int i) {
    if (i < 0) {
        i += cgraph->n_nodes;
    }
    if (i < 0 || i >= cgraph->n_nodes) {
        log_error("[ggml_graph_node] index %d out of range (%d nodes)\n", i, cgraph->n_nodes);
        return nullptr;
    }
    return cgraph->nodes[i];
}

void ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    if (cgraph->n_nodes >= cgraph->size) {
        fatal("[ggml_graph_add_node] graph is full (%d nodes)", cgraph->size);
    }
    cgraph->nodes[cgraph->n_nodes++] = tensor;
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
    const size_t i = hash_find(&cgraph->visited_hash_set, node);
    return (i != kHashFull && cgraph->grads && bit_get(cgraph->visited_hash_set.used, i)) ? cgraph->grads[i] : nullptr;
}

struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    const size_t i = hash_find(&cgraph->visited_hash_set, node);
    return (i != kHashFull && cgraph->grad_accs && bit_get(cgraph->visited_hash_set.used, i)) ? cgraph->grad_accs[i] : nullptr;
}

} // extern "C"
