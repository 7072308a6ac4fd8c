// Vulkan buffers: device-local memory for tensors (buffer.cpp), caller memory imported with
// VK_EXT_external_memory_host (host_ptr_buffer.cpp) and the pinned host buffer type (host_buffer.cpp).
//
// Device buffers have no host address: a buffer's base is a made-up address (unique, never dereferenced), and a
// tensor's place in the VkBuffer is tensor->data - base. Imported buffers use the caller's address as base.
#pragma once

#include "vulkan/device.h"

namespace switchyard::vulkan {

struct BufferContext {
    Device *   device = nullptr;
    Allocation alloc;
    uintptr_t  base   = 0;
    bool       counts = true; // device memory counted in device->allocated
};

// Where a tensor's bytes are: the VkBuffer and the byte offset in it.
struct TensorRef {
    Device *     device = nullptr;
    VkBuffer     buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize size   = 0; // of the whole VkBuffer
};

// true when buffer is a Vulkan device buffer (any device)
bool is_vk_buffer(const ggml_backend_buffer * buffer);
// The buffer holding t's data (its view source's for views); nullptr when unallocated.
const ggml_backend_buffer * storage_of(const ggml_tensor * t);
// false when t is not in a Vulkan device buffer
bool tensor_ref(const ggml_tensor * t, TensorRef & out);

// The buffer type objects (set up in Device::ggml_device setup, reg.cpp).
ggml_backend_buffer_type_i device_buffer_type_interface();
ggml_backend_buffer_type_i host_buffer_type_interface();
ggml_backend_buffer_t      buffer_from_host_ptr(Device & device, void * ptr, size_t size);

// Wraps ctx (ownership passes) in a ggml buffer of type buft; nullptr when out of host memory (ctx released).
ggml_backend_buffer_t make_device_buffer(ggml_backend_buffer_type_t buft, BufferContext * ctx, size_t size);

} // namespace switchyard::vulkan
