// The Vulkan backend (stream): graph computation recorded into command buffers (submitted in batches of
// kNodesPerSubmit nodes, barriers only where a node depends on an earlier one), asynchronous transfers through
// staging memory, and copies between backends of the same device. Everything is asynchronous: work is queued
// and the host returns; synchronize waits. A device failure makes the backend fail from then on (sticky).
#include "vulkan/backend.h"

#include "vulkan/buffer.h"
#include "vulkan/ops.h"

#include "base/log.h"

#include <cstring>
#include <memory>
#include <new>

namespace switchyard::vulkan {

namespace {

constexpr int kNodesPerSubmit = 64;

Backend * ctx_of(ggml_backend_t backend) { return static_cast<Backend *>(backend->context); }

const char * backend_get_name(ggml_backend_t backend) { return ctx_of(backend)->device->name().c_str(); }

void backend_free(ggml_backend_t backend) {
    Backend * ctx = ctx_of(backend);
    ctx->stream.synchronize();
    delete ctx;
    delete backend;
}

// Records a copy with full barriers around it (transfers are rare next to dispatches).
bool record_copy(Stream & stream, VkBuffer src, VkDeviceSize src_offset, VkBuffer dst, VkDeviceSize dst_offset,
                 size_t size) {
    VkCommandBuffer cmd = stream.cmd();
    if (cmd == VK_NULL_HANDLE) {
        return false;
    }
    stream.barrier_all();
    const VkBufferCopy region{src_offset, dst_offset, size};
    vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    stream.barrier_all();
    return true;
}

void backend_set_tensor_async(ggml_backend_t backend, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    Backend * ctx = ctx_of(backend);
    TensorRef ref;
    if (!tensor_ref(t, ref)) {
        log_error("[ggml_backend_tensor_set_async] %s: tensor '%s' is not in a Vulkan buffer\n",
                  ctx->device->name().c_str(), t->name);
        return;
    }
    VkBuffer     from;
    VkDeviceSize from_offset;
    void *       host;
    if (ctx->device->find_pinned(data, size, from, from_offset)) {
        record_copy(ctx->stream, from, from_offset, ref.buffer, ref.offset + offset, size);
        return;
    }
    if (ctx->stream.stage(size, from, from_offset, host)) {
        std::memcpy(host, data, size);
        record_copy(ctx->stream, from, from_offset, ref.buffer, ref.offset + offset, size);
    }
}

void backend_get_tensor_async(ggml_backend_t backend, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    Backend * ctx = ctx_of(backend);
    TensorRef ref;
    if (!tensor_ref(t, ref)) {
        log_error("[ggml_backend_tensor_get_async] %s: tensor '%s' is not in a Vulkan buffer\n",
                  ctx->device->name().c_str(), t->name);
        return;
    }
    VkBuffer     to;
    VkDeviceSize to_offset;
    void *       host;
    if (ctx->device->find_pinned(data, size, to, to_offset)) {
        record_copy(ctx->stream, ref.buffer, ref.offset + offset, to, to_offset, size);
        return;
    }
    if (ctx->stream.stage(size, to, to_offset, host) &&
        record_copy(ctx->stream, ref.buffer, ref.offset + offset, to, to_offset, size)) {
        ctx->stream.after_sync([=] { std::memcpy(data, host, size); });
    }
}

// Called on the destination backend: a copy between Vulkan buffers of one device, ordered after the work the
// source backend has queued (its recording is submitted first; the queue runs in submission order).
bool backend_cpy_tensor_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const ggml_tensor * src,
                              ggml_tensor * dst) {
    Backend * ctx = ctx_of(backend_dst);
    TensorRef from, to;
    if (!is_vk_backend(backend_src) || !tensor_ref(src, from) || !tensor_ref(dst, to) ||
        from.device != ctx->device || to.device != ctx->device) {
        return false;
    }
    if (backend_src != backend_dst) {
        ctx_of(backend_src)->stream.flush();
    }
    record_copy(ctx->stream, from.buffer, from.offset, to.buffer, to.offset, ggml_nbytes(src));
    return true;
}

void backend_synchronize(ggml_backend_t backend) { ctx_of(backend)->stream.synchronize(); }

ggml_status backend_graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    Backend * ctx = ctx_of(backend);
    if (ctx->stream.error() != GGML_STATUS_SUCCESS) {
        return ctx->stream.error();
    }
    Recorder rec(ctx->stream);
    int      recorded = 0;
    for (int i = 0; i < ggml_graph_n_nodes(cgraph); ++i) {
        const ggml_tensor * node = ggml_graph_node(cgraph, i);
        if (is_empty_op(node->op) || !(node->flags & GGML_TENSOR_FLAG_COMPUTE) || ggml_is_empty(node)) {
            continue;
        }
        const OpInfo & info = op_info(node->op);
        if (info.record == nullptr) {
            log_error("[ggml_backend_graph_compute] %s: unsupported op %s for '%s'\n", ctx->device->name().c_str(),
                      ggml_op_desc(node), node->name);
            return GGML_STATUS_FAILED;
        }
        // RMS_NORM and the MUL by a weight that follows it: one dispatch
        const ggml_tensor * next = i + 1 < ggml_graph_n_nodes(cgraph) ? ggml_graph_node(cgraph, i + 1) : nullptr;
        const bool          fuse = next != nullptr && ops::can_fuse_rms_norm_mul(node, next) &&
                          fits_windows(*ctx->device, node) && fits_windows(*ctx->device, next);
        if (!(fuse ? ops::record_rms_norm_mul(rec, node, next) : record_node(rec, node))) {
            log_error("[ggml_backend_graph_compute] %s: cannot record %s for '%s'\n", ctx->device->name().c_str(),
                      ggml_op_desc(node), node->name);
            return ctx->stream.error() != GGML_STATUS_SUCCESS ? ctx->stream.error() : GGML_STATUS_FAILED;
        }
        i += fuse ? 1 : 0;
        if (++recorded % kNodesPerSubmit == 0) {
            ctx->stream.flush();
        }
    }
    ctx->stream.flush();
    return ctx->stream.error();
}

const ggml_backend_i kInterface = {
    .get_name            = backend_get_name,
    .free                = backend_free,
    .set_tensor_async    = backend_set_tensor_async,
    .get_tensor_async    = backend_get_tensor_async,
    .set_tensor_2d_async = nullptr,
    .get_tensor_2d_async = nullptr,
    .cpy_tensor_async    = backend_cpy_tensor_async,
    .synchronize         = backend_synchronize,
    .graph_plan_create   = nullptr,
    .graph_plan_free     = nullptr,
    .graph_plan_update   = nullptr,
    .graph_plan_compute  = nullptr,
    .graph_compute       = backend_graph_compute,
    .event_record        = event_record,
    .event_wait          = event_wait,
    .graph_optimize      = nullptr,
};

ggml_guid kGuid = {0x73, 0x77, 0x79, 0x64, 0x2d, 0x76, 0x75, 0x6c, 0x6b, 0x61, 0x6e, 0x2d, 0x62, 0x6b, 0x6e, 0x64};

} // namespace

ggml_backend_t make_backend(Device & device) {
    if (!device.open()) {
        return nullptr;
    }
    std::unique_ptr<Backend> ctx(new (std::nothrow) Backend(device));
    if (ctx == nullptr || !ctx->stream.init()) {
        return nullptr;
    }
    auto * backend = new (std::nothrow) ggml_backend{&kGuid, kInterface, &device.ggml_device, ctx.get()};
    if (backend == nullptr) {
        log_error("[ggml_backend_vk_init] out of host memory\n");
        return nullptr;
    }
    ctx.release();
    return backend;
}

bool is_vk_backend(ggml_backend_t backend) {
    return backend != nullptr && ggml_guid_matches(backend->guid, &kGuid);
}

} // namespace switchyard::vulkan
