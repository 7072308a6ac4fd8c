// The ggml_backend_sched_* C API over the scheduler passes (assign.cpp, splits.cpp, execute.cpp).
#include "backend/sched/sched.h"

#include "base/guard.h"
#include "base/log.h"
#include "core/graph.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

using namespace switchyard;
using namespace switchyard::sched;

namespace {

bool valid_backend_set(ggml_backend_t * backends, int n_backends) {
    if (n_backends < 1 || n_backends > kMaxBackends) {
        log_error("[ggml_backend_sched_new] n_backends = %d, must be in 1..%d\n", n_backends, kMaxBackends);
        return false;
    }
    for (int i = 0; i < n_backends; ++i) {
        if (!backends[i]) {
            log_error("[ggml_backend_sched_new] backend %d is NULL\n", i);
            return false;
        }
    }
    ggml_backend_dev_t last = ggml_backend_get_device(backends[n_backends - 1]);
    if (!last || ggml_backend_dev_type(last) != GGML_BACKEND_DEVICE_TYPE_CPU) {
        log_error("[ggml_backend_sched_new] the last backend must be a CPU backend (got %s)\n",
                  ggml_backend_name(backends[n_backends - 1]));
        return false;
    }
    return true;
}

// Observability only: a plan that cannot be written (no file, no memory for the JSON) is logged, never a failure
// of the call that asked for it.
void write_plan_if_requested(ggml_backend_sched * sched) noexcept {
    if (sched->plan_path.empty()) {
        return;
    }
    guard_void("ggml_backend_sched (GGML_SCHED_PLAN)", [&] {
        std::ofstream out(sched->plan_path);
        if (!out) {
            log_error("[ggml_backend_sched] cannot write the plan to '%s'\n", sched->plan_path.c_str());
            return;
        }
        out << plan_json(sched);
    });
}

// false (logged) when the caller passed a NULL scheduler or graph; every C function checks its handles first.
bool handles_ok(const ggml_backend_sched * sched, const char * caller) {
    if (sched == nullptr) {
        log_error("[%s] scheduler is NULL\n", caller);
        return false;
    }
    return true;
}

bool handles_ok(const ggml_backend_sched * sched, const ggml_cgraph * graph, const char * caller) {
    if (!handles_ok(sched, caller)) {
        return false;
    }
    if (graph == nullptr) {
        log_error("[%s] graph is NULL\n", caller);
        return false;
    }
    return true;
}

// After an exception part-way through splitting or allocating: the user's graph gets its sources back and the
// scheduler starts again from a reset state.
void recover(ggml_backend_sched * sched) {
    restore_sources(sched);
    sched->is_alloc = false;
    sched->is_reset = true;
    sched->backend_ids.clear();
}

std::unique_ptr<ggml_backend_sched> new_sched(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts,
                                              int n_backends, size_t graph_size, bool parallel, bool op_offload) {
    constexpr const char * kCaller = "ggml_backend_sched_new";
    auto                   sched   = std::make_unique<ggml_backend_sched>();
    sched->n_backends              = n_backends;
    sched->n_copies                = parallel ? kMaxCopies : 1;
    sched->op_offload              = op_offload;
    sched->graph_size              = graph_size;
    const char * debug             = std::getenv("GGML_SCHED_DEBUG");
    sched->debug                   = debug ? std::atoi(debug) : 0;
    if (const char * plan = std::getenv("GGML_SCHED_PLAN")) {
        sched->plan_path = plan;
    }
    trace_enable(sched.get(), std::getenv("GGML_SCHED_TRACE"));
    for (int i = 0; i < n_backends; ++i) {
        sched->backends[i] = backends[i];
        sched->bufts[i]    = bufts && bufts[i] ? bufts[i] : ggml_backend_get_default_buffer_type(backends[i]);
        if (!ggml_backend_supports_buft(backends[i], sched->bufts[i])) {
            log_error("[%s] backend %s cannot use buffer type %s\n", kCaller, ggml_backend_name(backends[i]),
                      ggml_backend_buft_name(sched->bufts[i]));
            return nullptr;
        }
        if (sched->n_copies > 1) {
            for (int c = 0; c < sched->n_copies; ++c) {
                sched->events[i][c].reset(ggml_backend_event_new(ggml_backend_get_device(backends[i])));
            }
        }
    }
    sched->galloc.reset(ggml_gallocr_new_n(sched->bufts, n_backends));
    if (!sched->galloc) {
        log_error("[%s] failed to create the graph allocator\n", kCaller);
        return nullptr;
    }
    return sched;
}

bool has_errors(const ggml_backend_sched * sched, const char * caller) {
    if (sched->errors.empty()) {
        return false;
    }
    log_error("[%s] the graph cannot run: %s\n", caller, sched->errors.front().c_str());
    return true;
}

void split_graph(ggml_backend_sched * sched, ggml_cgraph * graph) {
    sched->is_reset = false;
    if (!build_splits(sched, graph)) {
        sched->errors.push_back("failed to split the graph");
    }
    if (sched->debug > 0) {
        debug_print_assignments(sched, graph);
    }
    write_plan_if_requested(sched); // the assignment as split (and its errors, if it cannot run)
}

bool sched_reserve_current(ggml_backend_sched * sched) {
    if (!ggml_gallocr_reserve_n(sched->galloc.get(), sched->graph, sched->node_backend_ids.data(),
                                sched->leaf_backend_ids.data())) {
        log_error("[ggml_backend_sched_reserve] failed to allocate the compute buffers\n");
        return false;
    }
    return true;
}

bool alloc_graph(ggml_backend_sched * sched, ggml_cgraph * graph) {
    if (sched->is_alloc) {
        log_error("[ggml_backend_sched_alloc_graph] a graph is already allocated: call ggml_backend_sched_reset first\n");
        return false;
    }
    // the pipeline slot must be chosen before splitting: split inputs are rewired to this slot's copies
    sched->cur_copy  = sched->next_copy;
    sched->next_copy = (sched->next_copy + 1) % sched->n_copies;
    split_graph(sched, graph);
    if (has_errors(sched, "ggml_backend_sched_alloc_graph")) {
        return false;
    }
    const bool changed = sched->prev_node_backend_ids != sched->node_backend_ids ||
                         sched->prev_leaf_backend_ids != sched->leaf_backend_ids;
    // copied before anything is placed, so that nothing after the placement can throw
    std::vector<int> placed_node_ids = sched->node_backend_ids;
    std::vector<int> placed_leaf_ids = sched->leaf_backend_ids;
    if (changed || !ggml_gallocr_alloc_graph(sched->galloc.get(), sched->graph)) {
        // re-plan: wait for everything that may still use the old buffers
        for (int i = 0; i < sched->n_backends; ++i) {
            ggml_backend_synchronize(sched->backends[i]);
        }
        if (!sched_reserve_current(sched) || !ggml_gallocr_alloc_graph(sched->galloc.get(), sched->graph)) {
            log_error("[ggml_backend_sched_alloc_graph] failed to allocate the graph\n");
            restore_sources(sched);
            return false;
        }
    }
    sched->prev_node_backend_ids.swap(placed_node_ids);
    sched->prev_leaf_backend_ids.swap(placed_leaf_ids);
    sched->is_alloc = true;
    write_plan_if_requested(sched); // again, now with the compute buffer sizes
    return true;
}

} // namespace


extern "C" {

ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends,
                                            size_t graph_size, bool parallel, bool op_offload) {
    constexpr const char * kCaller = "ggml_backend_sched_new";
    if (backends == nullptr) {
        log_error("[%s] backends is NULL\n", kCaller);
        return nullptr;
    }
    if (!valid_backend_set(backends, n_backends)) {
        return nullptr;
    }
    return guard(kCaller, nullptr, [&] {
        return new_sched(backends, bufts, n_backends, graph_size, parallel, op_offload).release();
    });
}

void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    delete sched; // the owners in ggml_backend_sched release the events, the allocator, the context and the trace
}

void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    if (!handles_ok(sched, "ggml_backend_sched_reset")) {
        return;
    }
    if (!sched->is_reset) {
        sched->backend_ids.clear();
        sched->is_reset = true;
    }
    sched->is_alloc = false;
}

void ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    constexpr const char * kCaller = "ggml_backend_sched_split_graph";
    if (!handles_ok(sched, graph, kCaller)) {
        return;
    }
    if (!guard_void(kCaller, [&] { split_graph(sched, graph); })) {
        recover(sched); // the next alloc_graph splits again
    }
}

bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph) {
    constexpr const char * kCaller = "ggml_backend_sched_reserve";
    if (!handles_ok(sched, measure_graph, kCaller)) {
        return false;
    }
    const bool ok = guard(kCaller, false, [&] {
        ggml_backend_sched_synchronize(sched);
        split_graph(sched, measure_graph);
        if (has_errors(sched, kCaller)) {
            return false;
        }
        const bool reserved = sched_reserve_current(sched);
        if (reserved) {
            write_plan_if_requested(sched); // again, now with the compute buffer sizes
        }
        return reserved;
    });
    restore_sources(sched); // the measure graph stays usable, e.g. for alloc_graph next
    ggml_backend_sched_reset(sched);
    return ok;
}

void ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes) {
    constexpr const char * kCaller = "ggml_backend_sched_reserve_size";
    if (!handles_ok(sched, measure_graph, kCaller)) {
        return;
    }
    if (sizes == nullptr) {
        log_error("[%s] sizes is NULL\n", kCaller);
        return;
    }
    std::fill(sizes, sizes + sched->n_backends, size_t{0});
    ggml_backend_sched_reset(sched);
    guard_void(kCaller, [&] {
        ggml_backend_sched_synchronize(sched);
        split_graph(sched, measure_graph);
        if (!has_errors(sched, kCaller)) {
            ggml_gallocr_reserve_n_size(sched->galloc.get(), sched->graph, sched->node_backend_ids.data(),
                                        sched->leaf_backend_ids.data(), sizes);
        }
    });
    restore_sources(sched);
    ggml_backend_sched_reset(sched);
}

bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    constexpr const char * kCaller = "ggml_backend_sched_alloc_graph";
    if (!handles_ok(sched, graph, kCaller)) {
        return false;
    }
    bool threw = true;
    const bool ok = guard(kCaller, false, [&] {
        const bool allocated = alloc_graph(sched, graph);
        threw                = false;
        return allocated;
    });
    if (threw) {
        recover(sched);
    }
    return ok;
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    constexpr const char * kCaller = "ggml_backend_sched_graph_compute";
    if (!handles_ok(sched, graph, kCaller)) {
        return GGML_STATUS_FAILED;
    }
    if (!sched->is_reset && !sched->is_alloc) {
        ggml_backend_sched_reset(sched);
    }
    if (!sched->is_alloc && !ggml_backend_sched_alloc_graph(sched, graph)) {
        return GGML_STATUS_FAILED;
    }
    if (has_errors(sched, kCaller)) {
        return GGML_STATUS_FAILED;
    }
    return guard_status(kCaller, [&] { return compute_splits(sched); });
}

enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    const ggml_status status = ggml_backend_sched_graph_compute_async(sched, graph);
    if (sched != nullptr) {
        ggml_backend_sched_synchronize(sched);
    }
    return status;
}

void ggml_backend_sched_synchronize(ggml_backend_sched_t sched) {
    if (!handles_ok(sched, "ggml_backend_sched_synchronize")) {
        return;
    }
    for (int i = 0; i < sched->n_backends; ++i) {
        ggml_backend_synchronize(sched->backends[i]);
    }
    if (!sched->is_alloc) {
        // no graph allocated: token-by-token use starts again from the first slot
        sched->next_copy = 0;
    }
}

void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback,
                                          void * user_data) {
    if (!handles_ok(sched, "ggml_backend_sched_set_eval_callback")) {
        return;
    }
    sched->callback_eval           = callback;
    sched->callback_eval_user_data = user_data;
}

int ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched) {
    return handles_ok(sched, "ggml_backend_sched_get_n_splits") ? static_cast<int>(sched->splits.size()) : 0;
}

int ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched) {
    return handles_ok(sched, "ggml_backend_sched_get_n_copies") ? sched->n_copies : 0;
}

int ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched) {
    return handles_ok(sched, "ggml_backend_sched_get_n_backends") ? sched->n_backends : 0;
}

ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i) {
    if (!handles_ok(sched, "ggml_backend_sched_get_backend")) {
        return nullptr;
    }
    if (i < 0 || i >= sched->n_backends) {
        log_error("[ggml_backend_sched_get_backend] index %d out of range (%d backends)\n", i, sched->n_backends);
        return nullptr;
    }
    return sched->backends[i];
}

ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend) {
    if (!handles_ok(sched, "ggml_backend_sched_get_buffer_type")) {
        return nullptr;
    }
    const int i = backend_index(sched, backend);
    return i >= 0 ? sched->bufts[i] : nullptr;
}

size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend) {
    if (!handles_ok(sched, "ggml_backend_sched_get_buffer_size")) {
        return 0;
    }
    const int i = backend_index(sched, backend);
    return i >= 0 ? ggml_gallocr_get_buffer_size(sched->galloc.get(), i) : 0;
}

void ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend) {
    constexpr const char * kCaller = "ggml_backend_sched_set_tensor_backend";
    if (!handles_ok(sched, kCaller)) {
        return;
    }
    if (node == nullptr) {
        log_error("[%s] tensor is NULL\n", kCaller);
        return;
    }
    const int i = backend_index(sched, backend);
    if (i < 0) {
        log_error("[%s] backend %s is not part of this scheduler\n", kCaller,
                  backend != nullptr ? ggml_backend_name(backend) : "NULL");
        return;
    }
    guard_void(kCaller, [&] {
        tensor_backend_id(sched, node) = i;
        sched->is_reset                = false;
    });
}

ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node) {
    if (!handles_ok(sched, "ggml_backend_sched_get_tensor_backend")) {
        return nullptr;
    }
    const int id = sched->backend_ids.find(node);
    return id < 0 ? nullptr : sched->backends[id];
}

size_t ggml_backend_sched_plan_json(ggml_backend_sched_t sched, char * buf, size_t size) {
    constexpr const char * kCaller = "ggml_backend_sched_plan_json";
    if (!handles_ok(sched, kCaller)) {
        return 0;
    }
    return guard(kCaller, size_t{0}, [&] {
        const std::string json = plan_json(sched);
        if (buf && size > 0) {
            const size_t n = json.size() < size - 1 ? json.size() : size - 1;
            std::memcpy(buf, json.data(), n);
            buf[n] = '\0';
        }
        return json.size();
    });
}

void ggml_backend_sched_set_trace(ggml_backend_sched_t sched, const char * path) {
    constexpr const char * kCaller = "ggml_backend_sched_set_trace";
    if (!handles_ok(sched, kCaller)) {
        return;
    }
    guard_void(kCaller, [&] { trace_enable(sched, path); });
}

} // extern "C"
