// Observability: the plan as JSON (GGML_SCHED_PLAN, ggml_backend_sched_plan_json) and the assignment printout
// (GGML_SCHED_DEBUG).
#include "backend/sched/plan_hook.h"
#include "backend/sched/sched.h"

#include "base/json.h"
#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <string>

namespace switchyard::sched {

namespace {

std::atomic<BackendPlanJsonFn> g_backend_plan_json{nullptr};

std::string backend_name(const ggml_backend_sched * sched, int id) {
    return id >= 0 && id < sched->n_backends ? ggml_backend_name(sched->backends[id]) : "none";
}

void append_backends(const ggml_backend_sched * sched, std::string & j) {
    j += "  \"backends\": [\n";
    for (int i = 0; i < sched->n_backends; ++i) {
        const size_t size = sched->galloc ? ggml_gallocr_get_buffer_size(sched->galloc.get(), i) : 0;
        j += "    {\"id\": " + std::to_string(i) + ", \"name\": " + json_string(ggml_backend_name(sched->backends[i])) +
             ", \"buffer_type\": " + json_string(ggml_backend_buft_name(sched->bufts[i])) +
             ", \"compute_buffer_bytes\": " + std::to_string(size) + "}";
        j += i + 1 < sched->n_backends ? ",\n" : "\n";
    }
    j += "  ],\n";
}

void append_splits(const ggml_backend_sched * sched, std::string & j) {
    j += "  \"splits\": [\n";
    for (size_t s = 0; s < sched->splits.size(); ++s) {
        const Split & split = sched->splits[s];
        j += "    {\"backend\": " + json_string(backend_name(sched, split.backend_id).c_str()) +
             ", \"node_start\": " + std::to_string(split.i_start) + ", \"node_end\": " + std::to_string(split.i_end) +
             ", \"inputs\": [";
        for (size_t i = 0; i < split.inputs.size(); ++i) {
            const ggml_tensor * in = split.inputs[i];
            j += std::string(i ? ", " : "") + "{\"name\": " + json_string(in->name) +
                 ", \"bytes\": " + std::to_string(ggml_nbytes(in)) + "}";
        }
        j += "]";
        // a split on a meta backend also shows how the meta device runs its nodes ("null" for other backends)
        const BackendPlanJsonFn describe  = g_backend_plan_json.load(std::memory_order_acquire);
        const std::string       meta_part = describe ? describe(sched->backends[split.backend_id], &split.graph) : "null";
        if (meta_part != "null") {
            j += ", \"meta\": " + meta_part;
        }
        j += "}";
        j += s + 1 < sched->splits.size() ? ",\n" : "\n";
    }
    j += "  ],\n";
}

void append_fallbacks(const ggml_backend_sched * sched, std::string & j) {
    j += "  \"fallbacks\": [\n";
    for (size_t i = 0; i < sched->fallbacks.size(); ++i) {
        const Fallback & f = sched->fallbacks[i];
        j += "    {\"tensor\": " + json_string(f.node->name) + ", \"op\": " + json_string(ggml_op_desc(f.node)) +
             ", \"preferred\": " + json_string(backend_name(sched, f.preferred).c_str()) +
             ", \"chosen\": " + json_string(backend_name(sched, f.chosen).c_str()) +
             ", \"reason\": " + json_string(f.reason.c_str()) + "}";
        j += i + 1 < sched->fallbacks.size() ? ",\n" : "\n";
    }
    j += "  ],\n";
}

} // namespace

void set_backend_plan_json(BackendPlanJsonFn fn) { g_backend_plan_json.store(fn, std::memory_order_release); }

std::string plan_json(const ggml_backend_sched * sched) {
    std::string j = "{\n";
    append_backends(sched, j);
    append_splits(sched, j);
    append_fallbacks(sched, j);
    j += "  \"n_copies\": " + std::to_string(sched->n_copies) + ",\n  \"errors\": [";
    for (size_t i = 0; i < sched->errors.size(); ++i) {
        j += std::string(i ? ", " : "") + json_string(sched->errors[i].c_str());
    }
    j += "]\n}\n";
    return j;
}

void debug_print_assignments(ggml_backend_sched * sched, ggml_cgraph * graph) {
    for (size_t s = 0; s < sched->splits.size(); ++s) {
        const Split & split = sched->splits[s];
        log_info("## SPLIT #%zu: %s # %zu inputs\n", s, backend_name(sched, split.backend_id).c_str(),
                 split.inputs.size());
        for (const ggml_tensor * in : split.inputs) {
            log_info("   input %s (%zu bytes)\n", in->name, ggml_nbytes(in));
        }
        if (sched->debug < 2) {
            continue;
        }
        for (int i = split.i_start; i < split.i_end; ++i) {
            const ggml_tensor * node = graph->nodes[i];
            log_info("   node #%3d (%10.10s): %-24s [%s]\n", i, ggml_op_desc(node), node->name,
                     backend_name(sched, tensor_backend_id(sched, node)).c_str());
        }
    }
}

} // namespace switchyard::sched
