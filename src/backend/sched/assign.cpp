// Backend assignment: which backend runs each node. Six named passes, in order:
//   assign_from_buffer   pre-allocated tensors run where their buffer is usable; graph inputs go to the CPU;
//                        ops on weights run where the weights are (or are offloaded when op_offload allows);
//                        run on each tensor as index_graph numbers it, while it is in the cache
//   expand_*             non-CPU assignments spread down and up to unassigned neighbours, then all of them
//   upgrade              move to a higher-priority backend sharing the buffer type; unassigned nodes go to the
//                        backend that can read most of their sources directly
//   assign_sources       views follow their source, unassigned sources follow their consumer, leftovers go to
//                        the first backend that supports them -- or are recorded as errors (never an abort)
//   follow_written_memory  nodes computing into memory they view run where that memory's owner runs
// A graph that recurs (the same tensor objects, linked the same way, with the same facts: TensorFacts) takes its
// kept assignment back instead of running the passes again.
#include "backend/sched/sched.h"

#include "base/log.h"

#include <cstring>

namespace switchyard::sched {

int backend_index(const ggml_backend_sched * sched, ggml_backend_t backend) {
    for (int i = 0; i < sched->n_backends; ++i) {
        if (sched->backends[i] == backend) {
            return i;
        }
    }
    return -1;
}

namespace {

const ggml_backend_buffer * owner_buffer(const ggml_tensor * t) {
    return t->view_src ? t->view_src->buffer : t->buffer;
}

// backend_supports_op for a node with a source the backend cannot read where it lives: asked about the node with
// each such source replaced by a same-layout tensor not yet in any buffer. Out of line: the probe copies are
// large, and the common case (every source readable, or in no buffer yet) never needs them.
[[gnu::noinline]] bool supports_with_copies(const ggml_backend_sched * sched, int backend_id, const ggml_tensor * node) {
    ggml_tensor probe = *node;
    ggml_tensor copies[GGML_MAX_SRC];
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor *         src = node->src[j];
        const ggml_backend_buffer * buf = src ? owner_buffer(src) : nullptr;
        if (!buf || backend_reads_buft(sched, backend_id, buf->buft)) {
            continue;
        }
        copies[j]           = *src;
        copies[j].buffer    = nullptr;
        copies[j].data      = nullptr;
        copies[j].view_src  = nullptr;
        copies[j].view_offs = 0;
        probe.src[j]        = &copies[j];
    }
    return ggml_backend_supports_op(sched->backends[backend_id], &probe);
}

} // namespace

// A backend that cannot read a source where it lives still runs the node: the source becomes a split input,
// copied into the backend's own memory before the split runs (splits.cpp). So the backend is asked about the
// node as it will compute it -- each such source replaced by a same-layout tensor not yet in any buffer -- rather
// than about the original, which a backend rightly refuses (the CPU cannot read device memory). Asked for every
// node of every graph: the common case, no such source, asks about the node itself.
bool backend_supports_op(const ggml_backend_sched * sched, int backend_id, const ggml_tensor * node) {
    for (const ggml_tensor * src : node->src) {
        const ggml_backend_buffer * buf = src ? owner_buffer(src) : nullptr;
        if (buf && !backend_reads_buft(sched, backend_id, buf->buft)) {
            return supports_with_copies(sched, backend_id, node);
        }
    }
    return ggml_backend_supports_op(sched->backends[backend_id], node);
}

bool backend_reads_buft(const ggml_backend_sched * sched, int backend_id, ggml_backend_buffer_type_t buft) {
    BuftReach &    memo = sched->buft_reach;
    const uint32_t bit  = uint32_t{1} << backend_id;
    int            k    = 0;
    while (k < memo.n && memo.bufts[static_cast<size_t>(k)] != buft) {
        ++k;
    }
    if (k == memo.n) {
        if (k == BuftReach::kSlots) {
            return ggml_backend_supports_buft(sched->backends[backend_id], buft);
        }
        memo.bufts[static_cast<size_t>(k)] = buft;
        memo.asked[static_cast<size_t>(k)] = memo.readable[static_cast<size_t>(k)] = 0;
        ++memo.n;
    }
    const auto slot = static_cast<size_t>(k);
    if ((memo.asked[slot] & bit) == 0) {
        memo.asked[slot] |= bit;
        if (ggml_backend_supports_buft(sched->backends[backend_id], buft)) {
            memo.readable[slot] |= bit;
        }
    }
    return (memo.readable[slot] & bit) != 0;
}

ggml_backend_buffer_type_t tensor_buft(ggml_backend_sched * sched, const ggml_tensor * t, int32_t entry) {
    const ggml_backend_buffer * buf = owner_buffer(t);
    if (buf) {
        return buf->buft;
    }
    const int id = sched->backend_ids.at(sched->index.memory_entry(entry));
    return id >= 0 ? sched->bufts[id] : nullptr;
}

bool buft_readable(ggml_backend_sched * sched, const ggml_tensor * t, int32_t entry, int backend_id) {
    ggml_backend_buffer_type_t buft = tensor_buft(sched, t, entry);
    return buft && backend_reads_buft(sched, backend_id, buft);
}

namespace {

// backend_supports_op for graph node i (`node`), asked at most once per split (GraphIndex::supported).
bool node_supported(ggml_backend_sched * sched, int backend_id, int i, const ggml_tensor * node) {
    int8_t & known = sched->index.supported[static_cast<size_t>(i) * static_cast<size_t>(sched->n_backends) +
                                            static_cast<size_t>(backend_id)];
    if (known < 0) {
        known = backend_supports_op(sched, backend_id, node) ? 1 : 0;
    }
    return known == 1;
}

// backend_supports_op for op_node: graph node node_index (asked once, node_supported), or a leaf (-1).
bool supports(ggml_backend_sched * sched, int backend_id, int node_index, const ggml_tensor * op_node) {
    return node_index >= 0 ? node_supported(sched, backend_id, node_index, op_node)
                           : backend_supports_op(sched, backend_id, op_node);
}

// Highest-priority backend that can use the buffer `t` lives in and run `op_node` (graph node node_index, or -1:
// a leaf). -1: t has no buffer; -2: it has one but no backend qualifies.
int backend_from_buffer(ggml_backend_sched * sched, const ggml_tensor * t, const ggml_tensor * op_node, int node_index) {
    const ggml_backend_buffer * buf = owner_buffer(t);
    if (!buf) {
        return -1;
    }
    for (int i = 0; i < sched->n_backends; ++i) {
        if (backend_reads_buft(sched, i, buf->buft) && supports(sched, i, node_index, op_node)) {
            return i;
        }
    }
    return -2;
}

// The source whose placement should not decide where the op runs (too small to matter), or -1.
int ignored_weight_src(ggml_op op) {
    switch (op) {
    case GGML_OP_ROPE: return 2;
    case GGML_OP_FLASH_ATTN_EXT: return 4;
    case GGML_OP_SOFT_MAX: return 2;
    default: return -1;
    }
}

// The backend the weights graph node i (`node`) reads decide on, or -1.
int backend_for_weights(ggml_backend_sched * sched, ggml_tensor * node, int i) {
    const int ignored = ignored_weight_src(node->op);
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor *         src = node->src[j];
        const ggml_backend_buffer * buf = src ? owner_buffer(src) : nullptr;
        if (!buf || buf->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS || j == ignored) {
            continue;
        }
        const int src_id = backend_from_buffer(sched, src, node, i);
        if (src_id < 0) {
            continue;
        }
        const int cpu_id = sched->n_backends - 1;
        if (sched->op_offload && src_id == cpu_id && ggml_backend_buffer_is_host(const_cast<ggml_backend_buffer *>(buf))) {
            for (int b = 0; b < src_id; ++b) {
                if (supports(sched, b, i, node) && ggml_backend_offload_op(sched->backends[b], node)) {
                    return b;
                }
            }
        }
        return src_id;
    }
    return -1;
}

void record_error(ggml_backend_sched * sched, std::string message) {
    log_error("[ggml_backend_sched] %s\n", message.c_str());
    sched->errors.push_back(std::move(message));
}

std::string backend_list(const ggml_backend_sched * sched) {
    std::string names;
    for (int i = 0; i < sched->n_backends; ++i) {
        names += (i ? ", " : "");
        names += ggml_backend_name(sched->backends[i]);
    }
    return names;
}

// The backend graph node node_index (or a leaf: -1), `t`, must run on or live on, from its buffer, flags and
// weights; -1 if none decides.
int backend_id_from_cur(ggml_backend_sched * sched, ggml_tensor * t, int node_index) {
    const int from_buffer = backend_from_buffer(sched, t, t, node_index);
    if (from_buffer >= 0) {
        return from_buffer;
    }
    if (from_buffer == -2) {
        const ggml_tensor * owner = t->view_src ? t->view_src : t;
        record_error(sched, std::string("tensor '") + t->name + "' (" + ggml_op_desc(t) +
                                ") is pre-allocated in buffer type '" + ggml_backend_buft_name(owner->buffer->buft) +
                                "' that no backend can run it from; backends tried: " + backend_list(sched));
        return -1;
    }
    if (t->flags & GGML_TENSOR_FLAG_INPUT) {
        return sched->n_backends - 1;
    }
    if (t->op == GGML_OP_NONE) {
        return -1; // a leaf without buffer: follows its consumer
    }
    return backend_for_weights(sched, t, node_index);
}

// The first pass, run by index_graph on each leaf and then each node as soon as it is numbered (while the tensor
// and its sources are still in the cache): tensors the user did not place get their backend from their buffers.
void assign_from_buffer(ggml_backend_sched * sched, ggml_tensor * t, int32_t entry, int node_index) {
    BackendIds & ids = sched->backend_ids;
    if (ids.at(entry) == -1) {
        const int id  = backend_id_from_cur(sched, t, node_index); // may record an error, never adds an entry
        ids.at(entry) = id;
    }
    // with one backend, a later pass asks about every node that computes something: ask now, while it is cached
    if (sched->n_backends == 1 && node_index >= 0 && !sched->index.view_ops[static_cast<size_t>(node_index)]) {
        node_supported(sched, 0, node_index, t);
    }
}

// Spreads assignments to neighbouring unassigned nodes in one direction. With skip_cpu, CPU assignments act
// as barriers (the CPU only runs what it must).
void expand(ggml_backend_sched * sched, ggml_cgraph * graph, bool downwards, bool skip_cpu) {
    const int cpu_id = sched->n_backends - 1;
    int       cur    = -1;
    for (int k = 0; k < graph->n_nodes; ++k) {
        const int i = downwards ? k : graph->n_nodes - 1 - k;
        if (sched->index.view_ops[static_cast<size_t>(i)]) {
            continue;
        }
        int & id = sched->backend_ids.at(sched->index.nodes[static_cast<size_t>(i)]);
        if (id != -1) {
            cur = (skip_cpu && id == cpu_id) ? -1 : id;
        } else if (cur != -1) {
            if (node_supported(sched, cur, i, graph->nodes[i])) {
                id = cur;
            } else {
                cur = -1;
            }
        }
    }
}

// Whether backend_id can read every source of graph node i where it lives.
bool reads_all_sources(ggml_backend_sched * sched, const ggml_tensor * node, int i, int backend_id) {
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = node->src[j];
        if (src && !buft_readable(sched, src, sched->index.src(i, j), backend_id)) {
            return false;
        }
    }
    return true;
}

// For an unassigned graph node i: the backend that supports it and can read the most of its sources where they
// live (the first one on a tie); -1 if none supports it. The sources are counted only when several backends
// support the node: with a single candidate (always, with one backend) the count cannot change the choice.
int best_supporting_backend(ggml_backend_sched * sched, const ggml_tensor * node, int i) {
    int candidates[kMaxBackends];
    int n_candidates = 0;
    for (int b = 0; b < sched->n_backends; ++b) {
        if (node_supported(sched, b, i, node)) {
            candidates[n_candidates++] = b;
        }
    }
    if (n_candidates <= 1) {
        return n_candidates == 1 ? candidates[0] : -1;
    }
    int best = -1, best_readable = -1;
    for (int k = 0; k < n_candidates; ++k) {
        const int b        = candidates[k];
        int       readable = 0;
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            readable += node->src[j] && buft_readable(sched, node->src[j], sched->index.src(i, j), b) ? 1 : 0;
        }
        if (readable > best_readable) {
            best          = b;
            best_readable = readable;
        }
    }
    return best;
}

void upgrade(ggml_backend_sched * sched, ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_nodes; ++i) {
        if (sched->index.view_ops[static_cast<size_t>(i)]) {
            continue;
        }
        ggml_tensor * node = graph->nodes[i];
        int &         id   = sched->backend_ids.at(sched->index.nodes[static_cast<size_t>(i)]);
        if (id != -1) {
            for (int b = 0; b < id; ++b) {
                if (sched->bufts[b] == sched->bufts[id] && node_supported(sched, b, i, node) &&
                    reads_all_sources(sched, node, i, b)) {
                    id = b;
                    break;
                }
            }
            continue;
        }
        id = best_supporting_backend(sched, node, i);
    }
}

void assign_sources(ggml_backend_sched * sched, ggml_cgraph * graph) {
    BackendIds &       ids   = sched->backend_ids;
    const GraphIndex & index = sched->index;
    for (int i = 0; i < graph->n_nodes; ++i) {
        ggml_tensor * node  = graph->nodes[i];
        const int32_t entry = index.nodes[static_cast<size_t>(i)];
        int &         id    = ids.at(entry);
        if (index.view_src(entry) >= 0 && id == -1) {
            id = ids.at(index.view_src(entry));
        }
        if (id == -1) {
            for (int b = 0; b < sched->n_backends; ++b) {
                if (node_supported(sched, b, i, node)) {
                    id = b;
                    break;
                }
            }
        }
        if (id == -1 && !op_is_view(node->op) && node->op != GGML_OP_NONE) {
            record_error(sched, std::string("no backend supports op ") + ggml_op_desc(node) + " for tensor '" +
                                    node->name + "' (type " + ggml_type_name(node->type) + "); backends tried: " +
                                    backend_list(sched));
        }
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            const int32_t src = index.src(i, j);
            if (src < 0) {
                continue;
            }
            int & src_id = ids.at(src);
            if (src_id == -1) {
                src_id = index.view_src(src) >= 0 ? ids.at(index.view_src(src)) : -1;
                if (src_id == -1) {
                    src_id = id;
                }
            }
        }
    }
    // view ops and keep-alive nodes without a backend: take the first backend (they compute nothing)
    for (const int32_t entry : index.nodes) {
        if (ids.at(entry) == -1) {
            ids.at(entry) = sched->n_backends - 1;
        }
    }
    for (const int32_t entry : index.leafs) {
        if (ids.at(entry) == -1) {
            ids.at(entry) = sched->n_backends - 1;
        }
    }
}

// Nodes that compute into memory they view (SET_ROWS, CPY into a view, in-place ops on a node's result) run on the
// backend of the tensor owning that memory: the allocator places it in that backend's buffer. The expansion passes
// may have put such a writer beside its other neighbours while the owner runs elsewhere (an op only the CPU
// supports, such as a FILL the writer then overwrites in part). Pre-allocated memory already decided the writer's
// backend (backend_from_buffer). A writer the owner's backend cannot run is an error, not a write into another
// device's memory.
void follow_written_memory(ggml_backend_sched * sched, ggml_cgraph * graph) {
    BackendIds &       ids   = sched->backend_ids;
    const GraphIndex & index = sched->index;
    for (int i = 0; i < graph->n_nodes; ++i) {
        ggml_tensor * node = graph->nodes[i];
        if (node->view_src == nullptr || index.view_ops[static_cast<size_t>(i)] || node->op == GGML_OP_NONE ||
            owner_buffer(node) != nullptr) {
            continue;
        }
        int32_t owner = index.nodes[static_cast<size_t>(i)];
        while (index.view_src(owner) >= 0) {
            owner = index.view_src(owner);
        }
        const int owner_id = ids.at(owner);
        int &     id       = ids.at(index.nodes[static_cast<size_t>(i)]);
        if (owner_id < 0 || owner_id == id) {
            continue;
        }
        if (node_supported(sched, owner_id, i, node)) {
            id = owner_id;
            continue;
        }
        record_error(sched, std::string("tensor '") + node->name + "' (" + ggml_op_desc(node) + ") writes into '" +
                                node->view_src->name + "', which runs on " + ggml_backend_name(sched->backends[owner_id]) +
                                ", and that backend cannot run it");
    }
}

void record_fallbacks(ggml_backend_sched * sched, ggml_cgraph * graph) {
    if (sched->n_backends == 1) {
        return; // every node runs on the only backend (or is an error): nothing fell back
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        ggml_tensor * node = graph->nodes[i];
        if (op_is_view(node->op) || node->op == GGML_OP_NONE) {
            continue;
        }
        const int chosen    = sched->backend_ids.at(sched->index.nodes[static_cast<size_t>(i)]);
        const int preferred = backend_for_weights(sched, node, i);
        if (preferred >= 0 && preferred != chosen) {
            sched->fallbacks.push_back(Fallback{node, preferred, chosen,
                                                std::string("backend ") + ggml_backend_name(sched->backends[preferred]) +
                                                    " holds the weights but cannot run the op"});
        } else if (chosen == sched->n_backends - 1 && sched->n_backends > 1 && !node_supported(sched, 0, i, node)) {
            sched->fallbacks.push_back(Fallback{node, 0, chosen,
                                                std::string("not supported by ") + ggml_backend_name(sched->backends[0])});
        }
    }
}

} // namespace

void assign_backends(ggml_backend_sched * sched, ggml_cgraph * graph) {
    sched->buft_reach.n = 0;
    sched->errors.clear();
    const Numbering numbering = index_graph(sched, graph, assign_from_buffer);
    if (numbering == Numbering::kAssignmentBack) {
        return; // the kept assignment's ids are back, and its fallbacks still in sched->fallbacks
    }
    sched->index.assignment_kept = false;
    sched->fallbacks.clear();
    if (sched->n_backends > 1) { // with only the CPU, every assignment is a barrier to these two: nothing spreads
        expand(sched, graph, /*downwards=*/true, /*skip_cpu=*/true);
        expand(sched, graph, /*downwards=*/false, /*skip_cpu=*/true);
    }
    expand(sched, graph, /*downwards=*/true, /*skip_cpu=*/false);
    expand(sched, graph, /*downwards=*/false, /*skip_cpu=*/false);
    upgrade(sched, graph);
    assign_sources(sched, graph);
    follow_written_memory(sched, graph);
    record_fallbacks(sched, graph);
    // a graph whose numbering was taken back recurs (a decoder rebuilt for every token): keep its assignment
    if (numbering == Numbering::kTakenBack && sched->errors.empty()) {
        keep_assignment(sched);
    }
}

} // namespace switchyard::sched
