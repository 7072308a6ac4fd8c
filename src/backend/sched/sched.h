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
#include "core/op_traits.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace switchyard::sched {

inline constexpr int kMaxBackends = 16;
inline constexpr int kMaxCopies   = 4;

// The backend each tensor of the current graph runs on / lives on (-1: not assigned yet). Every tensor the
// scheduler meets gets an entry, numbered in order of arrival; the passes address entries by number (GraphIndex)
// instead of hashing a pointer at each step. Open addressing over pointers with the slots kept between graphs,
// so a graph rebuilt for every token costs no allocation here.
//
// clear() only marks the entries stale: the first lookup after it empties them, unless index_graph first finds
// that the new graph consists of the same tensor objects, linked the same way, and takes the numbering back
// with revive() (then nothing is hashed again).
class BackendIds {
public:
    // The entry of t, created with id -1 if t has none yet.
    int32_t entry(const ggml_tensor * t) {
        settle();
        const auto [index, inserted] = index_.insert(t, static_cast<int32_t>(ids_.size()));
        if (inserted) {
            ids_.push_back(-1);
            tensors_.push_back(t);
        }
        return index;
    }
    // The id of t, inserted as -1 if t has none yet.
    int & operator[](const ggml_tensor * t) { return ids_[static_cast<size_t>(entry(t))]; }
    // The id of an entry (from entry() or GraphIndex).
    int & at(int32_t entry) { return ids_[static_cast<size_t>(entry)]; }
    int   at(int32_t entry) const { return ids_[static_cast<size_t>(entry)]; }
    // The tensor of an entry and the number of entries; while stale, those of the graph before clear().
    const ggml_tensor * tensor(int32_t entry) const { return tensors_[static_cast<size_t>(entry)]; }
    int32_t             size() const { return static_cast<int32_t>(ids_.size()); }
    // The id of t, or -1 if it has none.
    int find(const ggml_tensor * t) {
        settle();
        const int32_t index = index_.find(t);
        return index < 0 ? -1 : ids_[static_cast<size_t>(index)];
    }
    // Forgets every tensor (lazily, see above), keeping the memory for as many next time; never allocates (it
    // runs in ggml_backend_sched_reset, which cannot fail).
    void clear() { stale_ = true; }
    bool stale() const { return stale_; }
    // While stale and holding exactly n entries: keeps them, every id back to -1 (or to `ids`, one per entry,
    // when given), and returns true.
    bool revive(int32_t n, const std::vector<int> * ids = nullptr) {
        if (!stale_ || size() != n || (ids && ids->size() != ids_.size())) {
            return false;
        }
        if (ids) {
            std::copy(ids->begin(), ids->end(), ids_.begin());
        } else {
            std::fill(ids_.begin(), ids_.end(), -1);
        }
        stale_ = false;
        return true;
    }

private:
    void settle() {
        if (stale_) {
            index_.clear();
            ids_.clear();
            tensors_.clear();
            stale_ = false;
        }
    }

    alloc::PtrIndexMap                index_;
    std::vector<int>                  ids_;
    std::vector<const ggml_tensor *>  tensors_;
    bool                              stale_ = false;
};

// What backend assignment reads of one tensor besides its links (view_src and sources, which same_links in
// graph_index.cpp compares): the op and its parameters, type, shape and strides, flags, the buffer and what
// assignment asks of it, and the fields a backend's supports_op may read. Two graphs with the same links and equal
// facts for every entry are assigned alike, since a backend's supports_op, supports_buft and offload_op answers
// depend only on the tensors asked about (the contract of ggml-backend-impl.h's device interface).
struct TensorFacts {
    int32_t                    op    = 0;
    int32_t                    type  = 0;
    int32_t                    flags = 0;
    int32_t                    usage = -1; // the buffer's usage; -1: no buffer
    int64_t                    ne[GGML_MAX_DIMS]{};
    size_t                     nb[GGML_MAX_DIMS]{};
    int32_t                    op_params[GGML_MAX_OP_PARAMS / sizeof(int32_t)]{};
    const ggml_backend_buffer * buffer    = nullptr;
    ggml_backend_buffer_type_t  buft      = nullptr;
    size_t                      view_offs = 0;
    const void *                data      = nullptr;
    const void *                extra     = nullptr;

    bool operator==(const TensorFacts &) const = default;
};

// The graph being split, as entries of the scheduler's BackendIds, resolved once per split (graph_index.cpp) so
// that the assignment and splitting passes index arrays rather than look every pointer up again.
struct GraphIndex {
    std::vector<int32_t> nodes;     // graph->nodes[i]
    std::vector<int32_t> leafs;     // graph->leafs[i]
    std::vector<int32_t> srcs;      // graph->nodes[i]->src[j] at i * GGML_MAX_SRC + j; -1: no source
    std::vector<uint8_t> view_ops;  // graph->nodes[i] is a view op (is_view_op): computes nothing, follows its source
    std::vector<int32_t> view_srcs; // per entry: the entry of its tensor's view_src; -1: not a view (-2: not in
                                    // the graph, never read)
    std::vector<int8_t>  supported; // backend_supports_op(b, graph->nodes[i]) at i * n_backends + b; -1: not
                                    // asked yet (the answer depends only on the node and its sources, which
                                    // assignment does not change, so each is asked once per split)
    int32_t n_entries = -1;         // BackendIds entries right after numbering the graph from no entries;
                                    // -1: none (not numbered, or numbered after other entries)
    // The last assignment of a graph numbered from no entries, kept while no other assignment ran since: every
    // entry's facts and backend id. A graph with its links and facts takes the ids back instead of being
    // assigned again (index_graph); sched->fallbacks are still that assignment's.
    std::vector<TensorFacts> assigned_facts;
    std::vector<int>         assigned_ids;
    bool                     assignment_kept = false;
    // A graph whose facts change at every step (a view offset moving with the token) would pay for keeping an
    // assignment it never takes back: after kMissesBeforeBackOff kept assignments in a row went unused, one is
    // kept only every kBackOffSteps-th time, to notice when the graph settles.
    static constexpr int kMissesBeforeBackOff = 4;
    static constexpr int kBackOffSteps        = 16;
    int                  kept_misses          = 0; // kept assignments in a row whose graph's facts then differed
    int                  steps_without_keep   = 0; // while backing off

    int32_t src(int node, int j) const { return srcs[static_cast<size_t>(node) * GGML_MAX_SRC + static_cast<size_t>(j)]; }
    int32_t view_src(int32_t entry) const { return view_srcs[static_cast<size_t>(entry)]; }
    // The entry whose backend says where an entry's memory lives: its view_src's, else its own.
    int32_t memory_entry(int32_t entry) const {
        const int32_t v = view_src(entry);
        return v >= 0 ? v : entry;
    }
};

// ggml_backend_supports_buft(backends[b], buft) for the buffer types met while splitting one graph, each asked once:
// splitting asks it for every source of every node, and the answer depends only on the backend and the buffer
// type. Emptied when a split begins (assign_backends), so a buffer type freed since is never looked up.
struct BuftReach {
    static constexpr int kSlots = 8; // more distinct buffer types than this are asked every time
    std::array<ggml_backend_buffer_type_t, kSlots> bufts{};
    std::array<uint32_t, kSlots>                   asked{};    // bit b: backend b was asked
    std::array<uint32_t, kSlots>                   readable{}; // bit b: its answer
    int                                            n = 0;
};
static_assert(kMaxBackends <= 32, "BuftReach keeps one bit per backend");

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
    switchyard::sched::GraphIndex index; // the graph being split (valid from assign_backends to build_splits' end)
    std::unordered_map<const ggml_tensor *, switchyard::sched::CopySet> copies; // split inputs only
    mutable switchyard::sched::BuftReach buft_reach; // memo of backend_reads_buft for the current split

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
bool backend_supports_op(const ggml_backend_sched * sched, int backend_id, const ggml_tensor * node);
// ggml_backend_supports_buft(sched->backends[backend_id], buft), asked once per split (BuftReach)
bool backend_reads_buft(const ggml_backend_sched * sched, int backend_id, ggml_backend_buffer_type_t buft);
// whether backend_id can read t (entry `entry` of sched->index) where it lives (tensor_buft); false if unknown
bool buft_readable(ggml_backend_sched * sched, const ggml_tensor * t, int32_t entry, int backend_id);
// buffer type tensor t (entry `entry` of sched->index) lives in: its buffer's, else the one of the backend it is
// assigned to; NULL if unknown
ggml_backend_buffer_type_t tensor_buft(ggml_backend_sched * sched, const ggml_tensor * t, int32_t entry);
// Numbers graph into sched->index, first thing assign_backends does (so after any earlier rewiring of the graph's
// sources has been undone). graph_index.cpp
// `visit`, if given, is called for each leaf and then each node as soon as it and its sources are numbered, while
// the tensor is still in the cache (leafs first, then nodes, each in graph order).
using IndexVisitor = void (*)(ggml_backend_sched * sched, ggml_tensor * t, int32_t entry, int node_index); // -1: a leaf
enum class Numbering {
    kFresh,         // numbered afresh
    kTakenBack,     // the previous graph's numbering taken back (same tensor objects, linked the same way)
    kAssignmentBack // that, and every entry's facts equal the kept assignment's: its ids are back, visit was not
                    // called
};
Numbering index_graph(ggml_backend_sched * sched, const ggml_cgraph * graph, IndexVisitor visit = nullptr);
// Keeps the assignment just made (GraphIndex::assigned_*) when the graph's numbering can be taken back later,
// unless backing off (GraphIndex::kept_misses).
void keep_assignment(ggml_backend_sched * sched);
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
