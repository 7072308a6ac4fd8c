// Device-local buffers: tensor data lives in a VkBuffer the host cannot address; set/get/memset go through the
// device's staging path (Device::write/read/fill), copies between Vulkan buffers of one device stay on it.
#include "vulkan/buffer.h"

#include "base/log.h"

#include <algorithm>
#include <new>

namespace switchyard::vulkan {

namespace {

std::atomic<uintptr_t> g_next_base{uintptr_t(1) << 44};

BufferContext * ctx_of(ggml_backend_buffer_t b) { return static_cast<BufferContext *>(b->context); }
Device *        device_of_buft(ggml_backend_buffer_type_t buft) { return static_cast<Device *>(buft->context); }

VkDeviceSize offset_of(const BufferContext * ctx, const ggml_tensor * t) {
    return reinterpret_cast<uintptr_t>(t->data) - ctx->base;
}

void buffer_free(ggml_backend_buffer_t buffer) {
    BufferContext * ctx = ctx_of(buffer);
    if (ctx->counts) {
        ctx->device->allocated -= ctx->alloc.size;
    }
    ctx->device->release(ctx->alloc);
    delete ctx;
}

void * buffer_get_base(ggml_backend_buffer_t buffer) { return reinterpret_cast<void *>(ctx_of(buffer)->base); }

void buffer_memset_tensor(ggml_backend_buffer_t buffer, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    BufferContext * ctx = ctx_of(buffer);
    ctx->device->fill(ctx->alloc.buffer, offset_of(ctx, t) + offset, size, value);
}

void buffer_set_tensor(ggml_backend_buffer_t buffer, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    BufferContext * ctx = ctx_of(buffer);
    ctx->device->write(ctx->alloc.buffer, offset_of(ctx, t) + offset, data, size);
}

void buffer_get_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    BufferContext * ctx = ctx_of(buffer);
    ctx->device->read(ctx->alloc.buffer, offset_of(ctx, t) + offset, data, size);
}

bool buffer_cpy_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * src, ggml_tensor * dst) {
    BufferContext *             ctx  = ctx_of(buffer);
    const ggml_backend_buffer * sbuf = storage_of(src);
    TensorRef                   from;
    if (tensor_ref(src, from) && from.device == ctx->device) {
        return ctx->device->copy(from.buffer, from.offset, ctx->alloc.buffer, offset_of(ctx, dst), ggml_nbytes(src));
    }
    if (sbuf != nullptr && ggml_backend_buffer_is_host(const_cast<ggml_backend_buffer *>(sbuf))) {
        return ctx->device->write(ctx->alloc.buffer, offset_of(ctx, dst), src->data, ggml_nbytes(src));
    }
    return false;
}

void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    BufferContext * ctx = ctx_of(buffer);
    ctx->device->fill(ctx->alloc.buffer, 0, buffer->size, value);
}

const ggml_backend_buffer_i kBufferInterface = {
    .free_buffer = buffer_free,
    .get_base = buffer_get_base,
    .init_tensor = nullptr,
    .memset_tensor = buffer_memset_tensor,
    .set_tensor = buffer_set_tensor,
    .get_tensor = buffer_get_tensor,
    .set_tensor_2d = nullptr,
    .get_tensor_2d = nullptr,
    .cpy_tensor = buffer_cpy_tensor,
    .clear = buffer_clear,
    .reset = nullptr,
};

const char * buft_get_name(ggml_backend_buffer_type_t buft) { return device_of_buft(buft)->name().c_str(); }

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    Device * device = device_of_buft(buft);
    if (!device->open()) {
        return nullptr;
    }
    auto * ctx   = new (std::nothrow) BufferContext{device, {}, 0, true};
    if (ctx == nullptr) {
        log_error("[ggml_backend_buft_alloc_buffer] %s: out of host memory\n", device->name().c_str());
        return nullptr;
    }
    // rounded up so fills and copies of whole 4-byte words stay inside the buffer
    if (!device->allocate((size + 3) & ~size_t(3), MemoryKind::DeviceLocal, ctx->alloc, "ggml_backend_buft_alloc_buffer")) {
        delete ctx;
        return nullptr;
    }
    ctx->base = g_next_base.fetch_add((size + (size_t(1) << 20)) & ~uintptr_t(4095));
    device->allocated += ctx->alloc.size;
    return make_device_buffer(buft, ctx, size);
}

size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return std::max<size_t>(64, device_of_buft(buft)->physical().props.limits.minStorageBufferOffsetAlignment);
}

size_t buft_get_max_size(ggml_backend_buffer_type_t buft) { return device_of_buft(buft)->max_buffer_size(); }

} // namespace

ggml_backend_buffer_t make_device_buffer(ggml_backend_buffer_type_t buft, BufferContext * ctx, size_t size) {
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, kBufferInterface, ctx, size);
    if (buffer == nullptr) {
        if (ctx->counts) {
            ctx->device->allocated -= ctx->alloc.size;
        }
        ctx->device->release(ctx->alloc);
        delete ctx;
    }
    return buffer;
}

bool is_vk_buffer(const ggml_backend_buffer * buffer) {
    return buffer != nullptr && buffer->iface.get_base == buffer_get_base;
}

const ggml_backend_buffer * storage_of(const ggml_tensor * t) {
    return t->view_src != nullptr ? t->view_src->buffer : t->buffer;
}

bool tensor_ref(const ggml_tensor * t, TensorRef & out) {
    const ggml_backend_buffer * buffer = storage_of(t);
    if (!is_vk_buffer(buffer) || t->data == nullptr) {
        return false;
    }
    const auto * ctx = static_cast<const BufferContext *>(buffer->context);
    out.device       = ctx->device;
    out.buffer       = ctx->alloc.buffer;
    out.offset       = offset_of(ctx, t);
    out.size         = ctx->alloc.size;
    return true;
}

ggml_backend_buffer_type_i device_buffer_type_interface() {
    return {
        .get_name = buft_get_name,
        .alloc_buffer = buft_alloc_buffer,
        .get_alignment = buft_get_alignment,
        .get_max_size = buft_get_max_size,
        .get_alloc_size = nullptr,
        .is_host = nullptr,
    };
}

} // namespace switchyard::vulkan
