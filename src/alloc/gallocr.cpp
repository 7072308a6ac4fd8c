// Graph allocator: construction, planning and reservation (ggml_gallocr_new*, _free, _reserve*,
// _get_buffer_size). Placing a graph's tensors is in replay.cpp.
#include "alloc/gallocr.h"

#include "alloc/planner.h"
#include "base/guard.h"
#include "base/log.h"
#include "core/graph.h"

#include <algorithm>
#include <cstdint>
#include <memory>

namespace switchyard::alloc {

namespace {

ScanConfig scan_config(const ggml_gallocr & galloc, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    ScanConfig config;
    config.bufts           = galloc.bufts.data();
    config.buffer_group    = galloc.buffer_group.data();
    config.group_align     = galloc.group_align.data();
    config.n_buffers       = static_cast<int>(galloc.bufts.size());
    config.node_buffer_ids = node_buffer_ids;
    config.leaf_buffer_ids = leaf_buffer_ids;
    return config;
}

void record_ids(std::vector<int> & out, const int * ids, int n) {
    out.assign(static_cast<size_t>(n), 0);
    if (ids != nullptr) {
        std::copy(ids, ids + n, out.begin());
    }
}

// Packs each group's blocks and returns the address of every block.
std::vector<Address> pack_groups(ggml_gallocr & galloc, const char * caller) {
    const GraphScan &    scan = galloc.scan;
    std::vector<Address> addresses(scan.blocks.size());
    galloc.plan.chunk_sizes.assign(galloc.groups.size(), {});
    galloc.plan.lower_bounds.assign(galloc.groups.size(), 0);
    std::vector<std::vector<int32_t>> members(galloc.groups.size());
    for (int32_t b = 0; b < static_cast<int32_t>(scan.blocks.size()); ++b) {
        members[scan.blocks[b].group].push_back(b);
    }
    for (size_t g = 0; g < galloc.groups.size(); ++g) {
        PackResult packed = pack_blocks(scan.blocks, members[g], galloc.groups[g].max_chunk_size,
                                        scan.end_time() + 1, galloc.policy);
        for (size_t i = 0; i < members[g].size(); ++i) {
            addresses[members[g][i]] = packed.addresses[i];
        }
        galloc.plan.chunk_sizes[g]  = packed.chunk_sizes;
        galloc.plan.lower_bounds[g] = packed.lower_bound;
        log_debug("[%s] %s: %zu blocks, %zu bytes in %zu chunk(s) (lower bound %zu, %s)\n", caller,
                  ggml_backend_buft_name(galloc.groups[g].buft), members[g].size(), packed.total,
                  packed.chunk_sizes.size(), packed.lower_bound, pack_strategy_name(packed.strategy));
    }
    return addresses;
}

TensorPlan plan_entry(const TensorInfo & info, const std::vector<Address> & addresses) {
    TensorPlan entry;
    entry.kind         = info.kind;
    entry.root         = info.root;
    entry.buffer_id    = info.buffer_id;
    entry.flags        = info.io_flags;
    entry.view_offs    = info.kind == TensorKind::View ? info.tensor->view_offs : 0; // read by views only
    entry.view_none    = info.op == GGML_OP_NONE;
    entry.inplace_slot = info.inplace_slot;
    if (info.kind == TensorKind::Owned) {
        entry.address  = addresses[info.block];
        entry.size_max = info.size;
    }
    return entry;
}

} // namespace

bool plan_graph(ggml_gallocr & galloc, ggml_cgraph * graph, const int * node_buffer_ids,
                const int * leaf_buffer_ids, const char * caller) {
    galloc.plan.valid = false;
    ScanConfig config = scan_config(galloc, node_buffer_ids, leaf_buffer_ids);
    if (!galloc.scan.build_table(graph, config, caller)) {
        return false;
    }
    galloc.scan.plan_blocks(config);
    std::vector<Address> addresses = pack_groups(galloc, caller);

    GraphPlan & plan = galloc.plan;
    plan.n_nodes     = graph->n_nodes;
    plan.n_leafs     = graph->n_leafs;
    record_ids(plan.node_buffer_ids, node_buffer_ids, graph->n_nodes);
    record_ids(plan.leaf_buffer_ids, leaf_buffer_ids, graph->n_leafs);
    plan.numbering = galloc.scan.numbering();
    galloc.scan.pin(plan.numbering);
    plan.tensors.clear();
    plan.tensors.reserve(galloc.scan.tensors.size());
    for (const TensorInfo & info : galloc.scan.tensors) {
        plan.tensors.push_back(plan_entry(info, addresses));
    }
    plan.valid = true;
    return true;
}

bool reserve_buffers(ggml_gallocr & galloc, const char * caller, bool * grown) {
    *grown = false;
    for (size_t g = 0; g < galloc.groups.size(); ++g) {
        Group & group      = galloc.groups[g];
        size_t  old_size   = group.buffer.total_size();
        bool    group_grew = false;
        if (!group.buffer.ensure(group.buft, galloc.plan.chunk_sizes[g], caller, &group_grew)) {
            return false;
        }
        if (group_grew) {
            *grown = true;
            log_debug("[%s] %s compute buffer: %zu -> %zu bytes\n", caller, ggml_backend_buft_name(group.buft),
                      old_size, group.buffer.total_size());
        }
    }
    return true;
}

} // namespace switchyard::alloc

using namespace switchyard;
using namespace switchyard::alloc;

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    constexpr const char * kCaller = "ggml_gallocr_new_n";
    if (bufts == nullptr || n_bufs <= 0) {
        log_error("[%s] need at least one buffer type (got %d)\n", kCaller, n_bufs);
        return nullptr;
    }
    for (int i = 0; i < n_bufs; ++i) {
        if (bufts[i] == nullptr) {
            log_error("[%s] buffer type %d is NULL\n", kCaller, i);
            return nullptr;
        }
    }
    return guard(kCaller, nullptr, [&]() -> ggml_gallocr_t {
        auto galloc    = std::make_unique<ggml_gallocr>();
        galloc->policy = plan_policy_from_env();
        for (int i = 0; i < n_bufs; ++i) {
            galloc->bufts.push_back(bufts[i]);
            auto same = std::find_if(galloc->groups.begin(), galloc->groups.end(),
                                     [&](const Group & g) { return g.buft == bufts[i]; });
            if (same != galloc->groups.end()) {
                galloc->buffer_group.push_back(static_cast<int32_t>(same - galloc->groups.begin()));
                continue;
            }
            Group group;
            group.buft           = bufts[i];
            group.alignment      = std::max<size_t>(1, ggml_backend_buft_get_alignment(bufts[i]));
            size_t max_size      = ggml_backend_buft_get_max_size(bufts[i]);
            group.max_chunk_size = max_size == 0 ? SIZE_MAX / 2 : std::min(max_size, SIZE_MAX / 2);
            group.first_buffer   = i;
            galloc->buffer_group.push_back(static_cast<int32_t>(galloc->groups.size()));
            galloc->group_align.push_back(group.alignment);
            galloc->groups.push_back(std::move(group));
        }
        return galloc.release();
    });
}

ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    return ggml_gallocr_new_n(&buft, 1);
}

void ggml_gallocr_free(ggml_gallocr_t galloc) {
    if (galloc == nullptr) {
        return;
    }
    for (Group & group : galloc->groups) {
        group.buffer.release();
    }
    delete galloc;
}

bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                            const int * leaf_buffer_ids) {
    if (galloc == nullptr || graph == nullptr) {
        log_error("[ggml_gallocr_reserve_n] NULL allocator or graph\n");
        return false;
    }
    return guard("ggml_gallocr_reserve_n", false, [&] {
        if (!plan_graph(*galloc, graph, node_buffer_ids, leaf_buffer_ids, "ggml_gallocr_reserve_n")) {
            return false;
        }
        bool grown = false;
        return reserve_buffers(*galloc, "ggml_gallocr_reserve_n", &grown);
    });
}

bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    return ggml_gallocr_reserve_n(galloc, graph, nullptr, nullptr);
}

void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                 const int * leaf_buffer_ids, size_t * sizes) {
    if (galloc == nullptr || graph == nullptr || sizes == nullptr) {
        log_error("[ggml_gallocr_reserve_n_size] NULL allocator, graph or sizes\n");
        return;
    }
    const size_t n_buffers = galloc->bufts.size();
    std::fill(sizes, sizes + n_buffers, 0);
    guard_void("ggml_gallocr_reserve_n_size", [&] {
        if (!plan_graph(*galloc, graph, node_buffer_ids, leaf_buffer_ids, "ggml_gallocr_reserve_n_size")) {
            return;
        }
        for (size_t g = 0; g < galloc->groups.size(); ++g) {
            size_t total = 0;
            for (size_t chunk : galloc->plan.chunk_sizes[g]) {
                total += chunk;
            }
            sizes[galloc->groups[g].first_buffer] = total; // buffer ids sharing the group report 0
        }
    });
}

size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id) {
    if (galloc == nullptr || buffer_id < 0 || buffer_id >= static_cast<int>(galloc->bufts.size())) {
        log_error("[ggml_gallocr_get_buffer_size] invalid allocator or buffer id %d\n", buffer_id);
        return 0;
    }
    const Group & group = galloc->groups[galloc->buffer_group[buffer_id]];
    if (group.first_buffer != buffer_id) {
        return 0; // the buffer is shared with an earlier id: count it once
    }
    return group.buffer.total_size();
}
