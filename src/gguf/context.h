// The in-memory GGUF file: key-value pairs and tensor infos, with the layout of the data section (alignment and
// each tensor's offset) kept consistent as keys and tensors change. The reader (reader.cpp) builds one from a
// source, the writer (writer.cpp) serialises one, and the C functions of gguf.h (api_*.cpp) are shims over it.
//
// Invariants, kept by every mutating method: keys are non-empty and unique; tensor names are unique; the
// alignment is a power of 2 and equals "general.alignment" when that key is set; tensor i's offset is tensor
// i-1's offset plus its size rounded up to the alignment (the first at 0), and no offset or end overflows.
// Methods that can fail log "[caller] ..." and return false, leaving the context as it was.
#pragma once

#include "gguf/value.h"

#include "ggml.h"
#include "gguf.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace switchyard::gguf {

struct TensorInfo {
    // name, type, ne and contiguous nb; data / buffer / view_src say where the bytes to write are (a copy of the
    // tensor given to gguf_add_tensor, or pointers into the data read from a file); everything else zero
    ggml_tensor t;
    size_t      size;   // bytes in the file (of the packed layout), without padding
    uint64_t    offset; // from the start of the data section
};

// The most bytes a data section may span (tensor offsets and ends stay below it), as a tensor's size: so that
// sizes and offsets fit a ptrdiff_t.
constexpr uint64_t kMaxDataBytes = PTRDIFF_MAX;

// x rounded up to a multiple of the power of 2 `alignment`; std::nullopt on overflow
std::optional<uint64_t> align_up(uint64_t x, uint64_t alignment);

// The largest alignment accepted (in files and from gguf_set_val_u32): each tensor and the metadata may be padded
// by up to alignment - 1 bytes, so a larger one lets a tiny file demand gigabytes of padding. Upstream accepts
// any power of 2; files use 32 (the default) to a page (4096).
constexpr uint32_t kMaxAlignment = uint32_t{1} << 20;

// a power of 2 no larger than kMaxAlignment
inline bool is_valid_alignment(uint64_t x) {
    return x != 0 && (x & (x - 1)) == 0 && x <= kMaxAlignment;
}

// The bytes of a contiguous tensor of `type` with extents ne (4 of them); std::nullopt for an unknown type, an
// extent < 0, ne[0] not a whole number of blocks, or a size that overflows (logged by none of these: callers
// report them with their context)
std::optional<size_t> tensor_bytes(int type, const int64_t * ne);

class Context {
public:
    Context() = default;

    // A context read from a file: the parts were validated by the reader (unique keys and names, alignment
    // matching the key, offsets laid out as above). data_offset is where the data section began in the file.
    static void adopt(Context & ctx, uint32_t version, std::vector<KeyValue> kv, std::vector<TensorInfo> tensors,
                      size_t alignment, size_t data_offset);

    uint32_t version() const { return version_; }
    size_t   alignment() const { return alignment_; }
    size_t   data_offset() const { return data_offset_; }

    const std::vector<KeyValue> &   kv() const { return kv_; }
    const std::vector<TensorInfo> & tensors() const { return tensors_; }

    int64_t find_key(const char * key) const;     // -1 if absent
    int64_t find_tensor(const char * name) const; // -1 if absent

    // Sets key to value (any existing key of that name is removed first; the new pair goes last). Checks the
    // reserved key "general.alignment" (u32, a power of 2) and re-lays the tensors out for it.
    bool set(const char * caller, const char * key, Value value);
    // Returns the id the key had, -1 if absent. Removing "general.alignment" restores the default alignment.
    int64_t remove_key(const char * key);

    // Appends a copy of tensor at the next aligned offset; refused for a duplicate name, an invalid type or
    // shape, or a size that overflows.
    bool add_tensor(const char * caller, const ggml_tensor & tensor);
    // Changes a tensor's type (and strides) and moves the offsets of the tensors after it; when the size changes
    // the tensor's data is dropped. Refused when ne[0] is not a whole number of blocks of the new type.
    bool set_tensor_type(const char * caller, int64_t tensor_id, int type);
    void set_tensor_data(int64_t tensor_id, const void * data);

private:
    // Offsets for all tensors with the given alignment, in order; std::nullopt if an end overflows.
    std::optional<std::vector<uint64_t>> layout(size_t alignment) const;
    bool relayout(const char * caller, size_t alignment);

    uint32_t                version_     = GGUF_VERSION;
    std::vector<KeyValue>   kv_;
    std::vector<TensorInfo> tensors_;
    size_t                  alignment_   = GGUF_DEFAULT_ALIGNMENT;
    size_t                  data_offset_ = 0;
};

} // namespace switchyard::gguf

// The C API's opaque handle is the context itself.
struct gguf_context : switchyard::gguf::Context {};
