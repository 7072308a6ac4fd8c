// The graph allocator object behind ggml_gallocr_t.
//
// reserve: number the graph's tensors (GraphScan), derive lifetimes and in-place chains (blocks), place each
// allocator group's blocks with the whole graph in view (pack_blocks), record the result as a plan, and make
// the group's chunk buffers large enough. alloc_graph: check that the graph still matches the plan (same
// tensors, same uses, sizes within the planned maxima), otherwise re-plan; then give every tensor its planned
// address (replay). Buffer ids that share a buffer type share one group: one planner and one set of buffers.
#pragma once

#include "alloc/dyn_allocator.h"
#include "alloc/graph_scan.h"
#include "alloc/planner.h"
#include "alloc/vbuffer.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

// What the plan says about one table entry (GraphScan numbering).
struct TensorPlan {
    TensorKind kind         = TensorKind::External;
    int32_t    root         = -1;
    int32_t    buffer_id    = 0;
    Address    address;          // Owned: chunk and offset in its group's virtual buffer
    size_t     size_max     = 0; // Owned: the size planned for; a later graph may be smaller
    int32_t    flags        = 0; // INPUT/OUTPUT bits
    size_t     view_offs    = 0;
    int32_t    inplace_slot = -1;
    bool       view_none    = false; // a view of op NONE (dependency marker)
};

struct GraphPlan {
    bool                             valid   = false;
    int32_t                          n_nodes = 0;
    int32_t                          n_leafs = 0;
    std::vector<int>                 node_buffer_ids;
    std::vector<int>                 leaf_buffer_ids;
    std::vector<TensorPlan>          tensors;
    uint64_t                         numbering = 0; // GraphScan::numbering() of the table planned from (its
                                                    // sources: GraphScan::node_srcs_of)
    std::vector<std::vector<size_t>> chunk_sizes; // per group
    std::vector<size_t>              lower_bounds; // per group
};

struct Group {
    ggml_backend_buffer_type_t buft           = nullptr;
    size_t                     alignment      = 1;
    size_t                     max_chunk_size = 0;
    int32_t                    first_buffer   = 0; // the first buffer id using this group
    VBuffer                    buffer;
};

} // namespace switchyard::alloc

struct ggml_gallocr {
    std::vector<ggml_backend_buffer_type_t> bufts;        // per buffer id
    std::vector<int32_t>                    buffer_group; // per buffer id
    std::vector<size_t>                     group_align;  // per group
    std::vector<switchyard::alloc::Group>   groups;
    switchyard::alloc::GraphPlan            plan;
    switchyard::alloc::GraphScan            scan; // the table of the graph last planned or checked
    switchyard::alloc::PlanPolicy           policy = switchyard::alloc::PlanPolicy::Smallest;
};

namespace switchyard::alloc {

// Plans `graph` and stores the plan in galloc (buffers untouched). False (logged) on invalid buffer ids.
bool plan_graph(ggml_gallocr & galloc, ggml_cgraph * graph, const int * node_buffer_ids,
                const int * leaf_buffer_ids, const char * caller);

// Makes every group's buffers large enough for the plan. *grown: whether any buffer was (re)allocated.
bool reserve_buffers(ggml_gallocr & galloc, const char * caller, bool * grown);

// Whether the plan can place `graph` as it is (fills galloc.scan with the graph's table).
bool plan_matches(ggml_gallocr & galloc, ggml_cgraph * graph);

// Gives the tensors in galloc.scan their planned memory. False (logged) when a backend refuses a tensor.
bool place_tensors(ggml_gallocr & galloc);

} // namespace switchyard::alloc
