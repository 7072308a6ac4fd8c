// The meta backend's part of the scheduler plan: per computed tensor its split state and what the backend does
// around it (all-reduce after it, gathers of its sources, replicated fallback), plus the device memory of the
// compute buffers involved ("virtual" = the meta buffer size the allocator planned, "device" = what each device
// holds after compaction, known once the graph has been allocated).
#include "backend/meta/plan_json.h"

#include "backend/meta/backend.h"
#include "backend/meta/rules.h"

#include "base/json.h"
#include "core/graph.h"
#include "core/op_traits.h"

#include <unordered_set>

namespace switchyard::meta {

namespace {

struct Counts {
    int allreduce = 0, gather = 0, replicated = 0, failed = 0;
};

std::string node_json(Resolver & resolver, const ggml_tensor * node, Counts & counts) {
    const NodePlan plan   = plan_node(resolver, node);
    const bool     reduce = plan.state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && reduced_in_place(node);
    std::string    gathers;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = node->src[j];
        if (src != nullptr && src != node && plan.src[j].how != Adapt::AsIs &&
            resolver.effective(src).axis != GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
            gathers += (gathers.empty() ? "" : ", ") + json_string(src->name);
            ++counts.gather;
        }
    }
    counts.allreduce += reduce ? 1 : 0;
    counts.replicated += plan.replicated ? 1 : 0;
    counts.failed += plan.failed ? 1 : 0;
    std::string j = "{\"name\": " + json_string(node->name) + ", \"op\": " + json_string(ggml_op_desc(node)) +
                    ", \"split\": " + state_json(plan.state, resolver.n()) + ", \"allreduce\": " + (reduce ? "true" : "false") +
                    ", \"gathers\": [" + gathers + "]";
    if (plan.replicated || plan.failed) {
        j += std::string(", \"fallback\": ") + (plan.failed ? "\"failed\"" : "\"replicated\"") +
             ", \"reason\": " + json_string(plan.reason.c_str());
    }
    return j + "}";
}

std::string memory_json(const MetaDevice & dev, const ggml_cgraph * graph) {
    std::unordered_set<const MetaBuffer *> seen;
    size_t                                 virtual_bytes = 0;
    std::vector<size_t>                    device_bytes(static_cast<size_t>(dev.n()), 0);
    for (int i = 0; i < graph->n_nodes; ++i) {
        const MetaBuffer * buf = meta_buffer_of(graph->nodes[i]);
        if (buf == nullptr || buf->placement != Placement::Compact || !seen.insert(buf).second) {
            continue;
        }
        virtual_bytes += buf->handle->size;
        for (int d = 0; d < dev.n(); ++d) {
            device_bytes[static_cast<size_t>(d)] += part_size(*buf, d);
        }
    }
    std::string j = "\"compute_buffer_bytes\": {\"virtual\": " + std::to_string(virtual_bytes) + ", \"devices\": [";
    for (int d = 0; d < dev.n(); ++d) {
        j += (d ? ", " : "") + std::to_string(device_bytes[static_cast<size_t>(d)]);
    }
    return j + "]}";
}

} // namespace

std::string plan_json(ggml_backend_t meta_backend_handle, const ggml_cgraph * graph) {
    MetaBackend * mb = meta_backend(meta_backend_handle);
    if (mb == nullptr || graph == nullptr) {
        return "null";
    }
    Resolver    resolver(*mb->dev);
    Counts      counts;
    std::string j = "{\"device\": " + json_string(mb->dev->name.c_str()) + ", \"tensors\": [";
    bool        first = true;
    for (int i = 0; i < graph->n_nodes; ++i) {
        const ggml_tensor * node = graph->nodes[i];
        if (op_is_view(node->op) || node->op == GGML_OP_NONE) {
            continue;
        }
        j += (first ? "" : ", ") + node_json(resolver, node, counts);
        first = false;
    }
    j += "], \"n_allreduce\": " + std::to_string(counts.allreduce) + ", \"n_gather\": " + std::to_string(counts.gather) +
         ", \"n_replicated\": " + std::to_string(counts.replicated) + ", \"n_failed\": " + std::to_string(counts.failed) +
         ", " + memory_json(*mb->dev, graph);
    return j + "}";
}

} // namespace switchyard::meta
