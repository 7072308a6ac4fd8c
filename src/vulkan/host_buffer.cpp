// The pinned host buffer type: host-visible, coherent (cached where the device offers it) memory the device can
// copy from and to directly. Tensors in it are ordinary host memory for the CPU backend; transfers between it
// and Vulkan buffers skip the staging copy (Device::find_pinned).
#include "vulkan/buffer.h"

#include "base/log.h"

#include <cstring>
#include <new>

namespace switchyard::vulkan {

namespace {

struct HostBuffer {
    Device *   device = nullptr;
    Allocation alloc;
};

HostBuffer * ctx_of(ggml_backend_buffer_t b) { return static_cast<HostBuffer *>(b->context); }

void host_free(ggml_backend_buffer_t buffer) {
    HostBuffer * ctx = ctx_of(buffer);
    ctx->device->remove_pinned(ctx->alloc.mapped);
    ctx->device->release(ctx->alloc);
    delete ctx;
}

void * host_get_base(ggml_backend_buffer_t buffer) { return ctx_of(buffer)->alloc.mapped; }

void host_memset_tensor(ggml_backend_buffer_t, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    std::memset(static_cast<uint8_t *>(t->data) + offset, value, size);
}

void host_set_tensor(ggml_backend_buffer_t, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    std::memcpy(static_cast<uint8_t *>(t->data) + offset, data, size);
}

void host_get_tensor(ggml_backend_buffer_t, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    std::memcpy(data, static_cast<const uint8_t *>(t->data) + offset, size);
}

bool host_cpy_tensor(ggml_backend_buffer_t, const ggml_tensor * src, ggml_tensor * dst) {
    const ggml_backend_buffer * sbuf = storage_of(src);
    if (sbuf != nullptr && ggml_backend_buffer_is_host(const_cast<ggml_backend_buffer *>(sbuf))) {
        std::memcpy(dst->data, src->data, ggml_nbytes(src));
        return true;
    }
    return false;
}

void host_clear(ggml_backend_buffer_t buffer, uint8_t value) { std::memset(ctx_of(buffer)->alloc.mapped, value, buffer->size); }

const ggml_backend_buffer_i kHostInterface = {
    .free_buffer   = host_free,
    .get_base      = host_get_base,
    .init_tensor   = nullptr,
    .memset_tensor = host_memset_tensor,
    .set_tensor    = host_set_tensor,
    .get_tensor    = host_get_tensor,
    .set_tensor_2d = nullptr,
    .get_tensor_2d = nullptr,
    .cpy_tensor    = host_cpy_tensor,
    .clear         = host_clear,
    .reset         = nullptr,
};

const char * host_buft_get_name(ggml_backend_buffer_type_t) { return "Vulkan_Host"; }

ggml_backend_buffer_t host_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    Device * device = static_cast<Device *>(buft->context);
    if (!device->open()) {
        return nullptr;
    }
    auto * ctx = new (std::nothrow) HostBuffer{device, {}};
    if (ctx == nullptr || !device->allocate(size, MemoryKind::Readback, ctx->alloc, "ggml_backend_vk_host_buffer")) {
        delete ctx;
        return nullptr;
    }
    device->add_pinned(ctx->alloc.mapped, size, ctx->alloc.buffer);
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, kHostInterface, ctx, size);
    if (buffer == nullptr) {
        device->remove_pinned(ctx->alloc.mapped);
        device->release(ctx->alloc);
        delete ctx;
    }
    return buffer;
}

size_t host_buft_get_alignment(ggml_backend_buffer_type_t) { return 64; }

bool host_buft_is_host(ggml_backend_buffer_type_t) { return true; }

} // namespace

ggml_backend_buffer_type_i host_buffer_type_interface() {
    return {
        .get_name       = host_buft_get_name,
        .alloc_buffer   = host_buft_alloc_buffer,
        .get_alignment  = host_buft_get_alignment,
        .get_max_size   = nullptr,
        .get_alloc_size = nullptr,
        .is_host        = host_buft_is_host,
    };
}

ggml_backend_buffer_t buffer_from_host_ptr(Device & device, void * ptr, size_t size) {
    const char * what = "ggml_backend_dev_buffer_from_host_ptr";
    if (!device.open()) {
        return nullptr;
    }
    const uintptr_t align = device.physical().host_pointer_alignment;
    if (align == 0) {
        log_error("[%s] %s: the device cannot import host memory\n", what, device.name().c_str());
        return nullptr;
    }
    // whole import-alignment units around [ptr, ptr + size): the pages holding the caller's memory
    const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr) & ~(align - 1);
    const uintptr_t end   = (reinterpret_cast<uintptr_t>(ptr) + size + align - 1) & ~(align - 1);
    auto *          ctx   = new (std::nothrow) BufferContext{&device, {}, begin, false};
    if (ctx == nullptr || !device.import_host(reinterpret_cast<void *>(begin), end - begin, ctx->alloc)) {
        log_error("[%s] %s: cannot import %zu bytes of host memory\n", what, device.name().c_str(), size);
        delete ctx;
        return nullptr;
    }
    return make_device_buffer(&device.buffer_type, ctx, end - begin);
}

} // namespace switchyard::vulkan
