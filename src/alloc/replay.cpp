// Placing a graph's tensors from the plan (ggml_gallocr_alloc_graph), after checking that the plan still
// describes the graph.
//
// The plan is valid for a graph with the same tensors used the same way: the same numbering of tensors (nodes,
// leafs, sources, view sources in the same order and roles), the same sources per node, the same INPUT/OUTPUT
// flags and views, Owned tensors no larger than planned, and in-place pairs still of equal layout. Sizes alone
// (what upstream compares) are not enough: a graph whose edges changed has other lifetimes, and replaying the
// old addresses could overlap two live tensors. Tensors that were given memory since (data or buffer set) are
// left alone, as on the first allocation.
#include "alloc/gallocr.h"

#include "base/guard.h"
#include "base/log.h"
#include "core/graph.h"

namespace switchyard::alloc {

namespace {

constexpr const char * kAllocGraph = "ggml_gallocr_alloc_graph";

bool entry_matches(const TensorPlan & planned, const TensorInfo & now) {
    if (now.kind == TensorKind::External) {
        return true; // has memory already: left alone
    }
    const ggml_tensor * t = now.tensor;
    if (now.kind != planned.kind || now.io_flags != planned.flags) {
        return false;
    }
    if (now.kind == TensorKind::View) {
        return now.root == planned.root && t->view_offs == planned.view_offs &&
               (now.op == GGML_OP_NONE) == planned.view_none;
    }
    if (now.size > planned.size_max) {
        return false;
    }
    if (planned.inplace_slot >= 0) {
        const ggml_tensor * src = t->src[planned.inplace_slot];
        return src != nullptr && same_layout(t, src);
    }
    return true;
}

bool place_owned(ggml_gallocr & galloc, ggml_tensor * t, const TensorPlan & planned) {
    const Group &         group  = galloc.groups[galloc.buffer_group[planned.buffer_id]];
    ggml_backend_buffer_t buffer = group.buffer.chunk(static_cast<size_t>(planned.address.chunk));
    if (buffer == nullptr) {
        log_error("[%s] no buffer for chunk %d of %s\n", kAllocGraph, planned.address.chunk,
                  ggml_backend_buft_name(group.buft));
        return false;
    }
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(buffer));
    if (base == nullptr && planned.address.offset != 0) {
        log_error("[%s] buffer of tensor '%s' has no base address\n", kAllocGraph, t->name);
        return false;
    }
    void *           addr   = base != nullptr ? base + planned.address.offset : nullptr;
    enum ggml_status status = ggml_backend_tensor_alloc(buffer, t, addr);
    if (status != GGML_STATUS_SUCCESS) {
        log_error("[%s] placing tensor '%s' failed (status %d)\n", kAllocGraph, t->name, static_cast<int>(status));
        return false;
    }
    return true;
}

bool place_view(ggml_tensor * t) {
    if (t->view_src->buffer == nullptr) {
        return true; // its source lives outside ggml-backend buffers: nothing to initialise
    }
    enum ggml_status status = ggml_backend_view_init(t);
    if (status != GGML_STATUS_SUCCESS) {
        log_error("[%s] initialising view '%s' failed (status %d)\n", kAllocGraph, t->name, static_cast<int>(status));
        return false;
    }
    return true;
}

} // namespace

bool plan_matches(ggml_gallocr & galloc, ggml_cgraph * graph) {
    GraphPlan & plan = galloc.plan;
    if (!plan.valid || plan.n_nodes != graph->n_nodes || plan.n_leafs != graph->n_leafs) {
        return false;
    }
    ScanConfig config;
    config.bufts           = galloc.bufts.data();
    config.buffer_group    = galloc.buffer_group.data();
    config.group_align     = galloc.group_align.data();
    config.n_buffers       = static_cast<int>(galloc.bufts.size());
    config.node_buffer_ids = plan.node_buffer_ids.data();
    config.leaf_buffer_ids = plan.leaf_buffer_ids.data();
    GraphScan & scan       = galloc.scan;
    if (!scan.build_table(graph, config, kAllocGraph) || scan.tensors.size() != plan.tensors.size()) {
        return false;
    }
    if (scan.numbering() != plan.numbering) { // numbered afresh: the sources must be the planned ones
        const std::vector<int32_t> * planned = scan.node_srcs_of(plan.numbering);
        if (planned == nullptr || *planned != scan.node_srcs) {
            return false;
        }
        plan.numbering = scan.numbering();
        scan.pin(plan.numbering);
    }
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        if (!entry_matches(plan.tensors[i], scan.tensors[i])) {
            log_debug("[%s] tensor '%s' differs from the plan\n", kAllocGraph, scan.tensors[i].tensor->name);
            return false;
        }
    }
    return true;
}

bool place_tensors(ggml_gallocr & galloc) {
    for (Group & group : galloc.groups) {
        group.buffer.reset();
    }
    const GraphScan & scan = galloc.scan;
    for (size_t i = 0; i < scan.tensors.size(); ++i) {
        const TensorInfo & info = scan.tensors[i];
        bool               ok   = true;
        if (info.kind == TensorKind::Owned) {
            ok = place_owned(galloc, info.tensor, galloc.plan.tensors[i]);
        } else if (info.kind == TensorKind::View && info.tensor->buffer == nullptr) {
            ok = place_view(info.tensor);
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

} // namespace switchyard::alloc

using namespace switchyard;
using namespace switchyard::alloc;

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (galloc == nullptr || graph == nullptr) {
        log_error("[%s] NULL allocator or graph\n", kAllocGraph);
        return false;
    }
    return guard(kAllocGraph, false, [&] {
        bool grown = false;
        if (plan_matches(*galloc, graph)) {
            // the buffers may still be missing (after ggml_gallocr_reserve_n_size) or smaller than the plan
            if (!reserve_buffers(*galloc, kAllocGraph, &grown)) {
                return false;
            }
            return place_tensors(*galloc);
        }
        if (galloc->bufts.size() > 1) {
            log_debug("[%s] the graph differs from the reserved one and there are several buffers: "
                      "call ggml_gallocr_reserve_n first\n", kAllocGraph);
            return false;
        }
        const bool had_buffer = !galloc->groups[0].buffer.empty();
        if (!plan_graph(*galloc, graph, nullptr, nullptr, kAllocGraph) ||
            !reserve_buffers(*galloc, kAllocGraph, &grown)) {
            return false;
        }
        if (grown && had_buffer) {
            log_debug("[%s] the graph needs more memory than reserved: buffer reallocated to %zu bytes\n", kAllocGraph,
                     galloc->groups[0].buffer.total_size());
        } else {
            log_debug("[%s] the graph differs from the reserved one: planned again\n", kAllocGraph);
        }
        return place_tensors(*galloc);
    });
}
