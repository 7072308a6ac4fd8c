#include "vulkan/stream.h"

#include "base/log.h"

#include <algorithm>

namespace switchyard::vulkan {

namespace {

constexpr VkDeviceSize kStagingChunk = VkDeviceSize(4) << 20;

bool overlaps(const MemoryRange & a, const MemoryRange & b) {
    return a.buffer == b.buffer && a.begin < b.end && b.begin < a.end;
}

bool any_overlap(const std::vector<MemoryRange> & set, const MemoryRange & r) {
    return std::any_of(set.begin(), set.end(), [&](const MemoryRange & s) { return overlaps(s, r); });
}

} // namespace

Stream::Stream(Device & device) : device_(device) {}

Stream::~Stream() {
    VkDevice dev = device_.handle();
    if (timeline_ != VK_NULL_HANDLE && value_ > 0) {
        VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores    = &timeline_;
        wi.pValues        = &value_;
        vkWaitSemaphores(dev, &wi, UINT64_MAX);
    }
    for (StagingChunk & c : staging_) {
        device_.release(c.alloc);
    }
    for (Allocation & a : scratch_) {
        device_.release(a);
    }
    for (Allocation & a : retired_) {
        device_.release(a);
    }
    vkDestroySemaphore(dev, timeline_, nullptr);
    vkDestroyCommandPool(dev, pool_, nullptr);
}

bool Stream::init() {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags            = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = device_.physical().queue_family;
    VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &ti};
    if (vkCreateCommandPool(device_.handle(), &pi, nullptr, &pool_) != VK_SUCCESS ||
        vkCreateSemaphore(device_.handle(), &si, nullptr, &timeline_) != VK_SUCCESS) {
        log_error("[ggml_backend_vk_init] %s: cannot create a command pool or semaphore\n", device_.name().c_str());
        return false;
    }
    return true;
}

void Stream::fail(const char * what, VkResult r) {
    if (error_ == GGML_STATUS_SUCCESS) {
        log_error("[%s] %s: %s (VkResult %d); the backend stays failed until it is freed\n", what,
                  device_.name().c_str(), r == VK_ERROR_DEVICE_LOST ? "device lost" : "device error",
                  static_cast<int>(r));
    }
    error_ = r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? GGML_STATUS_ALLOC_FAILED
                                                                                     : GGML_STATUS_FAILED;
}

VkCommandBuffer Stream::next_command_buffer() {
    if (!free_.empty()) {
        VkCommandBuffer cmd = free_.back();
        free_.pop_back();
        return cmd;
    }
    uint64_t done = 0;
    if (!in_flight_.empty() && vkGetSemaphoreCounterValue(device_.handle(), timeline_, &done) == VK_SUCCESS &&
        in_flight_.front().value <= done) {
        VkCommandBuffer cmd = in_flight_.front().cmd;
        in_flight_.pop_front();
        return cmd;
    }
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool        = pool_;
    ai.level              = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd   = VK_NULL_HANDLE;
    const VkResult  r     = vkAllocateCommandBuffers(device_.handle(), &ai, &cmd);
    if (r != VK_SUCCESS) {
        fail("ggml_backend_vk", r);
        return VK_NULL_HANDLE;
    }
    return cmd;
}

VkCommandBuffer Stream::cmd() {
    if (error_ != GGML_STATUS_SUCCESS) {
        return VK_NULL_HANDLE;
    }
    if (current_ != VK_NULL_HANDLE) {
        return current_;
    }
    VkCommandBuffer cmd = next_command_buffer();
    if (cmd == VK_NULL_HANDLE) {
        return VK_NULL_HANDLE;
    }
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags   = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult r = vkResetCommandBuffer(cmd, 0);
    if (r == VK_SUCCESS) {
        r = vkBeginCommandBuffer(cmd, &bi);
    }
    if (r != VK_SUCCESS) {
        free_.push_back(cmd);
        fail("ggml_backend_vk", r);
        return VK_NULL_HANDLE;
    }
    full_barrier(cmd); // everything queued before, by any stream of the device, is visible
    reads_.clear();
    writes_.clear();
    current_ = cmd;
    return cmd;
}

bool Stream::flush(SemaphoreValue signal) {
    if (error_ != GGML_STATUS_SUCCESS) {
        return false;
    }
    if (current_ == VK_NULL_HANDLE && waits_.empty() && signal.semaphore == VK_NULL_HANDLE) {
        return true; // nothing to submit
    }
    VkCommandBuffer cmd = current_;
    current_            = VK_NULL_HANDLE;
    if (cmd != VK_NULL_HANDLE) {
        const VkResult r = vkEndCommandBuffer(cmd);
        if (r != VK_SUCCESS) {
            fail("ggml_backend_vk", r);
            return false;
        }
    }
    std::vector<VkSemaphore>          wait_sems;
    std::vector<uint64_t>             wait_values;
    std::vector<VkPipelineStageFlags> wait_stages;
    for (const SemaphoreValue & w : waits_) {
        wait_sems.push_back(w.semaphore);
        wait_values.push_back(w.value);
        wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }
    waits_.clear();
    VkSemaphore signal_sems[2]   = {timeline_, signal.semaphore};
    uint64_t    signal_values[2] = {value_ + 1, signal.value};
    const uint32_t n_signal      = signal.semaphore != VK_NULL_HANDLE ? 2 : 1;

    VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ti.waitSemaphoreValueCount   = static_cast<uint32_t>(wait_values.size());
    ti.pWaitSemaphoreValues      = wait_values.data();
    ti.signalSemaphoreValueCount = n_signal;
    ti.pSignalSemaphoreValues    = signal_values;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ti};
    si.waitSemaphoreCount   = static_cast<uint32_t>(wait_sems.size());
    si.pWaitSemaphores      = wait_sems.data();
    si.pWaitDstStageMask    = wait_stages.data();
    si.commandBufferCount   = cmd != VK_NULL_HANDLE ? 1 : 0;
    si.pCommandBuffers      = &cmd;
    si.signalSemaphoreCount = n_signal;
    si.pSignalSemaphores    = signal_sems;
    const VkResult r        = device_.submit(si, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) {
        if (cmd != VK_NULL_HANDLE) {
            free_.push_back(cmd);
        }
        fail("ggml_backend_vk_submit", r);
        return false;
    }
    ++value_;
    if (cmd != VK_NULL_HANDLE) {
        in_flight_.push_back({cmd, value_});
    }
    return true;
}

bool Stream::synchronize() {
    if (!flush()) {
        return false;
    }
    if (value_ > 0) {
        VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores    = &timeline_;
        wi.pValues        = &value_;
        const VkResult r  = vkWaitSemaphores(device_.handle(), &wi, UINT64_MAX);
        if (r != VK_SUCCESS) {
            fail("ggml_backend_synchronize", r);
            return false;
        }
    }
    for (const Submitted & s : in_flight_) {
        free_.push_back(s.cmd);
    }
    in_flight_.clear();
    for (auto & f : after_sync_) {
        f();
    }
    after_sync_.clear();
    for (StagingChunk & c : staging_) {
        c.used = 0;
    }
    for (Allocation & a : retired_) {
        device_.release(a);
    }
    retired_.clear();
    return true;
}

bool Stream::stage(size_t size, VkBuffer & buffer, VkDeviceSize & offset, void *& host) {
    const VkDeviceSize need = (size + 63) & ~VkDeviceSize(63);
    StagingChunk *     chunk = nullptr;
    for (StagingChunk & c : staging_) {
        if (c.alloc.size - c.used >= need) {
            chunk = &c;
            break;
        }
    }
    if (chunk == nullptr) {
        StagingChunk c;
        if (!device_.allocate(std::max(need, kStagingChunk), MemoryKind::Readback, c.alloc, "ggml_backend_vk_staging")) {
            fail("ggml_backend_vk_staging", VK_ERROR_OUT_OF_HOST_MEMORY);
            return false;
        }
        staging_.push_back(c);
        chunk = &staging_.back();
    }
    buffer = chunk->alloc.buffer;
    offset = chunk->used;
    host   = static_cast<uint8_t *>(chunk->alloc.mapped) + chunk->used;
    chunk->used += need;
    return true;
}

bool Stream::scratch(int slot, size_t size, VkBuffer & buffer) {
    Allocation & a = scratch_[slot];
    if (a.size < size) {
        if (a.buffer != VK_NULL_HANDLE) {
            retired_.push_back(a); // recorded commands may still use it
            a = Allocation{};
        }
        if (!device_.allocate(std::max<size_t>(size, 1 << 20), MemoryKind::DeviceLocal, a, "ggml_backend_vk_scratch")) {
            fail("ggml_backend_vk_scratch", VK_ERROR_OUT_OF_DEVICE_MEMORY);
            return false;
        }
    }
    buffer = a.buffer;
    return true;
}

void Stream::order(const std::vector<MemoryRange> & reads, const std::vector<MemoryRange> & writes) {
    bool hazard = false;
    for (const MemoryRange & r : reads) {
        hazard = hazard || any_overlap(writes_, r);
    }
    for (const MemoryRange & w : writes) {
        hazard = hazard || any_overlap(writes_, w) || any_overlap(reads_, w);
    }
    if (hazard && current_ != VK_NULL_HANDLE) {
        VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
        b.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
        vkCmdPipelineBarrier(current_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                             1, &b, 0, nullptr, 0, nullptr);
        reads_.clear();
        writes_.clear();
    }
    reads_.insert(reads_.end(), reads.begin(), reads.end());
    writes_.insert(writes_.end(), writes.begin(), writes.end());
}

void Stream::barrier_all() {
    if (current_ != VK_NULL_HANDLE) {
        full_barrier(current_);
    }
    reads_.clear();
    writes_.clear();
}

} // namespace switchyard::vulkan
