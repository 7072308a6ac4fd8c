// The contract between the CPU backend's executor (graph plan, thread pool) and its kernels.
//
// For each node the executor looks up the op's KernelInfo, asks how many threads (tasks) it can use and how much
// shared scratch it needs, then calls `compute` on every participating thread with that thread's index. A kernel
// splits its work by (ith, nth) and may call barrier() to separate phases (e.g. convert src1, then multiply);
// every thread of the node must reach the same barriers. Kernels honour arbitrary strides, broadcasting and
// in-place execution (dst may alias src[0]).
//
// Kernels never allocate: they run on the thread pool's workers, where an allocation failure could not be
// reported. What they need beyond their tensors is either small and bounded (on the stack, a chunk at a time) or
// asked for through work_size, computed from the node's shapes and types and n_tasks alone, and as little as the
// kernel really uses (an F32 x F32 MUL_MAT asks for none): ggml_graph_plan's work_size is the largest of these,
// and programs size their memory by it.
//
// Shapes and types are checked before anything runs (supports); what only the data can get wrong (an index or id
// read from a tensor) the kernel checks as it reads it and reports with report_data_error: the graph then stops
// after the node and ggml_graph_compute returns GGML_STATUS_FAILED.
#pragma once

#include "ggml.h"

#include <cstddef>

namespace switchyard::cpu {

class ThreadSync;    // owned by the executor
class DataErrorSlot; // owned by the executor (cpu/data_error.h)

struct ComputeParams {
    int             ith;   // this thread's index in [0, nth)
    int             nth;   // threads working on this node
    void *          wdata; // scratch shared by the node's threads (work_size bytes), nullptr if none
    size_t          wsize;
    ThreadSync *    sync;
    DataErrorSlot * errors = nullptr; // where report_data_error records; nullptr: it only logs
    int             step   = 0;       // the node's position in the computation (tags its reports)
};

// Waits until all nth threads of the node arrive. Implemented by the executor.
void barrier(const ComputeParams & params);

// Reports that the node's input data cannot be computed, e.g. "index 9 out of range [0, 4) at (2, 0, 0) of src1
// 'ids'" (printf format; the executor adds the node's name and op). Any thread of the node may call it, any number of
// times: the first report of the computation is kept. The kernel must not read or write out of bounds for the bad
// item and may return early (after its last barrier: every thread must still reach every barrier); dst may be
// left in any state. Takes no lock; costs nothing until called.
void report_data_error(const ComputeParams & params, const char * fmt, ...) __attribute__((format(printf, 2, 3)));

using KernelFn   = void (*)(const ComputeParams & params, ggml_tensor * dst);
using TasksFn    = int (*)(const ggml_tensor * dst, int n_threads);
using WorkSizeFn = size_t (*)(const ggml_tensor * dst, int n_threads);
using SupportsFn = bool (*)(const ggml_tensor * dst);

struct KernelInfo {
    KernelFn   compute   = nullptr; // nullptr: nothing to compute (NONE, views, reshape, permute, transpose)
    TasksFn    n_tasks   = nullptr; // nullptr: all threads
    WorkSizeFn work_size = nullptr; // nullptr: no scratch
    SupportsFn supports  = nullptr; // nullptr: not supported at all; otherwise checks types and layouts
};

// The dispatch table, one entry per op (src/cpu/dispatch.cpp). A faster kernel replaces an entry there.
const KernelInfo & kernel_for(ggml_op op);

// Replaces the kernel of an op and returns the previous one (tests swap in faulty kernels to check that the
// conformance suite catches them). Not safe while a graph is being computed.
KernelInfo replace_kernel(ggml_op op, const KernelInfo & info);

// true when the CPU can execute this node (op known, types and layout accepted).
bool supports_node(const ggml_tensor * node);

} // namespace switchyard::cpu
