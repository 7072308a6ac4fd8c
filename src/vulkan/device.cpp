// The logical device, memory allocation and the blocking transfer path (see device.h).
#include "vulkan/device.h"

#include "base/log.h"

#include <algorithm>
#include <cstring>

namespace switchyard::vulkan {

namespace {

constexpr size_t kStagingChunk = size_t(8) << 20; // blocking transfers move at most this much per submission

} // namespace

void full_barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT;
    b.dstAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &b, 0,
                         nullptr, 0, nullptr);
}

Device::Device(size_t index, const PhysicalDevice & physical)
    : index_(index), physical_(physical), name_("Vulkan" + std::to_string(index)) {}

Device::~Device() {
    if (device_ == VK_NULL_HANDLE) {
        return;
    }
    vkDeviceWaitIdle(device_);
    pipelines_.reset();
    release(staging_);
    vkDestroyFence(device_, transfer_fence_, nullptr);
    vkDestroyCommandPool(device_, transfer_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
}

bool Device::open() {
    std::lock_guard lock(open_mutex_);
    if (opened_ || open_failed_) {
        return opened_;
    }
    const float             priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = physical_.queue_family;
    qi.queueCount       = 1;
    qi.pQueuePriorities = &priority;

    std::vector<const char *> extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    if (physical_.external_memory_host) {
        extensions.push_back(VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME);
        extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    }
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.timelineSemaphore       = VK_TRUE;
    f12.storageBuffer8BitAccess = VK_TRUE;
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    f11.storageBuffer16BitAccess = VK_TRUE;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};

    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2};
    di.queueCreateInfoCount    = 1;
    di.pQueueCreateInfos       = &qi;
    di.enabledExtensionCount   = static_cast<uint32_t>(extensions.size());
    di.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateDevice(physical_.handle, &di, nullptr, &device_);
    if (r != VK_SUCCESS) {
        log_error("[ggml_backend_vk] %s: vkCreateDevice failed (%d)\n", name_.c_str(), static_cast<int>(r));
        device_      = VK_NULL_HANDLE;
        open_failed_ = true;
        return false;
    }
    vkGetDeviceQueue(device_, physical_.queue_family, 0, &queue_);
    push_descriptor_set_ = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
        vkGetDeviceProcAddr(device_, "vkCmdPushDescriptorSetKHR"));
    if (physical_.external_memory_host) {
        host_pointer_properties_ = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            vkGetDeviceProcAddr(device_, "vkGetMemoryHostPointerPropertiesEXT"));
    }
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags            = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = physical_.queue_family;
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.level              = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (push_descriptor_set_ == nullptr || vkCreateCommandPool(device_, &pi, nullptr, &transfer_pool_) != VK_SUCCESS ||
        (ai.commandPool = transfer_pool_, vkAllocateCommandBuffers(device_, &ai, &transfer_cmd_)) != VK_SUCCESS ||
        vkCreateFence(device_, &fi, nullptr, &transfer_fence_) != VK_SUCCESS) {
        log_error("[ggml_backend_vk] %s: cannot set up the device\n", name_.c_str());
        vkDestroyCommandPool(device_, transfer_pool_, nullptr);
        vkDestroyDevice(device_, nullptr);
        device_      = VK_NULL_HANDLE;
        open_failed_ = true;
        return false;
    }
    pipelines_ = std::make_unique<PipelineCache>(device_);
    opened_    = true;
    return true;
}

int Device::find_memory_type(uint32_t type_bits, MemoryKind kind) const {
    const VkPhysicalDeviceMemoryProperties & m = physical_.memory;
    VkMemoryPropertyFlags required = 0, preferred = 0;
    switch (kind) {
        case MemoryKind::DeviceLocal: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
        case MemoryKind::Staging:
            required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            break;
        case MemoryKind::Readback:
            required  = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
            break;
    }
    int fallback = -1;
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = m.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (f & required) != required) {
            continue;
        }
        if ((f & preferred) == preferred) {
            return static_cast<int>(i);
        }
        if (fallback < 0) {
            fallback = static_cast<int>(i);
        }
    }
    return fallback;
}

bool Device::allocate(VkDeviceSize size, MemoryKind kind, Allocation & out, const char * what) {
    out = Allocation{};
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size  = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r     = vkCreateBuffer(device_, &bi, nullptr, &out.buffer);
    if (r != VK_SUCCESS) {
        log_error("[%s] %s: cannot create a buffer of %llu bytes (%d)\n", what, name_.c_str(),
                  static_cast<unsigned long long>(size), static_cast<int>(r));
        out.buffer = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, out.buffer, &req);
    const int type = find_memory_type(req.memoryTypeBits, kind);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize  = req.size;
    ai.memoryTypeIndex = static_cast<uint32_t>(type);
    r = type < 0 ? VK_ERROR_OUT_OF_DEVICE_MEMORY : vkAllocateMemory(device_, &ai, nullptr, &out.memory);
    if (r == VK_SUCCESS) {
        r = vkBindBufferMemory(device_, out.buffer, out.memory, 0);
    }
    if (r == VK_SUCCESS && kind != MemoryKind::DeviceLocal) {
        r = vkMapMemory(device_, out.memory, 0, VK_WHOLE_SIZE, 0, &out.mapped);
    }
    if (r != VK_SUCCESS) {
        log_error("[%s] %s: cannot allocate %llu bytes of %s memory (%s)\n", what, name_.c_str(),
                  static_cast<unsigned long long>(size), kind == MemoryKind::DeviceLocal ? "device" : "host-visible",
                  r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "out of device memory"
                  : r == VK_ERROR_OUT_OF_HOST_MEMORY ? "out of host memory"
                                                     : "driver error");
        release(out);
        return false;
    }
    out.size = size;
    return true;
}

bool Device::import_host(void * ptr, VkDeviceSize size, Allocation & out) {
    out = Allocation{};
    if (!physical_.external_memory_host || host_pointer_properties_ == nullptr) {
        return false;
    }
    VkMemoryHostPointerPropertiesEXT props{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    if (host_pointer_properties_(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, ptr, &props) !=
        VK_SUCCESS) {
        return false;
    }
    VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext};
    bi.size  = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vkCreateBuffer(device_, &bi, nullptr, &out.buffer) != VK_SUCCESS) {
        out.buffer = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, out.buffer, &req);
    const int type = find_memory_type(req.memoryTypeBits & props.memoryTypeBits, MemoryKind::Staging);
    VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
    import.handleType   = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    import.pHostPointer = ptr;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import};
    ai.allocationSize  = size;
    ai.memoryTypeIndex = static_cast<uint32_t>(type);
    if (type < 0 || vkAllocateMemory(device_, &ai, nullptr, &out.memory) != VK_SUCCESS ||
        vkBindBufferMemory(device_, out.buffer, out.memory, 0) != VK_SUCCESS) {
        release(out);
        return false;
    }
    out.size = size;
    return true;
}

void Device::release(Allocation & a) {
    if (device_ == VK_NULL_HANDLE) {
        return;
    }
    if (a.mapped != nullptr) {
        vkUnmapMemory(device_, a.memory);
    }
    vkDestroyBuffer(device_, a.buffer, nullptr);
    vkFreeMemory(device_, a.memory, nullptr);
    a = Allocation{};
}

void Device::memory_info(size_t * free, size_t * total) const {
    VkDeviceSize sum = 0;
    for (uint32_t i = 0; i < physical_.memory.memoryHeapCount; ++i) {
        if (physical_.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
            sum += physical_.memory.memoryHeaps[i].size;
        }
    }
    *total = static_cast<size_t>(sum);
    const size_t used = allocated.load();
    *free             = used < *total ? *total - used : 0;
}

size_t Device::max_buffer_size() const {
    // one VkBuffer with its own allocation, within the largest device-local heap; ops bind windows of it of at
    // most max_range() bytes (recorder.h), and split the work where a tensor is larger (split.h)
    VkDeviceSize heap = 0;
    for (uint32_t i = 0; i < physical_.memory.memoryHeapCount; ++i) {
        if (physical_.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
            heap = std::max(heap, physical_.memory.memoryHeaps[i].size);
        }
    }
    const VkDeviceSize limit = physical_.max_buffer > 0 ? physical_.max_buffer : physical_.props.limits.maxStorageBufferRange;
    return static_cast<size_t>(heap > 0 ? std::min(limit, heap) : limit);
}

VkDeviceSize Device::window_alignment() const {
    return std::max<VkDeviceSize>(4, physical_.props.limits.minStorageBufferOffsetAlignment);
}

uint64_t Device::max_window() const {
    return physical_.props.limits.maxStorageBufferRange - (window_alignment() - 1);
}

VkResult Device::submit(const VkSubmitInfo & info, VkFence fence) {
    std::lock_guard lock(queue_mutex_);
    return vkQueueSubmit(queue_, 1, &info, fence);
}

bool Device::ensure_staging(size_t size) {
    if (staging_.size >= size) {
        return true;
    }
    release(staging_);
    return allocate(std::max(size, kStagingChunk), MemoryKind::Readback, staging_, "ggml_backend_vk_transfer");
}

template <class F> bool Device::run_blocking(const char * what, F && record) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags   = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult r = vkResetCommandBuffer(transfer_cmd_, 0);
    if (r == VK_SUCCESS) {
        r = vkBeginCommandBuffer(transfer_cmd_, &bi);
    }
    if (r == VK_SUCCESS) {
        full_barrier(transfer_cmd_);
        record(transfer_cmd_);
        full_barrier(transfer_cmd_);
        r = vkEndCommandBuffer(transfer_cmd_);
    }
    if (r == VK_SUCCESS) {
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers    = &transfer_cmd_;
        r                     = submit(si, transfer_fence_);
    }
    if (r == VK_SUCCESS) {
        r = vkWaitForFences(device_, 1, &transfer_fence_, VK_TRUE, UINT64_MAX);
        vkResetFences(device_, 1, &transfer_fence_);
    }
    if (r != VK_SUCCESS) {
        log_error("[%s] %s: device error %d\n", what, name_.c_str(), static_cast<int>(r));
        return false;
    }
    return true;
}

bool Device::write(VkBuffer dst, VkDeviceSize offset, const void * data, size_t size) {
    std::lock_guard lock(transfer_mutex_);
    VkBuffer        pinned;
    VkDeviceSize    pinned_offset;
    if (find_pinned(data, size, pinned, pinned_offset)) {
        return run_blocking("ggml_backend_tensor_set", [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{pinned_offset, offset, size};
            vkCmdCopyBuffer(cmd, pinned, dst, 1, &region);
        });
    }
    if (!ensure_staging(std::min(size, kStagingChunk))) {
        return false;
    }
    for (size_t done = 0; done < size;) {
        const size_t n = std::min(size - done, static_cast<size_t>(staging_.size));
        std::memcpy(staging_.mapped, static_cast<const uint8_t *>(data) + done, n);
        const bool ok = run_blocking("ggml_backend_tensor_set", [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{0, offset + done, n};
            vkCmdCopyBuffer(cmd, staging_.buffer, dst, 1, &region);
        });
        if (!ok) {
            return false;
        }
        done += n;
    }
    return true;
}

bool Device::read(VkBuffer src, VkDeviceSize offset, void * data, size_t size) {
    std::lock_guard lock(transfer_mutex_);
    VkBuffer        pinned;
    VkDeviceSize    pinned_offset;
    if (find_pinned(data, size, pinned, pinned_offset)) {
        return run_blocking("ggml_backend_tensor_get", [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{offset, pinned_offset, size};
            vkCmdCopyBuffer(cmd, src, pinned, 1, &region);
        });
    }
    if (!ensure_staging(std::min(size, kStagingChunk))) {
        return false;
    }
    for (size_t done = 0; done < size;) {
        const size_t n  = std::min(size - done, static_cast<size_t>(staging_.size));
        const bool   ok = run_blocking("ggml_backend_tensor_get", [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{offset + done, 0, n};
            vkCmdCopyBuffer(cmd, src, staging_.buffer, 1, &region);
        });
        if (!ok) {
            return false;
        }
        std::memcpy(static_cast<uint8_t *>(data) + done, staging_.mapped, n);
        done += n;
    }
    return true;
}

bool Device::fill(VkBuffer dst, VkDeviceSize offset, size_t size, uint8_t value) {
    if (offset % 4 == 0 && size % 4 == 0) {
        std::lock_guard lock(transfer_mutex_);
        return run_blocking("ggml_backend_tensor_memset", [&](VkCommandBuffer cmd) {
            vkCmdFillBuffer(cmd, dst, offset, size, 0x01010101u * value);
        });
    }
    // unaligned ends: through host memory
    std::vector<uint8_t> bytes(size, value);
    return write(dst, offset, bytes.data(), size);
}

bool Device::copy(VkBuffer src, VkDeviceSize src_offset, VkBuffer dst, VkDeviceSize dst_offset, size_t size) {
    std::lock_guard lock(transfer_mutex_);
    return run_blocking("ggml_backend_tensor_copy", [&](VkCommandBuffer cmd) {
        const VkBufferCopy region{src_offset, dst_offset, size};
        vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    });
}

void Device::add_pinned(const void * base, size_t size, VkBuffer buffer) {
    std::lock_guard lock(pinned_mutex_);
    pinned_[reinterpret_cast<uintptr_t>(base)] = {size, buffer};
}

void Device::remove_pinned(const void * base) {
    std::lock_guard lock(pinned_mutex_);
    pinned_.erase(reinterpret_cast<uintptr_t>(base));
}

bool Device::find_pinned(const void * ptr, size_t size, VkBuffer & buffer, VkDeviceSize & offset) {
    std::lock_guard lock(pinned_mutex_);
    const uintptr_t p  = reinterpret_cast<uintptr_t>(ptr);
    auto            it = pinned_.upper_bound(p);
    if (it == pinned_.begin()) {
        return false;
    }
    --it;
    if (p + size > it->first + it->second.first) {
        return false;
    }
    buffer = it->second.second;
    offset = p - it->first;
    return true;
}

} // namespace switchyard::vulkan
