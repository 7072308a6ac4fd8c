// Numbering a graph's tensors, their lifetimes and the in-place decisions of the graph allocator.
#include "alloc/graph_scan.h"

#include "alloc/inplace_ops.h"
#include "alloc/tensor_prefetch.h"
#include "base/log.h"
#include "core/graph.h"

#include <algorithm>

namespace switchyard::alloc {

namespace {

constexpr int kMaxViewDepth = 64;

ggml_tensor * root_tensor(ggml_tensor * t) {
    for (int depth = 0; t->view_src != nullptr && depth < kMaxViewDepth; ++depth) {
        t = t->view_src;
    }
    return t;
}

bool valid_buffer_id(int id, const ScanConfig & config, const char * caller, const char * what, int i) {
    if (id >= 0 && id < config.n_buffers) {
        return true;
    }
    log_error("[%s] %s %d has buffer id %d, but the allocator has %d buffer(s)\n", caller, what, i, id,
              config.n_buffers);
    return false;
}

// An OUTPUT tensor's memory is never taken over in place (the caller reads it after the compute). An INPUT's may be,
// by its last reader, as upstream 0.25.1 does (its test-alloc expects it): the caller sets inputs before each compute.
constexpr int32_t kNoReuseFlags = GGML_TENSOR_FLAG_OUTPUT;

void record_ids(std::vector<int32_t> & out, const int * ids, int n) {
    out.assign(static_cast<size_t>(n), 0);
    if (ids != nullptr) {
        std::copy(ids, ids + n, out.begin());
    }
}

bool same_ids(const std::vector<int32_t> & recorded, const int * ids) {
    if (ids == nullptr) {
        return std::all_of(recorded.begin(), recorded.end(), [](int32_t id) { return id == 0; });
    }
    return std::equal(recorded.begin(), recorded.end(), ids);
}

} // namespace

bool same_layout(const ggml_tensor * a, const ggml_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

// Numbers t (after the tensor it views and its root, which must be initialised first), classifies it and sizes
// it when Owned; already numbered tensors keep their entry. One probe for a tensor that is not a view.
int32_t GraphScan::add_tensor(ggml_tensor * t, int32_t buffer_id, const ScanConfig & config) {
    int32_t root     = -1;
    int32_t view_src = -1;
    if (t->view_src != nullptr) {
        const int32_t found = index_.find(t);
        if (found >= 0) {
            return found;
        }
        view_src = add_tensor(t->view_src, buffer_id, config);
        root     = add_tensor(root_tensor(t), buffer_id, config);
    }
    const auto [idx, inserted] = index_.insert(t, static_cast<int32_t>(tensors.size()));
    if (!inserted) {
        return idx;
    }
    TensorInfo info;
    info.tensor    = t;
    info.buffer_id = buffer_id;
    info.root      = root;
    info.view_src  = view_src;
    info.io_flags  = static_cast<uint8_t>(t->flags & kInOutFlags);
    info.op        = static_cast<uint8_t>(t->op);
    if (t->data != nullptr || t->buffer != nullptr) {
        info.kind = TensorKind::External;
    } else {
        info.kind = t->view_src != nullptr ? TensorKind::View : TensorKind::Owned;
    }
    if (info.kind == TensorKind::Owned) {
        info.size = ggml_backend_buft_get_alloc_size(config.bufts[buffer_id], t);
    }
    tensors.push_back(info);
    return idx;
}

// Gives a leaf or node the buffer id of its own position (it may have been numbered first as a source, with its
// consumer's id), sizing it again for that buffer's type.
void GraphScan::set_buffer_id(int32_t idx, int32_t buffer_id, const ScanConfig & config) {
    TensorInfo & info = tensors[idx];
    if (info.buffer_id == buffer_id) {
        return;
    }
    info.buffer_id = buffer_id;
    if (info.kind == TensorKind::Owned) {
        info.size = ggml_backend_buft_get_alloc_size(config.bufts[buffer_id], info.tensor);
    }
}

bool GraphScan::build_table(const ggml_cgraph * graph, const ScanConfig & config, const char * caller) {
    for (int i = 0; i < graph->n_leafs; ++i) {
        if (!valid_buffer_id(config.leaf_buffer_ids != nullptr ? config.leaf_buffer_ids[i] : 0, config, caller,
                             "leaf", i)) {
            return false;
        }
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        if (!valid_buffer_id(config.node_buffer_ids != nullptr ? config.node_buffer_ids[i] : 0, config, caller,
                             "node", i)) {
            return false;
        }
    }
    blocks.clear();
    if (numbered_ && graph->n_nodes == n_nodes_ && graph->n_leafs == n_leafs_ &&
        same_ids(node_ids_, config.node_buffer_ids) && same_ids(leaf_ids_, config.leaf_buffer_ids) &&
        same_links(graph)) {
        if (refresh_entries(config)) {
            return true;
        }
    }
    // a pinned sources table is moved aside for the plan made from it; numbering_ names the table from here
    // on, complete or not
    if (numbered_ && numbering_ == pinned_) {
        kept_node_srcs_.swap(node_srcs);
        kept_numbering_ = numbering_;
        kept_complete_  = true;
    }
    numbered_ = false;
    ++numbering_;
    n_nodes_ = graph->n_nodes;
    n_leafs_ = graph->n_leafs;
    record_ids(node_ids_, config.node_buffer_ids, n_nodes_);
    record_ids(leaf_ids_, config.leaf_buffer_ids, n_leafs_);
    numbered_ = number_tensors(graph, config);
    return true;
}

bool GraphScan::number_tensors(const ggml_cgraph * graph, const ScanConfig & config) {
    tensors.clear();
    tensors.reserve(static_cast<size_t>(n_nodes_ + n_leafs_) + 16);
    index_.reset(static_cast<size_t>(n_nodes_ + n_leafs_));
    node_srcs.assign(static_cast<size_t>(n_nodes_) * GGML_MAX_SRC, -1);
    node_table.assign(static_cast<size_t>(n_nodes_), -1);
    leaf_table_.assign(static_cast<size_t>(n_leafs_), -1);

    for (int i = 0; i < n_leafs_; ++i) {
        if (i + kPrefetchDistance < n_leafs_) {
            prefetch_tensor(graph->leafs[i + kPrefetchDistance]);
        }
        int32_t idx             = add_tensor(graph->leafs[i], leaf_ids_[i], config);
        tensors[idx].leaf_index = i;
        set_buffer_id(idx, leaf_ids_[i], config);
        leaf_table_[i] = idx;
    }
    for (int i = 0; i < n_nodes_; ++i) {
        prefetch_ahead(graph->nodes, n_nodes_, i);
        ggml_tensor * node = graph->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            if (node->src[j] != nullptr) {
                node_srcs[static_cast<size_t>(i) * GGML_MAX_SRC + j] = add_tensor(node->src[j], node_ids_[i], config);
            }
        }
        int32_t idx = add_tensor(node, node_ids_[i], config);
        if (tensors[idx].node_index < 0) { // a node listed again (a split input's copy, one per split using it)
            tensors[idx].node_index = i;    // lives from its first place, where it is written, as upstream's
        }
        set_buffer_id(idx, node_ids_[i], config);
        node_table[i] = idx;
    }
    return true;
}

// Whether every leaf, node and source position of the graph holds the tensor object the table has there
// (refresh_entries checks the view sources).
bool GraphScan::same_links(const ggml_cgraph * graph) const {
    for (int i = 0; i < n_leafs_; ++i) {
        if (graph->leafs[i] != tensors[leaf_table_[i]].tensor) {
            return false;
        }
    }
    for (int i = 0; i < n_nodes_; ++i) {
        prefetch_ahead(graph->nodes, n_nodes_, i);
        const ggml_tensor * node = graph->nodes[i];
        if (node != tensors[node_table[i]].tensor) {
            return false;
        }
        const int32_t * srcs = &node_srcs[static_cast<size_t>(i) * GGML_MAX_SRC];
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            if (node->src[j] != (srcs[j] >= 0 ? tensors[srcs[j]].tensor : nullptr)) {
                return false;
            }
        }
    }
    return true;
}

// After same_links: false if a view source differs (then the table must be numbered afresh). Otherwise every
// position holds the tensor it held, so numbering again would give this table entry for entry; reads each
// entry's kind and size again (the tensors may have been given memory, or changed shape, since) and forgets
// what planning derived from them.
bool GraphScan::refresh_entries(const ScanConfig & config) {
    for (TensorInfo & info : tensors) {
        const ggml_tensor * t = info.tensor;
        if (t->view_src != (info.view_src >= 0 ? tensors[info.view_src].tensor : nullptr)) {
            return false;
        }
        if (t->data != nullptr || t->buffer != nullptr) {
            info.kind = TensorKind::External;
        } else {
            info.kind = t->view_src != nullptr ? TensorKind::View : TensorKind::Owned;
        }
        info.io_flags     = static_cast<uint8_t>(t->flags & kInOutFlags);
        info.op           = static_cast<uint8_t>(t->op);
        info.size         = info.kind == TensorKind::Owned
                                ? ggml_backend_buft_get_alloc_size(config.bufts[info.buffer_id], t)
                                : 0;
        info.start        = 0;
        info.end          = 0;
        info.block        = -1;
        info.inplace_slot = -1;
    }
    return true;
}

int32_t GraphScan::owner_of(int32_t idx) const {
    const TensorInfo & info = tensors[idx];
    if (info.kind == TensorKind::Owned) {
        return idx;
    }
    if (info.kind == TensorKind::View && tensors[info.root].kind == TensorKind::Owned) {
        return info.root;
    }
    return -1;
}

void GraphScan::compute_lifetimes() {
    for (TensorInfo & info : tensors) {
        if (info.kind != TensorKind::Owned) {
            continue;
        }
        // leafs, inputs and tensors from outside the graph hold data before the first node runs
        bool from_start = info.node_index < 0 || (info.io_flags & GGML_TENSOR_FLAG_INPUT) != 0;
        info.start      = from_start ? 0 : info.node_index + 1;
        info.end        = info.start;
    }
    auto use = [this](int32_t idx, int32_t time) {
        int32_t owner = owner_of(idx);
        if (owner >= 0) {
            TensorInfo & info = tensors[owner];
            info.start        = std::min(info.start, time); // only for graphs that use a node before computing it
            info.end          = std::max(info.end, time);
        }
    };
    for (int32_t i = 0; i < n_nodes_; ++i) {
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            int32_t src = node_srcs[static_cast<size_t>(i) * GGML_MAX_SRC + j];
            if (src >= 0) {
                use(src, i + 1);
            }
        }
        if (tensors[node_table[i]].kind == TensorKind::View) {
            use(node_table[i], i + 1); // a view node is a (no-op) use of the memory it views
        }
    }
    mark_survivors();
}

// Tensors whose memory must outlive the graph: outputs, and results nobody in the graph consumes (the caller reads
// them afterwards). For a view, its root survives; an INPUT view makes its root busy from time 0. Views
// of op NONE are dependency markers (the scheduler adds them to pin a tensor until a point of the graph) and keep
// nothing alive by themselves.
void GraphScan::mark_survivors() {
    std::vector<uint8_t> consumed(tensors.size(), 0);
    std::vector<int32_t> n_views(tensors.size(), 0);
    for (int32_t src : node_srcs) {
        if (src >= 0) {
            consumed[src] = 1;
        }
    }
    std::vector<uint8_t> survives(tensors.size(), 0);
    for (int32_t idx = 0; idx < static_cast<int32_t>(tensors.size()); ++idx) {
        const TensorInfo & info  = tensors[idx];
        int32_t            owner = owner_of(idx);
        if (info.kind != TensorKind::View || owner < 0) {
            continue;
        }
        ++n_views[owner];
        bool output = (info.io_flags & GGML_TENSOR_FLAG_OUTPUT) != 0;
        if (output || (!consumed[idx] && info.op != GGML_OP_NONE)) {
            survives[owner] = 1;
        }
        if ((info.io_flags & GGML_TENSOR_FLAG_INPUT) != 0) {
            tensors[owner].start = 0; // the caller writes the aliased memory before the compute
        }
    }
    for (int32_t idx = 0; idx < static_cast<int32_t>(tensors.size()); ++idx) {
        TensorInfo & info = tensors[idx];
        if (info.kind != TensorKind::Owned) {
            continue;
        }
        // inputs live from the start to their last reader (as upstream frees them); outputs to the end
        const bool output = (info.io_flags & GGML_TENSOR_FLAG_OUTPUT) != 0;
        if (survives[idx] || output || (!consumed[idx] && n_views[idx] == 0)) {
            info.end = end_time();
        }
    }
}

// The Owned tensor whose block the node may take through its source in `slot`, or -1. The source's memory must
// die at this node (no later use, no use by another source slot of the node through another view), belong to the
// same allocator group, not be an input or output, and have exactly the node's layout and size.
int32_t GraphScan::inplace_candidate(int32_t node_idx, int slot, const ScanConfig & config) const {
    const TensorInfo & info = tensors[node_idx];
    const size_t       base = static_cast<size_t>(info.node_index) * GGML_MAX_SRC;
    int32_t            src  = node_srcs[base + slot];
    if (src < 0) {
        return -1;
    }
    int32_t owner = owner_of(src);
    if (owner < 0) {
        return -1;
    }
    const TensorInfo & own  = tensors[owner];
    const int32_t      time = info.node_index + 1;
    if (own.block < 0) {
        return -1; // produced by a later node (a graph out of order): never in place
    }
    if ((own.io_flags & kNoReuseFlags) != 0 || (tensors[src].io_flags & kNoReuseFlags) != 0) {
        return -1;
    }
    if (own.end != time || blocks[own.block].end != time) {
        return -1;
    }
    if (config.buffer_group[own.buffer_id] != config.buffer_group[info.buffer_id]) {
        return -1;
    }
    int refs = 0;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        int32_t other = node_srcs[base + j];
        refs += other >= 0 && owner_of(other) == owner ? 1 : 0;
    }
    if (refs != 1) {
        return -1;
    }
    const ggml_tensor * parent = tensors[src].tensor;
    if (src != owner && (parent->view_src != own.tensor || parent->view_offs != 0)) {
        return -1;
    }
    if (!same_layout(info.tensor, parent)) {
        return -1;
    }
    const Block & block = blocks[own.block];
    if (align_up(info.size, config.group_align[block.group]) > block.size) {
        return -1; // (a smaller result takes the block as it is: a view's result in place of the whole source)
    }
    return owner;
}

bool GraphScan::try_inplace(int32_t node_idx, const ScanConfig & config) {
    TensorInfo & info = tensors[node_idx];
    const auto op = static_cast<ggml_op>(info.op);
    if ((info.io_flags & GGML_TENSOR_FLAG_INPUT) != 0 || !op_can_inplace(op)) {
        return false;
    }
    for (int slot = 0; slot < GGML_MAX_SRC; ++slot) {
        if (!inplace_slot_allowed(op, slot)) {
            continue;
        }
        int32_t owner = inplace_candidate(node_idx, slot, config);
        if (owner >= 0) {
            info.block        = tensors[owner].block;
            info.inplace_slot = slot;
            Block & block     = blocks[info.block];
            block.end         = std::max(block.end, info.end);
            return true;
        }
    }
    return false;
}

void GraphScan::plan_blocks(const ScanConfig & config) {
    compute_lifetimes();
    blocks.clear();
    auto new_block = [&](TensorInfo & info) {
        Block block;
        block.group = config.buffer_group[info.buffer_id];
        block.start = info.start;
        block.end   = info.end;
        block.size  = align_up(info.size, config.group_align[block.group]);
        info.block  = static_cast<int32_t>(blocks.size());
        blocks.push_back(block);
    };
    for (TensorInfo & info : tensors) {
        if (info.kind == TensorKind::Owned && info.node_index < 0) {
            new_block(info);
        }
    }
    for (int32_t i = 0; i < n_nodes_; ++i) {
        TensorInfo & info = tensors[node_table[i]];
        if (info.kind != TensorKind::Owned || info.node_index != i) {
            continue;
        }
        if (!try_inplace(node_table[i], config)) {
            new_block(info);
        }
    }
}

} // namespace switchyard::alloc
