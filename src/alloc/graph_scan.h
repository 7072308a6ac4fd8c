// The graph allocator's view of a graph: every tensor it touches (nodes, leafs, sources, view sources) numbered
// in a fixed order, what the allocator must do with each, and for the tensors it places, how long their memory
// must stay intact.
//
// Time: 0 is "before the first node runs", node i runs at time i + 1 and end_time() = n_nodes + 1 is "after the
// graph" (memory that must survive the computation). A tensor's memory is busy during the closed interval
// [start, end]: a node's inputs and its output are busy at the node's time together, unless the output was
// planned in place of an input (then they share one block).
//
// Roles: leafs, INPUT tensors and sources from outside the graph are busy from time 0 (their data is set
// before the graph runs, so nothing computed may overlap them). INPUT tensors (and the tensor an INPUT view
// aliases) stay busy until their last reader, as upstream frees them there; that reader may take one over in place,
// as upstream's does (not an OUTPUT's).
// OUTPUT tensors and results no node consumes are busy until end_time().
// A view's uses (and a view node's own position) extend its root.
#pragma once

#include "alloc/ptr_map.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

enum class TensorKind : uint8_t {
    Owned,    // the allocator gives it memory
    View,     // takes its memory from the tensor it views (ggml_backend_view_init)
    External, // already has data or a buffer: left alone
};

struct TensorInfo {
    ggml_tensor * tensor     = nullptr;
    TensorKind    kind       = TensorKind::External;
    uint8_t       io_flags   = 0;   // tensor->flags & (INPUT | OUTPUT), read with the tensor's other fields
    uint8_t       op         = 0;   // tensor->op (the passes after numbering need not touch the tensor)
    int32_t       root       = -1;  // View: table index of the tensor whose memory it aliases
    int32_t       view_src   = -1;  // table index of tensor->view_src, -1 if none
    int32_t       buffer_id  = 0;   // which gallocr buffer (node/leaf buffer ids; sources take their consumer's)
    int32_t       node_index = -1;  // position in graph->nodes (the first, if listed more than once), -1 if not a node
    int32_t       leaf_index = -1;  // position in graph->leafs, -1 if not a leaf
    size_t        size       = 0;   // Owned: bytes its buffer type needs for it (get_alloc_size)
    int32_t       start      = 0;   // Owned: first time its memory must hold its data
    int32_t       end        = 0;   // Owned: last time (views' uses included)
    int32_t       block      = -1;  // Owned: storage block
    int32_t       inplace_slot = -1; // Owned node planned in place of its source in this slot
};

static_assert(GGML_OP_COUNT <= 256 && (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT) <= 255,
              "TensorInfo keeps op and flags in a byte each");

inline constexpr int32_t kInOutFlags = GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT;

// A piece of memory: one Owned tensor, or a chain of tensors computed in place of each other.
struct Block {
    int32_t group = 0; // allocator group (distinct buffer type)
    int32_t start = 0;
    int32_t end   = 0;
    size_t  size  = 0; // aligned to the group's alignment
};

// Per buffer id: which allocator group it belongs to and the buffer type to size tensors with.
struct ScanConfig {
    const ggml_backend_buffer_type_t * bufts        = nullptr; // [n_buffers]
    const int32_t *                    buffer_group = nullptr; // [n_buffers]
    const size_t *                     group_align  = nullptr; // [n_groups]
    int                                n_buffers    = 0;
    const int *                        node_buffer_ids = nullptr; // NULL: all 0
    const int *                        leaf_buffer_ids = nullptr; // NULL: all 0
};

class GraphScan {
public:
    // Numbers the graph's tensors and classifies them; sizes Owned tensors. False (logged, naming `caller`)
    // when a buffer id is out of range. A graph made of the same tensor objects, linked the same way, as the one
    // numbered last (an engine rebuilding its graph in the same memory every step) keeps the numbering without
    // hashing: only each entry's kind and size are read again.
    bool build_table(const ggml_cgraph * graph, const ScanConfig & config, const char * caller);

    // Lifetimes, in-place decisions and blocks (after build_table).
    void plan_blocks(const ScanConfig & config);

    int32_t end_time() const { return n_nodes_ + 1; }
    int32_t n_nodes() const { return n_nodes_; }
    int32_t n_leafs() const { return n_leafs_; }
    // Changes whenever build_table numbers a graph afresh (node_srcs and the order of `tensors` may change);
    // stays when it keeps the numbering.
    uint64_t numbering() const { return numbering_; }
    // Keeps the sources table of numbering n (the one a plan was made from) when a later graph is numbered
    // afresh: moved aside, not copied, so the plan can be compared with any later graph.
    void pin(uint64_t n) { pinned_ = n; }
    // The sources table of numbering n if it is the current or the pinned one; NULL otherwise.
    const std::vector<int32_t> * node_srcs_of(uint64_t n) const {
        if (n == numbering_ && numbered_) {
            return &node_srcs;
        }
        return n == kept_numbering_ && kept_complete_ ? &kept_node_srcs_ : nullptr;
    }

    std::vector<TensorInfo> tensors;
    std::vector<int32_t>    node_srcs;  // n_nodes * GGML_MAX_SRC table indices, -1 for none
    std::vector<int32_t>    node_table; // graph->nodes[i] -> table index
    std::vector<Block>      blocks;

private:
    bool    number_tensors(const ggml_cgraph * graph, const ScanConfig & config);
    bool    same_links(const ggml_cgraph * graph) const;
    bool    refresh_entries(const ScanConfig & config);
    int32_t add_tensor(ggml_tensor * t, int32_t buffer_id, const ScanConfig & config);
    void    set_buffer_id(int32_t idx, int32_t buffer_id, const ScanConfig & config);
    int32_t owner_of(int32_t idx) const; // the Owned table index whose memory idx uses, or -1
    void    compute_lifetimes();
    void    mark_survivors();
    bool    try_inplace(int32_t node_idx, const ScanConfig & config);
    int32_t inplace_candidate(int32_t node_idx, int slot, const ScanConfig & config) const;

    PtrIndexMap          index_;
    int32_t              n_nodes_ = 0;
    int32_t              n_leafs_ = 0;
    std::vector<int32_t> leaf_table_;            // graph->leafs[i] -> table index
    std::vector<int32_t> node_ids_, leaf_ids_;   // the buffer ids the table was numbered with
    bool                 numbered_ = false;      // the table holds a complete numbering
    uint64_t             numbering_ = 0;
    uint64_t             pinned_ = 0;
    std::vector<int32_t> kept_node_srcs_;         // node_srcs of the pinned numbering, once moved aside
    uint64_t             kept_numbering_ = 0;
    bool                 kept_complete_  = false; // kept_node_srcs_ holds a complete numbering
};

// Same type, extents and strides.
bool same_layout(const ggml_tensor * a, const ggml_tensor * b);

inline size_t align_up(size_t size, size_t alignment) {
    return (size + alignment - 1) / alignment * alignment;
}

} // namespace switchyard::alloc
