// The objects behind the meta device (see ggml_backend_meta_device in ggml-backend.h):
//   MetaDevice   the simple devices, the user's split callback, the meta buffer type     (device.cpp)
//   MetaBuffer   one buffer per simple device plus a Record per tensor with own memory    (buffer.cpp, layout.cpp)
//   Record       the tensor's split state and its slice ("simple tensor") on every device
// Meta tensors carry fake data addresses (base + offset inside the meta buffer, like device memory); their
// data lives only in the slices. Views get no record: their slices are derived from the root's when needed.
#pragma once

#include "backend/meta/split_state.h"

#include "ggml-backend-impl.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace switchyard::meta {

// Metadata-only tensors (no data) in a chain of no_alloc contexts that grows on demand.
class TensorPool {
public:
    TensorPool() = default;
    ~TensorPool();
    TensorPool(const TensorPool &)             = delete;
    TensorPool & operator=(const TensorPool &) = delete;
    TensorPool(TensorPool && other) noexcept;
    TensorPool & operator=(TensorPool && other) noexcept;

    // A fresh 4-d tensor of contiguous layout; NULL (logged) when no context can be made.
    ggml_tensor * make(ggml_type type, const int64_t ne[GGML_MAX_DIMS]);
    // Forgets every tensor made so far (the contexts are kept for reuse).
    void reset();

private:
    std::vector<ggml_context *> contexts_;
    size_t                      current_ = 0;
    int                         used_    = 0;
};

struct MetaDevice {
    std::vector<ggml_backend_dev_t>          devs;
    std::vector<ggml_backend_buffer_type_t>  bufts; // each simple device's default buffer type
    ggml_backend_meta_get_split_state_t      get_split_state = nullptr;
    void *                                   user_data       = nullptr;
    std::string                              name, description, buft_name;
    ggml_backend_device                      device{};
    ggml_backend_buffer_type                 buft{};
    // empty buffers of bufts[d]: stand-ins for the meta buffers of sources when asking a device about an op
    std::array<ggml_backend_buffer, kMaxDevices> probes{};

    int n() const { return static_cast<int>(devs.size()); }
};

MetaDevice * meta_device(ggml_backend_dev_t dev);                 // NULL if dev is not a meta device
MetaDevice * meta_device_of_buft(ggml_backend_buffer_type_t buft); // NULL if buft is not a meta buffer type

// How a meta buffer places the slices of its tensors in its device buffers.
enum class Placement {
    Undecided,   // no tensor placed yet
    Packed,      // ggml_backend_alloc_ctx_tensors_from_buft: slices back to back (weights, caches)
    SameOffsets, // a buffer the caller fills (ggml_tallocr): each slice at the tensor's own offset
    Compact,     // a compute buffer (usage COMPUTE): laid out per device once the graph is placed (layout.cpp)
};

struct Record {
    SplitState                             state{};  // what the devices hold (PARTIAL: before the all-reduce)
    std::array<ggml_tensor *, kMaxDevices> simple{}; // the slices
    std::array<size_t, kMaxDevices>        size{};   // their allocation sizes, padded
    std::array<size_t, kMaxDevices>        offset{}; // their offsets in the device buffers
    size_t                                 voffset = 0; // the tensor's offset in the meta buffer
    size_t                                 vsize   = 0;
    bool                                   placed  = false;
    ggml_type                              type    = GGML_TYPE_F32; // what the record was made for
    int64_t                                ne[GGML_MAX_DIMS] = {};
};

struct MetaBuffer {
    MetaDevice *                                     dev       = nullptr;
    ggml_backend_buffer_t                            handle    = nullptr;
    uintptr_t                                        base      = 0; // fake address, never dereferenced
    Placement                                        placement = Placement::Undecided;
    std::vector<ggml_backend_buffer_t>               parts;      // per device; NULL until needed
    std::vector<size_t>                              packed_end; // Packed: bytes used per device
    std::unordered_map<const ggml_tensor *, Record>  records;
    std::vector<TensorPool>                          pools; // per device: the slices' metadata
    bool                                             needs_layout = false;

    MetaBuffer() = default;
    MetaBuffer(const MetaBuffer &)             = delete;
    MetaBuffer & operator=(const MetaBuffer &) = delete;
    ~MetaBuffer() {
        for (ggml_backend_buffer_t part : parts) {
            ggml_backend_buffer_free(part); // the device memory is the meta buffer's
        }
    }
};

// The meta buffer behind `buffer` / holding t's memory (its view source's for a view); NULL if none.
MetaBuffer * meta_buffer(ggml_backend_buffer_t buffer);
MetaBuffer * meta_buffer_of(const ggml_tensor * t);
// The record of t (a tensor with its own memory in a meta buffer); NULL if there is none or it was made for a
// different tensor at the same address.
Record * find_record(const ggml_tensor * t);
// Whether t's root lives in a meta buffer of static data (weights, caches): its split comes from the user.
bool is_static(const ggml_tensor * t);

// buffer_type.cpp / backend.cpp: the vtables of the meta buffer type, and a meta backend on dev.
ggml_backend_buffer_type_i buffer_type_interface();
ggml_backend_t             new_meta_backend(MetaDevice & dev);

// buffer.cpp: a meta buffer of `size` bytes (device memory is allocated as the placement requires).
ggml_backend_buffer_t new_meta_buffer(MetaDevice & dev, size_t size, Placement placement,
                                      const std::vector<size_t> & part_sizes);
// Points slice d of rec at its place in the device buffer and lets that buffer initialise it.
ggml_status bind_slice(MetaBuffer & buf, Record & rec, int d);

// layout.cpp: gives the slices of a Compact buffer's tensors their places, allocating or growing the device
// buffers. Needed before any data access; false (logged) when device memory runs out.
bool ensure_layout(MetaBuffer & buf);
// Bytes of device memory buffer part d holds.
size_t part_size(const MetaBuffer & buf, int d);

// transfer.cpp: blocking access to the logical bytes [offset, offset + size) of a tensor in a meta buffer
// (views through their root). Reading a PARTIAL tensor sums the devices' parts (F32, F16, BF16).
bool transfer_set(const ggml_tensor * t, const void * data, size_t offset, size_t size);
bool transfer_get(const ggml_tensor * t, void * data, size_t offset, size_t size);
bool transfer_memset(const ggml_tensor * t, uint8_t value, size_t offset, size_t size);

} // namespace switchyard::meta
