// The meta backend: one backend (stream) per simple device, and how a graph runs on them.
//
// graph_compute turns the meta graph into a Program (program.cpp): Compute steps with one list of slice nodes
// per device, Gather steps that make a tensor whole on every device (for sources an op needs whole), and
// AllReduce steps after every PARTIAL result. run_program (executor.cpp) runs the Compute steps of all devices
// in parallel (one worker thread per device beyond the first) and the other steps in between; all-reduces go
// through the backends' comm procs when their reg provides them, else through copies and additions
// (allreduce.cpp).
#pragma once

#include "backend/meta/meta.h"
#include "backend/meta/rules.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

namespace switchyard::meta {

// Runs fn(d) for every device d at once (device 0 on the calling thread), returning when all are done.
class Workers {
public:
    explicit Workers(int n);
    ~Workers();
    Workers(const Workers &)             = delete;
    Workers & operator=(const Workers &) = delete;

    void run(const std::function<void(int)> & fn);

private:
    void loop(int d);

    std::mutex                      mutex_;
    std::condition_variable         start_cv_, done_cv_;
    const std::function<void(int)> * job_ = nullptr;
    uint64_t                        generation_ = 0;
    int                             pending_    = 0;
    bool                            stop_       = false;
    std::vector<std::thread>        threads_;
};

struct Step {
    enum class Kind { Compute, Gather, AllReduce } kind = Kind::Compute;
    std::vector<std::vector<ggml_tensor *>> nodes;      // Compute: per device, in order
    const ggml_tensor *                     source = nullptr; // Gather: the root made whole (its meta tensor)
    std::array<ggml_tensor *, kMaxDevices>  tensors{};  // Gather: whole copies; AllReduce: the partial sums
    std::array<bool, kMaxDevices>           zero{};     // AllReduce: devices that computed nothing (sum 0)
};

struct Program {
    std::vector<Step>                        steps;
    std::vector<std::vector<ggml_tensor *>>  temps; // per device: tensors that need scratch memory
    std::vector<ggml_tensor *>               views; // views made for this run (their data follows their root)
    TensorPool                               pool;  // views, temporaries, copies of this run
    int                                      n_allreduce  = 0;
    int                                      n_gather     = 0;
    int                                      n_replicated = 0;
    int                                      n_redirected = 0; // device results computed into a temporary
};

struct Comm {
    void *                               ctx       = nullptr;
    ggml_backend_comm_allreduce_tensor_t allreduce = nullptr;
    ggml_backend_comm_free_t             free      = nullptr;
};

struct MetaBackend {
    MetaDevice *                       dev = nullptr;
    std::vector<ggml_backend_t>        simple;
    Comm                               comm;
    std::unique_ptr<Workers>           workers;
    std::vector<ggml_backend_buffer_t> scratch;        // per device: temporaries of a run (grows)
    ggml_backend_buffer_t              reduce_scratch = nullptr; // device 0: incoming partial sums (fallback)
    std::unique_ptr<Program>           program;        // the last run's, alive while devices may use it
    ggml_context *                     graph_ctx = nullptr;
    std::set<int>                      logged_ops; // ops whose replicated fallback was logged
    std::mutex                         log_mutex;

    int n() const { return static_cast<int>(simple.size()); }
};

MetaBackend * meta_backend(ggml_backend_t backend); // NULL if not a meta backend

// program.cpp: the program for graph; FAILED (logged) when a node cannot run.
ggml_status build_program(MetaBackend & mb, ggml_cgraph * graph, Program & prog);
// executor.cpp
ggml_status run_program(MetaBackend & mb, Program & prog);
void        synchronize_all(MetaBackend & mb);
// allreduce.cpp: sums tensors[0..n-1] (one per device, same layout) in place on every device.
Comm        comm_init(MetaBackend & mb);
ggml_status allreduce(MetaBackend & mb, const std::array<ggml_tensor *, kMaxDevices> & tensors);

} // namespace switchyard::meta
