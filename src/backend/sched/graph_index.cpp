// Numbering the graph being split: every node, leaf, source and view source gets its BackendIds entry once, so
// the assignment and splitting passes (which visit each node and source several times) index arrays instead of
// hashing pointers. Entries carry the backend id itself, so a tensor met under several roles (a node that is
// also a source, a leaf viewed by a node) still has one id.
#include "backend/sched/sched.h"

#include "alloc/tensor_prefetch.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace switchyard::sched {

namespace {

constexpr int32_t kUnresolved = -2;

// The entry of t, with the view sources of t's chain resolved too. Only tensors of the graph being split are
// read: entries left from tensors set by the user (which may be gone) stay unresolved.
int32_t resolve(BackendIds & ids, std::vector<int32_t> & view_srcs, const ggml_tensor * t) {
    const int32_t first = ids.entry(t);
    for (int32_t e = first;;) {
        if (view_srcs.size() <= static_cast<size_t>(e)) {
            view_srcs.resize(static_cast<size_t>(ids.size()), kUnresolved);
        }
        if (view_srcs[static_cast<size_t>(e)] != kUnresolved) {
            return first;
        }
        if (t->view_src == nullptr) {
            view_srcs[static_cast<size_t>(e)] = -1;
            return first;
        }
        t                                 = t->view_src;
        const int32_t next                = ids.entry(t);
        view_srcs[static_cast<size_t>(e)] = next;
        e                                 = next;
    }
}

TensorFacts facts_of(const ggml_tensor * t) {
    TensorFacts f;
    f.op    = t->op;
    f.type  = t->type;
    f.flags = t->flags;
    if (t->buffer) {
        f.usage = t->buffer->usage;
        f.buft  = t->buffer->buft;
    }
    std::copy(std::begin(t->ne), std::end(t->ne), f.ne);
    std::copy(std::begin(t->nb), std::end(t->nb), f.nb);
    std::copy(std::begin(t->op_params), std::end(t->op_params), f.op_params);
    f.buffer    = t->buffer;
    f.view_offs = t->view_offs;
    f.data      = t->data;
    f.extra     = t->extra;
    return f;
}

// facts_of(t) == facts, without building facts_of(t): building it first made the comparing pass 1.4-1.8 x slower
// per step on a recurring graph of 896 and 11k nodes (7 interleaved runs). Both list every field; the size check
// sends whoever adds one to both.
static_assert(sizeof(TensorFacts) == 4 * sizeof(int32_t) + GGML_MAX_DIMS * (sizeof(int64_t) + sizeof(size_t)) +
                                         GGML_MAX_OP_PARAMS + 5 * sizeof(void *),
              "a field added to TensorFacts goes into facts_of and facts_equal");
bool facts_equal(const ggml_tensor * t, const TensorFacts & f) {
    const ggml_backend_buffer * buf = t->buffer;
    return t->op == f.op && t->type == f.type && t->flags == f.flags && buf == f.buffer && t->data == f.data &&
           t->view_offs == f.view_offs && t->extra == f.extra &&
           (buf == nullptr || (buf->usage == f.usage && buf->buft == f.buft)) &&
           std::equal(std::begin(t->ne), std::end(t->ne), f.ne) && std::equal(std::begin(t->nb), std::end(t->nb), f.nb) &&
           std::memcmp(t->op_params, f.op_params, sizeof(f.op_params)) == 0;
}

// Whether graph consists of the tensor objects the stale entries were numbered from, linked the same way: every
// leaf, node and source position, and every entry's view source. Numbering the graph afresh would then give
// the same entries in the same order. The old numbering started from no entries (GraphIndex::n_entries) and
// nothing was added since, so each entry is either the tensor at a position, checked first, or the view source
// of an entry numbered before it, checked before it is read: no pointer of a graph that may be gone is
// dereferenced.
//
// With an assignment kept (GraphIndex::assignment_kept), the same pass over the entries compares their facts too.
enum class Links { kDifferent, kSame, kSameFacts };
Links same_links(const BackendIds & ids, const GraphIndex & index, const ggml_cgraph * graph) {
    if (!ids.stale() || index.n_entries != ids.size() || index.leafs.size() != static_cast<size_t>(graph->n_leafs) ||
        index.nodes.size() != static_cast<size_t>(graph->n_nodes)) {
        return Links::kDifferent;
    }
    for (size_t i = 0; i < index.leafs.size(); ++i) {
        if (graph->leafs[i] != ids.tensor(index.leafs[i])) {
            return Links::kDifferent;
        }
    }
    for (size_t i = 0; i < index.nodes.size(); ++i) {
        alloc::prefetch_ahead(graph->nodes, graph->n_nodes, static_cast<int>(i));
        const ggml_tensor * node = graph->nodes[i];
        if (node != ids.tensor(index.nodes[i])) {
            return Links::kDifferent;
        }
        for (size_t j = 0; j < GGML_MAX_SRC; ++j) {
            const int32_t src = index.srcs[i * GGML_MAX_SRC + j];
            if (node->src[j] != (src >= 0 ? ids.tensor(src) : nullptr)) {
                return Links::kDifferent;
            }
        }
    }
    bool facts = index.assignment_kept && index.assigned_facts.size() == static_cast<size_t>(index.n_entries);
    for (int32_t e = 0; e < index.n_entries; ++e) {
        if (e + alloc::kPrefetchDistance < index.n_entries) {
            alloc::prefetch_tensor(ids.tensor(e + alloc::kPrefetchDistance)); // a hint: never faults, reads nothing
        }
        const ggml_tensor * t = ids.tensor(e);
        const int32_t       v = index.view_srcs[static_cast<size_t>(e)];
        if (v == kUnresolved || t->view_src != (v >= 0 ? ids.tensor(v) : nullptr)) {
            return Links::kDifferent;
        }
        facts = facts && facts_equal(t, index.assigned_facts[static_cast<size_t>(e)]);
    }
    return facts ? Links::kSameFacts : Links::kSame;
}

// Takes the numbering of the previous graph back (see same_links) and visits the leafs and nodes as numbering
// would.
void reuse_index(ggml_backend_sched * sched, const ggml_cgraph * graph, IndexVisitor visit) {
    GraphIndex & index = sched->index;
    sched->backend_ids.revive(index.n_entries);
    index.supported.assign(index.nodes.size() * static_cast<size_t>(sched->n_backends), -1);
    for (size_t i = 0; i < index.leafs.size(); ++i) {
        if (visit) {
            visit(sched, graph->leafs[i], index.leafs[i], -1);
        }
    }
    for (size_t i = 0; i < index.nodes.size(); ++i) {
        alloc::prefetch_ahead(graph->nodes, graph->n_nodes, static_cast<int>(i));
        index.view_ops[i] = op_is_view(graph->nodes[i]->op) ? 1 : 0; // the op may differ
        if (visit) {
            visit(sched, graph->nodes[i], index.nodes[i], static_cast<int>(i));
        }
    }
}

} // namespace

Numbering index_graph(ggml_backend_sched * sched, const ggml_cgraph * graph, IndexVisitor visit) {
    BackendIds &           ids       = sched->backend_ids;
    GraphIndex &           index     = sched->index;
    std::vector<int32_t> & view_srcs = index.view_srcs;
    const auto             n_nodes   = static_cast<size_t>(graph->n_nodes);
    const Links links = same_links(ids, index, graph);
    if (links == Links::kSameFacts) {
        ids.revive(index.n_entries, &index.assigned_ids);
        index.supported.assign(n_nodes * static_cast<size_t>(sched->n_backends), -1);
        index.kept_misses = 0;
        return Numbering::kAssignmentBack;
    }
    if (links == Links::kSame) {
        index.kept_misses += index.assignment_kept ? 1 : 0; // kept, compared, and the facts differed
        reuse_index(sched, graph, visit);
        return Numbering::kTakenBack;
    }
    // a numbering that starts from no entries can be taken back by the next graph (same_links)
    const bool from_empty = ids.stale() || ids.size() == 0;
    index.n_entries       = -1;
    view_srcs.assign(static_cast<size_t>(ids.size()) + n_nodes + static_cast<size_t>(graph->n_leafs), kUnresolved);
    index.leafs.resize(static_cast<size_t>(graph->n_leafs));
    for (size_t i = 0; i < index.leafs.size(); ++i) {
        if (i + alloc::kPrefetchDistance < index.leafs.size()) {
            alloc::prefetch_tensor(graph->leafs[i + alloc::kPrefetchDistance]);
        }
        index.leafs[i] = resolve(ids, view_srcs, graph->leafs[i]);
        if (visit) {
            visit(sched, graph->leafs[i], index.leafs[i], -1);
        }
    }
    index.nodes.resize(n_nodes);
    index.view_ops.resize(n_nodes);
    index.srcs.assign(n_nodes * GGML_MAX_SRC, -1);
    index.supported.assign(n_nodes * static_cast<size_t>(sched->n_backends), -1);
    for (size_t i = 0; i < n_nodes; ++i) {
        alloc::prefetch_ahead(graph->nodes, graph->n_nodes, static_cast<int>(i));
        const ggml_tensor * node = graph->nodes[i];
        index.nodes[i]           = resolve(ids, view_srcs, node);
        index.view_ops[i]        = op_is_view(node->op) ? 1 : 0;
        for (size_t j = 0; j < GGML_MAX_SRC; ++j) {
            if (node->src[j] != nullptr) {
                index.srcs[i * GGML_MAX_SRC + j] = resolve(ids, view_srcs, node->src[j]);
            }
        }
        if (visit) {
            visit(sched, graph->nodes[i], index.nodes[i], static_cast<int>(i));
        }
    }
    index.n_entries = from_empty ? ids.size() : -1;
    return Numbering::kFresh;
}

void keep_assignment(ggml_backend_sched * sched) {
    GraphIndex &       index = sched->index;
    const BackendIds & ids   = sched->backend_ids;
    if (index.kept_misses >= GraphIndex::kMissesBeforeBackOff &&
        ++index.steps_without_keep % GraphIndex::kBackOffSteps != 0) {
        index.assignment_kept = false;
        return;
    }
    index.assignment_kept = index.n_entries >= 0 && index.n_entries == ids.size();
    if (!index.assignment_kept) {
        return;
    }
    index.assigned_facts.resize(static_cast<size_t>(index.n_entries));
    index.assigned_ids.resize(static_cast<size_t>(index.n_entries));
    for (int32_t e = 0; e < index.n_entries; ++e) {
        index.assigned_facts[static_cast<size_t>(e)] = facts_of(ids.tensor(e));
        index.assigned_ids[static_cast<size_t>(e)]   = ids.at(e);
    }
}

} // namespace switchyard::sched
