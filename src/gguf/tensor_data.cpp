// The reader's last step: the ggml_context that gguf_init_params.ctx asks for, one tensor per tensor info, and
// with no_alloc false the data section read into one blob tensor that the others point into. Every size is
// checked before it is allocated: the data must be in the source (for a callback, its last byte is read first),
// so a header that declares terabytes of tensors in a small file is refused instead of allocated.
#include "gguf/reader.h"

#include "ggml.h"

#include <cinttypes>
#include <cstring>

namespace switchyard::gguf {

namespace {

// bytes of the ggml_context: tensor objects (plus the blob's) and, with data, the data section
bool context_size(size_t n_tensors, bool with_data, uint64_t data_size, size_t & mem) {
    const size_t n_objects = n_tensors + (with_data ? 1 : 0);
    return !__builtin_mul_overflow(n_objects, ggml_tensor_overhead(), &mem) &&
           !(with_data && __builtin_add_overflow(mem, data_size, &mem));
}

// the data [data_offset, data_offset + data_end) is inside the source, and the source can deliver its last byte
bool check_data_present(Cursor & cursor, uint64_t data_offset, uint64_t data_end) {
    Source & source = cursor.source();
    if (data_offset > source.end() || data_end > source.end() - data_offset) {
        return cursor.fail(data_offset, "the tensor data (%" PRIu64 " bytes from offset %" PRIu64
                           ") extends past the end of the file (%" PRIu64 " bytes)", data_end, data_offset,
                           source.end());
    }
    uint8_t last = 0;
    if (data_end > 0 && !source.read(data_offset + data_end - 1, &last, 1)) {
        return cursor.fail(data_offset + data_end - 1, "cannot read the last byte of the tensor data: the source "
                           "ends before the %" PRIu64 " bytes of tensor data do", data_end);
    }
    return true;
}

// the blob tensor holding the whole data section, filled from the source (the padding after the last tensor may
// be missing from a file: it is zeroed)
ggml_tensor * read_blob(Cursor & cursor, ggml_context * ctx, uint64_t data_offset, uint64_t data_end,
                        uint64_t data_size) {
    ggml_tensor * blob = ggml_new_tensor_1d(ctx, GGML_TYPE_I8, static_cast<int64_t>(data_size));
    if (blob == nullptr) {
        cursor.fail(data_offset, "cannot create the tensor holding the %" PRIu64 " bytes of tensor data", data_size);
        return nullptr;
    }
    ggml_set_name(blob, "GGUF tensor data binary blob");
    auto * bytes = static_cast<uint8_t *>(blob->data);
    if (!cursor.source().read(data_offset, bytes, static_cast<size_t>(data_end))) {
        cursor.fail(data_offset, "cannot read the %" PRIu64 " bytes of tensor data", data_end);
        return nullptr;
    }
    if (data_size > data_end) {
        std::memset(bytes + data_end, 0, static_cast<size_t>(data_size - data_end));
    }
    return blob;
}

} // namespace

bool load_tensors(Cursor & cursor, std::vector<TensorInfo> & tensors, uint64_t data_offset, size_t alignment,
                  const gguf_init_params & params) {
    if (params.ctx == nullptr) {
        return true;
    }
    const bool     with_data = !params.no_alloc;
    const uint64_t data_end  = tensors.empty() ? 0 : tensors.back().offset + tensors.back().size;
    // read_tensor_infos checked that the padded end fits kMaxDataBytes
    const uint64_t data_size = align_up(data_end, alignment).value_or(data_end);
    size_t         mem       = 0;
    if (!context_size(tensors.size(), with_data, data_size, mem)) {
        return cursor.fail(data_offset, "the ggml context for %zu tensors would overflow the address space",
                           tensors.size());
    }
    if (with_data && !check_data_present(cursor, data_offset, data_end)) {
        return false;
    }
    ggml_context * ctx = ggml_init(ggml_init_params{mem, nullptr, params.no_alloc});
    if (ctx == nullptr) {
        return cursor.fail(data_offset, "cannot allocate %zu bytes for the ggml context of %zu tensors", mem,
                           tensors.size());
    }
    *params.ctx = ctx; // the caller frees it if a later step fails

    ggml_tensor * blob = with_data ? read_blob(cursor, ctx, data_offset, data_end, data_size) : nullptr;
    if (with_data && blob == nullptr) {
        return false;
    }
    ggml_set_no_alloc(ctx, true);
    for (TensorInfo & info : tensors) {
        ggml_tensor * t = ggml_new_tensor(ctx, info.t.type, GGML_MAX_DIMS, info.t.ne);
        if (t == nullptr) {
            return cursor.fail(data_offset, "cannot create tensor '%s' in the ggml context", info.t.name);
        }
        ggml_set_name(t, info.t.name);
        if (blob != nullptr) {
            t->data = static_cast<uint8_t *>(blob->data) + info.offset;
            // the context keeps pointing at the bytes, so that it can be written back
            info.t.data = t->data;
        }
    }
    ggml_set_no_alloc(ctx, params.no_alloc);
    return true;
}

} // namespace switchyard::gguf
