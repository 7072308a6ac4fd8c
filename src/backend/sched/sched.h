// The backend scheduler: runs one graph across several backends.
//
// split_graph assigns every node to a backend in named passes (assign.cpp), cuts the node list into splits of
// consecutive nodes on one backend, creates copies of the inputs each split needs from other backends and
// builds the graph the allocator plans (splits.cpp); alloc_graph allocates it, compute runs the splits in order
// with their input copies (execute.cpp). With parallel=true every split input exists in several copies so the
// host can prepare micro-batch m+1 while a device still works on micro-batch m (pipeline parallelism).
//
// Unlike upstream, nothing here aborts on user-visible conditions: an op no backend can run, or a tensor
// pre-allocated in a buffer no backend can use, is recorded as an error; alloc_graph then returns false and
// graph_compute GGML_STATUS_FAILED, with a log naming the op, the tensor and the backends tried.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include "alloc/ptr_map.h"
#include "base/owners.h"
#include "core/graph.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace switchyard::sched {

inline constexpr int kMaxBackends = 16;
inline constexpr int kMaxCopies   = 4;

// The backend each tensor of the current graph runs on / lives on (-1: not assigned yet). Open addressing over
// pointers with the slots kept between graphs, so a graph rebuilt for every token costs no allocation here.
class BackendIds {
public:
    // The id of t, inserted as -1 if t has none yet.
    int & operator[](const ggml_tensor * t) {
        const auto [index, inserted] = index_.insert(t, static_cast<int32_t>(ids_.size()));
        if (inserted) {
            ids_.push_back(-1);
        }
        return ids_[static_cast<size_t>(index)];
    }
    // The id of t, or -1 if it has none.
    int find(const ggml_tensor * t) const {
        const int32_t index = index_.find(t);
        return index < 0 ? -1 : ids_[static_cast<size_t>(index)];
    }
    // Forgets every tensor, keeping the memory for as many next time; never allocates (it runs in
    // ggml_backend_sched_reset, which cannot fail).
    void clear() {
        index_.clear();
        ids_.clear();
    }

private:
    alloc::PtrIndexMap index_;
    std::vector<int>   ids_;
};

// The copies of one split input on each backend, one per pipeline slot.
using CopySet = std::array<std::array<ggml_tensor *, kMaxCopies>, kMaxBackends>;

struct Split {
    int                        backend_id = -1;
    int                        i_start    = 0;
    int                        i_end      = 0;
    std::vector<ggml_tensor *> inputs;
    ggml_cgraph                graph{}; // view of the user's graph, nodes [i_start, i_end)
};

// Why a node did not run on the backend it would have preferred (for the plan export).
struct Fallback {
    const ggml_tensor * node;
    int                 preferred; // backend id the weights / inputs pointed to
    int                 chosen;
    std::string         reason;
};

// A source pointer of a user's node that splitting redirected to a copy, so a failed allocation can undo it.
struct Rewire {
    ggml_tensor * node;
    int           src_index;
    ggml_tensor * original;
    ggml_tensor * copy; // what node->src[src_index] was set to
};

struct Trace; // execute.cpp / trace.cpp

// Owner of the trace (trace.cpp); the scheduler's other parts use the owners of base/owners.h.
struct TraceDeleter {
    void operator()(Trace * trace) const;
};
using TracePtr = std::unique_ptr<Trace, TraceDeleter>;

} // namespace switchyard::sched

struct ggml_backend_sched {
    bool is_reset = true;
    bool is_alloc = false;

    int                        n_backends = 0;
    ggml_backend_t             backends[switchyard::sched::kMaxBackends]{};
    ggml_backend_buffer_type_t bufts[switchyard::sched::kMaxBackends]{};
    switchyard::GallocrPtr galloc;

    switchyard::sched::BackendIds backend_ids;
    std::unordered_map<const ggml_tensor *, switchyard::sched::CopySet> copies; // split inputs only

    // backend ids of the allocation graph's nodes/leafs, and those of the previous graph (to detect changes)
    std::vector<int> node_backend_ids, leaf_backend_ids;
    std::vector<int> prev_node_backend_ids, prev_leaf_backend_ids;

    std::vector<switchyard::sched::Split>    splits;
    std::vector<ggml_tensor *>               graph_inputs; // user inputs replicated per copy (parallel only)
    std::vector<switchyard::sched::Fallback> fallbacks;
    std::vector<std::string>                 errors; // non-empty: the current graph cannot run
    std::vector<switchyard::sched::Rewire>   rewired; // node->src redirections of the current split

    ggml_cgraph * graph = nullptr; // the allocation graph (in ctx)
    switchyard::ContextPtr ctx; // copies, dependency views and the allocation graph
    std::unique_ptr<uint8_t[]> ctx_mem;      // ctx's memory, kept between graphs (grown when a graph needs more)
    size_t                     ctx_size = 0; // bytes of ctx_mem
    size_t         graph_size = 0;

    int  n_copies  = 1;
    int  cur_copy  = 0;
    int  next_copy = 0;
    bool op_offload = false;

    switchyard::EventPtr events[switchyard::sched::kMaxBackends][switchyard::sched::kMaxCopies];

    ggml_backend_sched_eval_callback callback_eval           = nullptr;
    void *                           callback_eval_user_data = nullptr;

    int         debug = 0;
    std::string plan_path;  // GGML_SCHED_PLAN: write the plan as JSON after each split
    std::string trace_path; // GGML_SCHED_TRACE: write a Chrome/Perfetto trace of each compute
    switchyard::sched::TracePtr trace;
};

namespace switchyard::sched {

// assign.cpp
int  backend_index(const ggml_backend_sched * sched, ggml_backend_t backend); // -1 if not one of sched's
inline int & tensor_backend_id(ggml_backend_sched * sched, const ggml_tensor * t) { return sched->backend_ids[t]; }
bool is_view_op(ggml_op op);
bool backend_supports_op(const ggml_backend_sched * sched, int backend_id, const ggml_tensor * node);
// buffer type a tensor lives in (its buffer's, else the one of the backend it is assigned to); NULL if unknown
ggml_backend_buffer_type_t tensor_buft(ggml_backend_sched * sched, const ggml_tensor * t);
void assign_backends(ggml_backend_sched * sched, ggml_cgraph * graph);

// splits.cpp
bool build_splits(ggml_backend_sched * sched, ggml_cgraph * graph);
// Gives the user's nodes back their original sources (after a split that will not be computed), so the graph
// can be split again once the scheduler's context, which holds the copies, is gone.
void restore_sources(ggml_backend_sched * sched);

// execute.cpp
ggml_status compute_splits(ggml_backend_sched * sched);

// plan.cpp
std::string plan_json(const ggml_backend_sched * sched);
void        debug_print_assignments(ggml_backend_sched * sched, ggml_cgraph * graph);

// trace.cpp
void trace_enable(ggml_backend_sched * sched, const char * path); // NULL/empty disables
void trace_begin(ggml_backend_sched * sched);
void trace_slice(ggml_backend_sched * sched, int backend_id, const char * name, const char * category,
                 int64_t t_start_us, int64_t t_end_us, size_t bytes);
void trace_end(ggml_backend_sched * sched);
void trace_free(ggml_backend_sched * sched);

} // namespace switchyard::sched
