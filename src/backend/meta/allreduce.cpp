// All-reduce: every device holds a partial sum of a tensor; afterwards every device holds the total.
//
// When all simple devices belong to one reg that exports "ggml_backend_comm_init" and
// "ggml_backend_comm_allreduce_tensor" (and optionally "ggml_backend_comm_free"), its communicator does the work
// (e.g. NCCL for CUDA, host-memory sums for CPU backends). Otherwise, or when the communicator declines a tensor
// (returns false), the built-in path runs: every other device's part is copied to device 0 (asynchronous copies
// where the backends have them), added there with one ADD node per part, and the total copied back. The sums
// are taken in device order, so both paths give the same result for the same inputs.
#include "backend/meta/backend.h"

#include "base/log.h"

#include <cstring>

namespace switchyard::meta {

Comm comm_init(MetaBackend & mb) {
    Comm comm;
    if (mb.n() < 2) {
        return comm;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(mb.dev->devs[0]);
    for (ggml_backend_dev_t dev : mb.dev->devs) {
        if (reg == nullptr || ggml_backend_dev_backend_reg(dev) != reg) {
            return comm;
        }
    }
    auto init  = reinterpret_cast<ggml_backend_comm_init_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_init"));
    auto sum   = reinterpret_cast<ggml_backend_comm_allreduce_tensor_t>(
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_allreduce_tensor"));
    auto freer = reinterpret_cast<ggml_backend_comm_free_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_free"));
    if (init == nullptr || sum == nullptr) {
        return comm;
    }
    comm.ctx = init(mb.simple.data(), mb.simple.size());
    if (comm.ctx != nullptr) {
        comm.allreduce = sum;
        comm.free      = freer;
        log_debug("[ggml_backend_meta] %s: all-reduce through the %s backend's communicator\n", mb.dev->name.c_str(),
                  ggml_backend_reg_name(reg));
    }
    return comm;
}

namespace {

bool addable(ggml_type type) { return type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16; }

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Tensors on device 0 with t's layout receiving the other devices' parts, in a scratch buffer grown as needed.
bool incoming_slots(MetaBackend & mb, ggml_context * ctx, const ggml_tensor * t, std::vector<ggml_tensor *> & slots) {
    ggml_backend_buffer_type_t buft   = mb.dev->bufts[0];
    const size_t               stride = align_up(ggml_backend_buft_get_alloc_size(buft, t), ggml_backend_buft_get_alignment(buft));
    const size_t               total  = stride * static_cast<size_t>(mb.n() - 1);
    if (mb.reduce_scratch == nullptr || ggml_backend_buffer_get_size(mb.reduce_scratch) < total) {
        ggml_backend_buffer_free(mb.reduce_scratch);
        mb.reduce_scratch = ggml_backend_buft_alloc_buffer(buft, total);
        if (mb.reduce_scratch == nullptr) {
            return false;
        }
    }
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(mb.reduce_scratch));
    for (int j = 1; j < mb.n(); ++j) {
        ggml_tensor * slot = ggml_new_tensor(ctx, t->type, GGML_MAX_DIMS, t->ne);
        if (slot == nullptr || ggml_backend_tensor_alloc(mb.reduce_scratch, slot, base + stride * static_cast<size_t>(j - 1)) !=
                                   GGML_STATUS_SUCCESS) {
            return false;
        }
        slots.push_back(slot);
    }
    return true;
}

// A graph on device 0 adding the slots into total, in place.
ggml_cgraph * sum_graph(ggml_context * ctx, ggml_tensor * total, const std::vector<ggml_tensor *> & slots) {
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, slots.size(), false);
    ggml_tensor * acc   = total;
    for (ggml_tensor * slot : slots) {
        ggml_tensor * sum = ggml_add(ctx, acc, slot);
        sum->buffer       = total->buffer;
        sum->data         = total->data;
        sum->flags |= GGML_TENSOR_FLAG_COMPUTE;
        ggml_graph_add_node(graph, sum); // not ggml_build_forward_expand: total's own sources must not run again
        acc = sum;
    }
    return graph;
}

ggml_status fallback_allreduce(MetaBackend & mb, const std::array<ggml_tensor *, kMaxDevices> & tensors) {
    ggml_tensor * total = tensors[0];
    if (!addable(total->type) || !ggml_is_contiguous(total)) {
        log_error("[ggml_backend_meta] cannot all-reduce '%s' of type %s\n", total->name, ggml_type_name(total->type));
        return GGML_STATUS_FAILED;
    }
    const size_t     n_tensors = static_cast<size_t>(2 * mb.n() + 4);
    ggml_init_params params{n_tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_tensors, false), nullptr, true};
    ggml_context *   ctx = ggml_init(params);
    std::vector<ggml_tensor *> slots;
    if (ctx == nullptr || !incoming_slots(mb, ctx, total, slots)) {
        ggml_free(ctx);
        log_error("[ggml_backend_meta] out of memory for the all-reduce of '%s'\n", total->name);
        return GGML_STATUS_ALLOC_FAILED;
    }
    for (int j = 1; j < mb.n(); ++j) {
        ggml_backend_tensor_copy_async(mb.simple[static_cast<size_t>(j)], mb.simple[0], tensors[static_cast<size_t>(j)],
                                       slots[static_cast<size_t>(j - 1)]);
    }
    const ggml_status status = ggml_backend_graph_compute_async(mb.simple[0], sum_graph(ctx, total, slots));
    if (status == GGML_STATUS_SUCCESS) {
        for (int j = 1; j < mb.n(); ++j) {
            ggml_backend_tensor_copy_async(mb.simple[0], mb.simple[static_cast<size_t>(j)], total,
                                           tensors[static_cast<size_t>(j)]);
        }
    }
    synchronize_all(mb); // the graph lives in ctx
    ggml_free(ctx);
    return status;
}

} // namespace

ggml_status allreduce(MetaBackend & mb, const std::array<ggml_tensor *, kMaxDevices> & tensors) {
    if (mb.n() < 2) {
        return GGML_STATUS_SUCCESS;
    }
    if (mb.comm.ctx != nullptr && mb.comm.allreduce(mb.comm.ctx, const_cast<ggml_tensor **>(tensors.data()))) {
        return GGML_STATUS_SUCCESS;
    }
    return fallback_allreduce(mb, tensors);
}

} // namespace switchyard::meta
