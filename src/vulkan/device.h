// One Vulkan device in use: the logical device (opened on first need), its queue, the memory helpers, the
// blocking transfer path, the pipeline cache, and the ggml objects that stand for it (device, buffer types).
//
// Thread safety: open() and the blocking transfers may be called from any thread; the queue is shared by every
// backend (stream) of the device and guarded by queue_mutex. Work submitted to the queue runs in submission
// order: every command buffer of this backend starts with a full memory barrier, so it sees everything queued
// before it.
#pragma once

#include "vulkan/instance.h"
#include "vulkan/pipeline.h"

#include "ggml-backend-impl.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace switchyard::vulkan {

// A VkBuffer with its own memory, optionally mapped.
struct Allocation {
    VkBuffer       buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize   size   = 0;
    void *         mapped = nullptr; // host address for host-visible allocations
};

enum class MemoryKind {
    DeviceLocal, // for tensors; host-visible too on unified-memory devices, which the backend does not rely on
    Staging,     // host-visible and coherent, for uploads
    Readback,    // host-visible, coherent, cached where possible, for downloads and pinned host buffers
};

class Device {
public:
    Device(size_t index, const PhysicalDevice & physical);
    ~Device();
    Device(const Device &)             = delete;
    Device & operator=(const Device &) = delete;

    // Creates the logical device on first call; false (logged once) when it cannot. Thread-safe.
    bool open();

    size_t                 index() const { return index_; }
    const PhysicalDevice & physical() const { return physical_; }
    const std::string &    name() const { return name_; }
    const std::string &    description() const { return physical_.name; }
    VkDevice               handle() const { return device_; }
    PipelineCache &        pipelines() { return *pipelines_; }
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set() const { return push_descriptor_set_; }

    // Memory. allocate returns false (logged, naming `what`) when the memory cannot be had.
    bool allocate(VkDeviceSize size, MemoryKind kind, Allocation & out, const char * what);
    // Wraps host memory [ptr, ptr + size) (VK_EXT_external_memory_host; both aligned to the import alignment).
    bool import_host(void * ptr, VkDeviceSize size, Allocation & out);
    void release(Allocation & a);
    void   memory_info(size_t * free, size_t * total) const;
    size_t max_buffer_size() const;
    // The largest view one storage descriptor binds wherever it starts: maxStorageBufferRange less the slack of a
    // window aligned down to minStorageBufferOffsetAlignment (recorder.h).
    uint64_t max_window() const;
    VkDeviceSize window_alignment() const;

    // Blocking transfers on the queue (through a staging buffer); false (logged) on a device error.
    bool write(VkBuffer dst, VkDeviceSize offset, const void * data, size_t size);
    bool read(VkBuffer src, VkDeviceSize offset, void * data, size_t size);
    bool fill(VkBuffer dst, VkDeviceSize offset, size_t size, uint8_t value);
    bool copy(VkBuffer src, VkDeviceSize src_offset, VkBuffer dst, VkDeviceSize dst_offset, size_t size);

    // Submits to the shared queue under queue_mutex.
    VkResult submit(const VkSubmitInfo & info, VkFence fence);

    // Pinned host memory (the host buffer type) by address, so transfers can copy from it directly.
    void add_pinned(const void * base, size_t size, VkBuffer buffer);
    void remove_pinned(const void * base);
    // The pinned VkBuffer and offset holding [ptr, ptr + size), if any.
    bool find_pinned(const void * ptr, size_t size, VkBuffer & buffer, VkDeviceSize & offset);

    // The ggml objects of this device (owned here).
    ggml_backend_device        ggml_device{};
    ggml_backend_buffer_type   buffer_type{};
    ggml_backend_buffer_type   host_buffer_type{};

    std::atomic<size_t> allocated{0}; // bytes of device memory held by buffers

private:
    // Records one command buffer with `record` and waits for it; the caller holds transfer_mutex_.
    template <class F> bool run_blocking(const char * what, F && record);
    bool ensure_staging(size_t size);
    int  find_memory_type(uint32_t type_bits, MemoryKind kind) const;

    size_t         index_;
    PhysicalDevice physical_;
    std::string    name_;

    std::mutex    open_mutex_;
    bool          opened_ = false, open_failed_ = false;
    VkDevice      device_ = VK_NULL_HANDLE;
    VkQueue       queue_  = VK_NULL_HANDLE;
    std::mutex    queue_mutex_;
    PFN_vkCmdPushDescriptorSetKHR  push_descriptor_set_ = nullptr;
    PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties_ = nullptr;
    std::unique_ptr<PipelineCache> pipelines_;

    std::mutex      transfer_mutex_;
    VkCommandPool   transfer_pool_  = VK_NULL_HANDLE;
    VkCommandBuffer transfer_cmd_   = VK_NULL_HANDLE;
    VkFence         transfer_fence_ = VK_NULL_HANDLE;
    Allocation      staging_;

    std::mutex                                                 pinned_mutex_;
    std::map<uintptr_t, std::pair<size_t, VkBuffer>>           pinned_;
};

// The device of a ggml device / buffer type made by this backend.
inline Device * device_of(ggml_backend_dev_t dev) { return static_cast<Device *>(dev->context); }

// A full memory barrier between everything before and after it on the queue (compute and transfer).
void full_barrier(VkCommandBuffer cmd);

} // namespace switchyard::vulkan
