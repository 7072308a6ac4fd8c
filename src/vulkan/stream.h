// A stream: the command buffers of one backend, recorded on the host and submitted to the device's queue in
// order, with a timeline semaphore counting submissions. It owns the staging memory of asynchronous transfers
// (valid until synchronize), the scratch buffers of ops, the host copies that run after synchronize, and the
// stream's sticky error: after a device failure every later call reports it until the backend is freed.
//
// Hazards: the stream remembers which byte ranges were read and written since the last barrier; dispatch()
// (recorder.h) inserts a barrier only when a new command reads what an earlier one wrote, or writes what an
// earlier one read or wrote.
//
// Not thread-safe: one backend is used from one thread at a time (as every ggml backend).
#pragma once

#include "vulkan/device.h"

#include "ggml.h"

#include <deque>
#include <functional>
#include <vector>

namespace switchyard::vulkan {

struct MemoryRange {
    VkBuffer     buffer = VK_NULL_HANDLE;
    VkDeviceSize begin = 0, end = 0;
};

struct SemaphoreValue {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    uint64_t    value     = 0;
};

class Stream {
public:
    explicit Stream(Device & device);
    ~Stream();
    Stream(const Stream &)             = delete;
    Stream & operator=(const Stream &) = delete;

    bool init(); // false (logged) when the command pool or semaphore cannot be made

    Device & device() { return device_; }

    // The command buffer being recorded, begun (with a full barrier) on demand; nullptr after a failure.
    VkCommandBuffer cmd();
    // Submits what was recorded (possibly nothing), also signalling `signal` when given; false on failure.
    bool flush(SemaphoreValue signal = {});
    // Makes the next submission wait for `wait`.
    void wait_for(SemaphoreValue wait) { waits_.push_back(wait); }
    // flush, wait for all submissions, run the deferred host copies, recycle staging and scratch memory
    bool synchronize();

    // Host-visible staging memory for an asynchronous transfer, valid until synchronize.
    bool stage(size_t size, VkBuffer & buffer, VkDeviceSize & offset, void *& host);
    // Runs f on the host after the next synchronize has waited for the device.
    void after_sync(std::function<void()> f) { after_sync_.push_back(std::move(f)); }
    // Device scratch memory of at least size bytes for slot (0 or 1), valid while the stream's work runs; the
    // previous scratch of a slot that has to grow is kept until synchronize.
    bool scratch(int slot, size_t size, VkBuffer & buffer);

    // Hazard tracking: inserts a compute barrier when needed before a command that reads `reads` and writes
    // `writes`, then records them.
    void order(const std::vector<MemoryRange> & reads, const std::vector<MemoryRange> & writes);
    // A full barrier (before and after transfers); forgets the tracked ranges.
    void barrier_all();

    ggml_status error() const { return error_; }
    // Makes the stream fail from now on (sticky), logging what failed.
    void fail(const char * what, VkResult r);

private:
    struct Submitted {
        VkCommandBuffer cmd;
        uint64_t        value;
    };
    struct StagingChunk {
        Allocation   alloc;
        VkDeviceSize used = 0;
    };

    VkCommandBuffer next_command_buffer();

    Device &                     device_;
    VkCommandPool                pool_     = VK_NULL_HANDLE;
    VkSemaphore                  timeline_ = VK_NULL_HANDLE;
    uint64_t                     value_    = 0; // last value signalled by a submission
    VkCommandBuffer              current_  = VK_NULL_HANDLE;
    std::deque<Submitted>        in_flight_;
    std::vector<VkCommandBuffer> free_;
    std::vector<SemaphoreValue>  waits_;
    std::vector<StagingChunk>    staging_;
    Allocation                   scratch_[2];
    std::vector<Allocation>      retired_; // released at synchronize
    std::vector<std::function<void()>> after_sync_;
    std::vector<MemoryRange>     reads_, writes_;
    ggml_status                  error_ = GGML_STATUS_SUCCESS;
};

} // namespace switchyard::vulkan
