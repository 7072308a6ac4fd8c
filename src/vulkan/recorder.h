// Recording one op into a stream: operands (where a tensor's bytes are, as a descriptor window and the offset
// within it), scratch operands, and dispatch(), which orders the command after the ones it depends on (only
// where needed, see Stream::order), binds the pipeline, writes every descriptor binding and the push
// constants, and dispatches. Record functions return false when something failed (the stream is then failed).
#pragma once

#include "vulkan/split.h"
#include "vulkan/stream.h"

#include <initializer_list>

namespace switchyard::vulkan {

struct Operand {
    VkBuffer     buffer = VK_NULL_HANDLE;
    VkDeviceSize window = 0;     // descriptor offset (aligned as the device requires)
    VkDeviceSize range  = 0;     // descriptor range
    uint32_t     residual = 0;   // the tensor's first byte, relative to window
    MemoryRange  span;           // the bytes the op may touch
    bool         write  = false;
};

class Recorder {
public:
    explicit Recorder(Stream & stream) : stream_(stream), device_(stream.device()) {}

    Device & device() { return device_; }
    Stream & stream() { return stream_; }

    // The operand of a tensor read / written by the op. t must be in a Vulkan buffer of this device, and its bytes
    // within one window (Device::max_window); otherwise the stream fails.
    Operand in(const ggml_tensor * t) { return operand(t, false); }
    Operand out(const ggml_tensor * t) { return operand(t, true); }
    // Scratch memory of `size` bytes (slot 0 or 1), written (write = true) or read by the op; buffer is
    // VK_NULL_HANDLE after a failure.
    Operand scratch(int slot, size_t size, bool write);

    // Dispatches groups (x, y, z) of `family` specialised with spec. push: at most kPushConstantBytes.
    bool dispatch(const char * family, std::initializer_list<uint32_t> spec, std::initializer_list<Operand> operands,
                  const void * push, size_t push_size, uint32_t gx, uint32_t gy = 1, uint32_t gz = 1);

    // Splits n work items of `per_group` each into a group count (x, y) within the device's limits.
    void groups_for(uint64_t n, uint32_t per_group, uint32_t & gx, uint32_t & gy) const;

    uint32_t subgroup_size() const { return device_.physical().subgroup_size; }

    // The window of a gathered source dimension of `ne` indices the node being recorded computes (split.h):
    // all of it, {0, ne, ne}, unless the node is a part of a larger one.
    GatherWindow gather(int64_t ne) const { return gather_.total > 0 ? gather_ : GatherWindow{0, ne, ne}; }
    void         set_gather(const GatherWindow & window) { gather_ = window; }

private:
    Operand operand(const ggml_tensor * t, bool write);

    Stream &     stream_;
    Device &     device_;
    GatherWindow gather_;
};

// Element offset of an operand (residual / element size) and strides in elements, for push constants.
inline uint32_t elements(uint64_t bytes, size_t element_size) { return static_cast<uint32_t>(bytes / element_size); }

} // namespace switchyard::vulkan
