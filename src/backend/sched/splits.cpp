// Splitting: consecutive nodes on one backend form a split; sources a split's backend cannot read get a copy
// on that backend (one per pipeline slot), and node->src is rewritten to use it. Then the allocation graph is
// built: for each split, a keep-alive view of each input (so the original lives until it is copied), the input
// copies, then the split's nodes, each followed by the allocation dependencies a backend's graph_optimize added for
// it (empty views whose sources stay allocated until there); the original leafs last.
#include "backend/sched/sched.h"

#include "base/log.h"
#include "core/graph.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>

namespace switchyard::sched {

namespace {

// A tensor with t's type, shape and strides in the scheduler's context (no data).
ggml_tensor * dup_layout(ggml_context * ctx, const ggml_tensor * t) {
    ggml_tensor * dup = ggml_dup_tensor(ctx, t);
    if (!dup) {
        return nullptr;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        dup->nb[i] = t->nb[i];
    }
    return dup;
}

// The copies of `src` on backend `backend_id` (created on first use).
bool ensure_copies(ggml_backend_sched * sched, ggml_tensor * src, int backend_id, bool flag_io) {
    CopySet & set = sched->copies[src];
    if (set[backend_id][0]) {
        return true;
    }
    for (int c = 0; c < sched->n_copies; ++c) {
        ggml_tensor * copy = dup_layout(sched->ctx.get(), src);
        if (!copy) {
            return false;
        }
        ggml_format_name(copy, "%s#%s#%d", ggml_backend_name(sched->backends[backend_id]), src->name, c);
        if (flag_io) {
            ggml_set_input(copy);
            ggml_set_output(copy);
        }
        set[backend_id][c] = copy;
    }
    return true;
}

// Whether graph node i reads weights that backend_id can neither run from nor read.
bool weights_elsewhere(ggml_backend_sched * sched, const ggml_tensor * node, int i, int backend_id) {
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = node->src[j];
        if (!src) {
            continue;
        }
        const int32_t               entry = sched->index.src(i, j);
        const ggml_backend_buffer * buf   = src->view_src ? src->view_src->buffer : src->buffer;
        if (buf && ggml_backend_buffer_get_usage(const_cast<ggml_backend_buffer *>(buf)) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS &&
            sched->backend_ids.at(entry) != backend_id && !buft_readable(sched, src, entry, backend_id)) {
            return true;
        }
    }
    return false;
}

bool add_split_input(ggml_backend_sched * sched, Split & split, ggml_tensor * node, int j) {
    ggml_tensor * src    = node->src[j];
    const int     cur_id = split.backend_id;
    if (!ensure_copies(sched, src, cur_id, sched->n_copies > 1)) {
        return false;
    }
    if (std::find(split.inputs.begin(), split.inputs.end(), src) == split.inputs.end()) {
        split.inputs.push_back(src);
    }
    ggml_tensor * copy = sched->copies[src][cur_id][sched->cur_copy];
    sched->rewired.push_back(Rewire{node, j, src, copy});
    node->src[j] = copy;
    return true;
}

// With pipeline parallelism, user inputs consumed by a split are replicated on their own backend too, so the
// host can write micro-batch m+1's inputs while m still reads its own.
bool replicate_graph_input(ggml_backend_sched * sched, ggml_tensor * src, int32_t entry) {
    if (sched->n_copies == 1 || !(src->flags & GGML_TENSOR_FLAG_INPUT)) {
        return true;
    }
    const int id = sched->backend_ids.at(entry);
    if (sched->copies[src][id][0]) {
        return true;
    }
    if (!ensure_copies(sched, src, id, true)) {
        return false;
    }
    sched->graph_inputs.push_back(src);
    return true;
}

bool cut_splits(ggml_backend_sched * sched, ggml_cgraph * graph) {
    sched->splits.clear();
    sched->graph_inputs.clear();
    BackendIds &       ids   = sched->backend_ids;
    const GraphIndex & index = sched->index;
    int                first = 0;
    while (first < graph->n_nodes && index.view_ops[static_cast<size_t>(first)]) {
        ++first;
    }
    Split split;
    split.backend_id = first < graph->n_nodes ? ids.at(index.nodes[static_cast<size_t>(first)]) : sched->n_backends - 1;
    split.i_start    = 0;
    for (int i = 0; i < graph->n_nodes; ++i) {
        if (index.view_ops[static_cast<size_t>(i)]) {
            continue;
        }
        ggml_tensor * node = graph->nodes[i];
        const int     id   = ids.at(index.nodes[static_cast<size_t>(i)]);
        if (id != split.backend_id || (!split.inputs.empty() && weights_elsewhere(sched, node, i, id))) {
            split.i_end = i;
            sched->splits.push_back(std::move(split));
            split            = Split{};
            split.backend_id = id;
            split.i_start    = i;
        }
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            const int32_t entry = index.src(i, j);
            if (entry < 0) {
                continue;
            }
            // the node's memory is read only where needed: most sources live on the split's backend
            if (sched->n_copies > 1 && !replicate_graph_input(sched, node->src[j], entry)) {
                return false;
            }
            const int src_id = ids.at(entry);
            if (src_id != split.backend_id && !buft_readable(sched, node->src[j], entry, split.backend_id)) {
                if (!add_split_input(sched, split, node, j)) {
                    return false;
                }
            }
        }
    }
    split.i_end = graph->n_nodes;
    sched->splits.push_back(std::move(split));
    return true;
}

void append_node(ggml_backend_sched * sched, ggml_tensor * t, int backend_id) {
    ggml_cgraph * g = sched->graph;
    sched->node_backend_ids[static_cast<size_t>(g->n_nodes)] = backend_id;
    g->nodes[g->n_nodes++] = t;
}

void append_leaf(ggml_backend_sched * sched, ggml_tensor * t, int backend_id) {
    ggml_cgraph * g = sched->graph;
    sched->leaf_backend_ids[static_cast<size_t>(g->n_leafs)] = backend_id;
    g->leafs[g->n_leafs++] = t;
}

// The allocation dependencies the backends' graph_optimize asked for: for each node `until`, the tensors that
// must stay allocated until it has been computed (in the order asked, without repeats).
using AllocDeps = std::unordered_map<ggml_tensor *, std::vector<ggml_tensor *>>;

void add_alloc_dep(void * user_data, ggml_tensor * tensor, ggml_tensor * until) {
    if (tensor == nullptr || until == nullptr) {
        return;
    }
    std::vector<ggml_tensor *> & keep = (*static_cast<AllocDeps *>(user_data))[until];
    if (std::find(keep.begin(), keep.end(), tensor) == keep.end()) {
        keep.push_back(tensor);
    }
}

// Each split's graph view, after its backend's graph_optimize (which may reorder the nodes and add allocation
// dependencies).
void optimize_splits(ggml_backend_sched * sched, ggml_cgraph * graph, AllocDeps & deps) {
    ggml_backend_graph_optimize_params params{add_alloc_dep, &deps};
    for (Split & s : sched->splits) {
        s.graph                = graph_view(graph, s.i_start, s.i_end);
        ggml_backend_t backend = sched->backends[s.backend_id];
        if (backend->iface.graph_optimize != nullptr) {
            backend->iface.graph_optimize(backend, &s.graph, &params); // may reorder: sched->index no longer fits
        }
    }
}

// After `node`: one empty view per GGML_MAX_SRC tensors kept for it, whose sources keep them allocated until here.
bool append_alloc_deps(ggml_backend_sched * sched, const AllocDeps & deps, ggml_tensor * node, int backend_id) {
    const auto it = deps.find(node);
    if (it == deps.end()) {
        return true;
    }
    const std::vector<ggml_tensor *> & keep = it->second;
    for (size_t k = 0; k < keep.size(); k += GGML_MAX_SRC) {
        ggml_tensor * dep = ggml_view_tensor(sched->ctx.get(), keep[k]);
        if (!dep) {
            return false;
        }
        for (size_t s = 0; s < GGML_MAX_SRC && k + s < keep.size(); ++s) {
            dep->src[s] = keep[k + s];
        }
        append_node(sched, dep, backend_id);
    }
    return true;
}

size_t n_dep_nodes(const AllocDeps & deps) {
    size_t n = 0;
    for (const auto & [until, keep] : deps) {
        n += (keep.size() + GGML_MAX_SRC - 1) / GGML_MAX_SRC;
    }
    return n;
}

bool build_alloc_graph(ggml_backend_sched * sched, ggml_cgraph * graph) {
    AllocDeps deps;
    optimize_splits(sched, graph, deps);
    size_t n_inputs = sched->graph_inputs.size() * static_cast<size_t>(sched->n_copies);
    for (const Split & s : sched->splits) {
        n_inputs += s.inputs.size() * (2 + static_cast<size_t>(sched->n_copies));
    }
    const size_t size =
        static_cast<size_t>(std::max(graph->n_nodes, graph->n_leafs)) + n_inputs + n_dep_nodes(deps) + 16;
    sched->graph = ggml_new_graph_custom(sched->ctx.get(), size, false);
    if (!sched->graph) {
        return false;
    }
    sched->node_backend_ids.assign(size, -1);
    sched->leaf_backend_ids.assign(size, -1);
    for (Split & s : sched->splits) {
        const bool reordered = sched->backends[s.backend_id]->iface.graph_optimize != nullptr;
        for (ggml_tensor * input : s.inputs) {
            ggml_tensor * keep_alive = ggml_view_tensor(sched->ctx.get(), input);
            if (!keep_alive) {
                return false;
            }
            keep_alive->src[0] = input;
            append_node(sched, keep_alive, tensor_backend_id(sched, input));
            const CopySet & set = sched->copies[input];
            append_node(sched, set[s.backend_id][sched->cur_copy], s.backend_id);
            for (int c = 0; c < sched->n_copies; ++c) {
                if (c != sched->cur_copy) {
                    append_leaf(sched, set[s.backend_id][c], s.backend_id);
                }
            }
        }
        for (int i = s.i_start; i < s.i_end; ++i) {
            const int32_t entry = reordered ? sched->backend_ids.entry(graph->nodes[i]) : sched->index.nodes[static_cast<size_t>(i)];
            append_node(sched, graph->nodes[i], sched->backend_ids.at(entry));
            if (!deps.empty() && !append_alloc_deps(sched, deps, graph->nodes[i], s.backend_id)) {
                return false;
            }
        }
    }
    for (ggml_tensor * input : sched->graph_inputs) {
        const int id = tensor_backend_id(sched, input);
        for (int c = 0; c < sched->n_copies; ++c) {
            append_leaf(sched, sched->copies[input][id][c], id);
        }
    }
    for (int i = 0; i < graph->n_leafs; ++i) {
        append_leaf(sched, graph->leafs[i], sched->backend_ids.at(sched->index.leafs[static_cast<size_t>(i)]));
    }
    return true;
}

bool reset_context(ggml_backend_sched * sched, const ggml_cgraph * graph) {
    // copies and keep-alive views: at most a few tensors per source of every node
    const size_t n_tensors = static_cast<size_t>(graph->n_nodes) * (GGML_MAX_SRC * 2 + 2) * static_cast<size_t>(sched->n_copies) +
                             static_cast<size_t>(graph->n_leafs) + 64;
    const size_t graph_nodes = static_cast<size_t>(std::max(graph->n_nodes, graph->n_leafs)) * 4 + 64 +
                               static_cast<size_t>(graph->n_nodes) * GGML_MAX_SRC * static_cast<size_t>(sched->n_copies + 2);
    const size_t needed = n_tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(graph_nodes, false);
    sched->ctx.reset();
    if (sched->ctx_size < needed) {
        // a worst-case bound, touched only as far as used: allocated once, not for every graph
        sched->ctx_mem.reset();
        sched->ctx_size = 0;
        sched->ctx_mem.reset(new (std::nothrow) uint8_t[needed]);
        if (!sched->ctx_mem) {
            return false;
        }
        sched->ctx_size = needed;
    }
    ggml_init_params params{sched->ctx_size, sched->ctx_mem.get(), true};
    sched->ctx.reset(ggml_init(params));
    return sched->ctx != nullptr;
}

} // namespace

void restore_sources(ggml_backend_sched * sched) {
    // newest first: a source redirected twice gets its very first pointer back
    for (auto it = sched->rewired.rbegin(); it != sched->rewired.rend(); ++it) {
        it->node->src[it->src_index] = it->original;
    }
    sched->rewired.clear();
}

namespace {

// A computed split's redirections stay in its graph (the graph has been used as split, as upstream leaves it).
// When that same graph is split again, its nodes still read the copies, which live in the context about to be
// freed: give them their original sources back first. Only the new graph's nodes are touched, since the
// previous graph may be gone.
void undo_previous_rewiring(ggml_backend_sched * sched, ggml_cgraph * graph) {
    if (sched->rewired.empty()) {
        return;
    }
    std::unordered_map<const ggml_tensor *, ggml_tensor *> original;
    for (const Rewire & r : sched->rewired) {
        original.emplace(r.copy, r.original);
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        for (ggml_tensor *& src : graph->nodes[i]->src) {
            for (auto it = original.find(src); src != nullptr && it != original.end(); it = original.find(src)) {
                src = it->second; // a source redirected twice goes back to its very first pointer
            }
        }
    }
    sched->rewired.clear();
}

} // namespace

bool build_splits(ggml_backend_sched * sched, ggml_cgraph * graph) {
    undo_previous_rewiring(sched, graph);
    if (!reset_context(sched, graph)) {
        log_error("[ggml_backend_sched_split_graph] failed to allocate the scheduler's context\n");
        return false;
    }
    // forget copies of the previous graph (their tensors lived in the old context)
    sched->copies.clear();
    assign_backends(sched, graph);
    if (!sched->errors.empty()) {
        sched->splits.clear();
        return false; // an op no backend can run: leave the user's graph untouched
    }
    if (!cut_splits(sched, graph) || !build_alloc_graph(sched, graph)) {
        restore_sources(sched);
        log_error("[ggml_backend_sched_split_graph] the scheduler's context is too small\n");
        return false;
    }
    return true;
}

} // namespace switchyard::sched
