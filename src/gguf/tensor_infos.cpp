// The reader's tensor infos: name, shape, type and offset of each tensor, and the layout of the data section
// they describe.
#include "gguf/reader.h"

#include "quant/types.h"

#include <cinttypes>
#include <cstring>
#include <unordered_set>

namespace switchyard::gguf {

namespace {

bool read_name(Cursor & cursor, std::unordered_set<std::string> & seen, ggml_tensor & t) {
    const uint64_t at = cursor.pos();
    std::string    name;
    if (!cursor.read_string(name, GGML_MAX_NAME - 1, "a tensor name")) {
        return false;
    }
    if (name.find('\0') != std::string::npos) {
        return cursor.fail(at, "tensor name '%s' contains a NUL byte", name.c_str());
    }
    if (!seen.insert(name).second) {
        return cursor.fail(at, "duplicate tensor name '%s'", name.c_str());
    }
    std::memcpy(t.name, name.c_str(), name.size() + 1);
    return true;
}

bool read_shape(Cursor & cursor, ggml_tensor & t) {
    const uint64_t at     = cursor.pos();
    uint32_t       n_dims = 0;
    if (!cursor.read(n_dims, "a tensor's dimension count")) {
        return false;
    }
    if (n_dims < 1 || n_dims > GGML_MAX_DIMS) {
        return cursor.fail(at, "tensor '%s' has %" PRIu32 " dimensions (1 to %d are possible)", t.name, n_dims,
                           GGML_MAX_DIMS);
    }
    for (uint32_t i = 0; i < GGML_MAX_DIMS; ++i) {
        t.ne[i] = 1;
        if (i < n_dims) {
            const uint64_t at_ne = cursor.pos();
            if (!cursor.read(t.ne[i], "a tensor's extent")) {
                return false;
            }
            if (t.ne[i] < 0) {
                return cursor.fail(at_ne, "tensor '%s': extent %" PRIu32 " is negative (%" PRId64 ")", t.name, i,
                                   t.ne[i]);
            }
        }
    }
    return true;
}

// the type, then the size the type and shape give (checked for overflow) and contiguous strides
bool read_type(Cursor & cursor, ggml_tensor & t, size_t & size) {
    const uint64_t at   = cursor.pos();
    int32_t        type = 0;
    if (!cursor.read(type, "a tensor type")) {
        return false;
    }
    if (!is_valid_type(type)) {
        return cursor.fail(at, "tensor '%s' has unknown type %" PRId32, t.name, type);
    }
    t.type                = static_cast<ggml_type>(type);
    const TypeInfo & info = type_info(t.type);
    if (t.ne[0] % info.blck_size != 0) {
        return cursor.fail(at, "tensor '%s': rows of %" PRId64 " elements are not whole blocks of %s (%" PRId64
                           " elements)", t.name, t.ne[0], info.name, info.blck_size);
    }
    const std::optional<size_t> bytes = tensor_bytes(t.type, t.ne);
    if (!bytes) {
        return cursor.fail(at, "tensor '%s': the size of %s [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                           "] overflows", t.name, info.name, t.ne[0], t.ne[1], t.ne[2], t.ne[3]);
    }
    size     = *bytes;
    t.nb[0]  = info.type_size;
    t.nb[1]  = info.type_size * static_cast<size_t>(t.ne[0] / info.blck_size);
    for (int i = 2; i < GGML_MAX_DIMS; ++i) {
        t.nb[i] = t.nb[i - 1] * static_cast<size_t>(t.ne[i - 1]);
    }
    return true;
}

// Tensor i's data must start where the writer puts it: at `expected`, the end of the previous tensor's data
// rounded up to the alignment (0 for the first). `at` is where the offset field is. Advances expected.
bool check_offset(const Cursor & cursor, uint64_t at, const std::vector<TensorInfo> & before, const TensorInfo & ti,
                  size_t alignment, uint64_t & expected) {
    if (ti.offset % alignment != 0) {
        return cursor.fail(at, "tensor '%s': data offset %" PRIu64 " is not a multiple of the alignment %zu",
                           ti.t.name, ti.offset, alignment);
    }
    if (ti.offset < expected) {
        const TensorInfo & prev = before.back();
        return cursor.fail(at, "tensor '%s': its data at offset %" PRIu64 " overlaps the data of tensor '%s' (%"
                           PRIu64 " bytes at offset %" PRIu64 ")", ti.t.name, ti.offset, prev.t.name,
                           static_cast<uint64_t>(prev.size), prev.offset);
    }
    if (ti.offset > expected) {
        return cursor.fail(at, "tensor '%s': data offset %" PRIu64 " leaves a gap: the data must start at offset %"
                           PRIu64 ", after the previous tensor's", ti.t.name, ti.offset, expected);
    }
    uint64_t                      end  = 0;
    const bool                    ok   = !__builtin_add_overflow(ti.offset, ti.size, &end);
    const std::optional<uint64_t> next = ok ? align_up(end, alignment) : std::nullopt;
    if (!next || *next > kMaxDataBytes) {
        return cursor.fail(at, "tensor '%s': %zu bytes at offset %" PRIu64 " take the data section past %" PRIu64
                           " bytes", ti.t.name, ti.size, ti.offset, kMaxDataBytes);
    }
    expected = *next;
    return true;
}

} // namespace

bool read_tensor_infos(Cursor & cursor, int64_t n_tensors, size_t alignment, std::vector<TensorInfo> & tensors) {
    std::unordered_set<std::string> seen;
    uint64_t                        expected = 0;
    for (int64_t i = 0; i < n_tensors; ++i) {
        TensorInfo info{};
        if (!read_name(cursor, seen, info.t) || !read_shape(cursor, info.t) || !read_type(cursor, info.t, info.size)) {
            return false;
        }
        const uint64_t at = cursor.pos();
        if (!cursor.read(info.offset, "a tensor's data offset") ||
            !check_offset(cursor, at, tensors, info, alignment, expected)) {
            return false;
        }
        tensors.push_back(info);
    }
    return true;
}

} // namespace switchyard::gguf
