#include "gguf/context.h"

#include "base/log.h"
#include "core/tensor.h"
#include "quant/types.h"

#include <cinttypes>
#include <cstring>

namespace switchyard::gguf {

std::optional<uint64_t> align_up(uint64_t x, uint64_t alignment) {
    uint64_t sum = 0;
    if (__builtin_add_overflow(x, alignment - 1, &sum)) {
        return std::nullopt;
    }
    return sum & ~(alignment - 1);
}

std::optional<size_t> tensor_bytes(int type, const int64_t * ne) {
    if (!is_valid_type(type)) {
        return std::nullopt;
    }
    const TypeInfo & info = type_info(static_cast<ggml_type>(type));
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (ne[i] < 0) {
            return std::nullopt;
        }
    }
    if (info.blck_size <= 0 || ne[0] % info.blck_size != 0) {
        return std::nullopt;
    }
    const std::optional<PackedSize> size = packed_size(static_cast<ggml_type>(type), GGML_MAX_DIMS, ne);
    // ggml_nbytes multiplies ne[0] by the block's bytes before dividing by the block size: that product must
    // not overflow either, or ggml_nbytes of the tensor made from this info would disagree with its size
    size_t row_product = 0;
    if (!size || __builtin_mul_overflow(static_cast<size_t>(ne[0]), info.type_size, &row_product)) {
        return std::nullopt;
    }
    return size->nbytes;
}

namespace {

// contiguous strides for t's type and extents (valid: tensor_bytes accepted them)
void set_contiguous_strides(ggml_tensor & t) {
    const TypeInfo & info = type_info(t.type);
    t.nb[0]               = info.type_size;
    t.nb[1]               = info.type_size * static_cast<size_t>(t.ne[0] / info.blck_size);
    for (int i = 2; i < GGML_MAX_DIMS; ++i) {
        t.nb[i] = t.nb[i - 1] * static_cast<size_t>(t.ne[i - 1]);
    }
}

} // namespace

void Context::adopt(Context & ctx, uint32_t version, std::vector<KeyValue> kv, std::vector<TensorInfo> tensors,
                    size_t alignment, size_t data_offset) {
    ctx.version_     = version;
    ctx.kv_          = std::move(kv);
    ctx.tensors_     = std::move(tensors);
    ctx.alignment_   = alignment;
    ctx.data_offset_ = data_offset;
}

int64_t Context::find_key(const char * key) const {
    for (size_t i = 0; i < kv_.size(); ++i) {
        if (kv_[i].key == key) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

int64_t Context::find_tensor(const char * name) const {
    for (size_t i = 0; i < tensors_.size(); ++i) {
        if (std::strcmp(tensors_[i].t.name, name) == 0) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

std::optional<std::vector<uint64_t>> Context::layout(size_t alignment) const {
    std::vector<uint64_t> offsets(tensors_.size());
    uint64_t              next = 0;
    for (size_t i = 0; i < tensors_.size(); ++i) {
        offsets[i]                        = next;
        uint64_t                      end = 0;
        if (__builtin_add_overflow(next, tensors_[i].size, &end)) {
            return std::nullopt;
        }
        const std::optional<uint64_t> padded = align_up(end, alignment);
        if (!padded || *padded > kMaxDataBytes) {
            return std::nullopt;
        }
        next = *padded;
    }
    return offsets;
}

bool Context::relayout(const char * caller, size_t alignment) {
    const std::optional<std::vector<uint64_t>> offsets = layout(alignment);
    if (!offsets) {
        log_error("[%s] the tensor data would not fit in %zu bytes with alignment %zu\n", caller,
                  static_cast<size_t>(kMaxDataBytes), alignment);
        return false;
    }
    for (size_t i = 0; i < tensors_.size(); ++i) {
        tensors_[i].offset = (*offsets)[i];
    }
    alignment_ = alignment;
    return true;
}

bool Context::set(const char * caller, const char * key, Value value) {
    if (key == nullptr || key[0] == '\0') {
        log_error("[%s] the key is %s\n", caller, key == nullptr ? "NULL" : "empty");
        return false;
    }
    const bool is_alignment = std::strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0;
    if (is_alignment) {
        if (value.type() != GGUF_TYPE_UINT32 || value.is_array()) {
            log_error("[%s] %s must be a single u32, not %s%s\n", caller, GGUF_KEY_GENERAL_ALIGNMENT,
                      value.is_array() ? "an array of " : "", type_traits(value.type()).name);
            return false;
        }
        const uint32_t alignment = value.element<uint32_t>(0);
        if (!is_valid_alignment(alignment)) {
            log_error("[%s] %s must be a power of 2 up to %" PRIu32 ", not %" PRIu32 "\n", caller,
                      GGUF_KEY_GENERAL_ALIGNMENT, kMaxAlignment, alignment);
            return false;
        }
        if (!relayout(caller, alignment)) {
            return false;
        }
    }
    KeyValue entry{std::string(key), std::move(value)};
    const int64_t old = find_key(key);
    if (old >= 0) {
        kv_.erase(kv_.begin() + old);
    }
    kv_.push_back(std::move(entry));
    return true;
}

int64_t Context::remove_key(const char * key) {
    const int64_t id = find_key(key);
    if (id < 0) {
        return -1;
    }
    if (std::strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0) {
        // the default alignment never needs more room than a larger one did
        relayout("gguf_remove_key", GGUF_DEFAULT_ALIGNMENT);
    }
    kv_.erase(kv_.begin() + id);
    return id;
}

bool Context::add_tensor(const char * caller, const ggml_tensor & tensor) {
    if (std::memchr(tensor.name, '\0', sizeof(tensor.name)) == nullptr) {
        log_error("[%s] the tensor's name is not NUL-terminated within %d bytes\n", caller, GGML_MAX_NAME);
        return false;
    }
    if (find_tensor(tensor.name) >= 0) {
        log_error("[%s] duplicate tensor name '%s'\n", caller, tensor.name);
        return false;
    }
    const int                   type = raw_enum(tensor.type);
    const std::optional<size_t> size = tensor_bytes(type, tensor.ne);
    if (!size) {
        log_error("[%s] tensor '%s': invalid type %d or shape [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                  "], or its size overflows\n",
                  caller, tensor.name, type, tensor.ne[0], tensor.ne[1], tensor.ne[2], tensor.ne[3]);
        return false;
    }
    uint64_t offset = 0;
    if (!tensors_.empty()) {
        const TensorInfo &            last = tensors_.back();
        uint64_t                      end  = 0;
        const bool                    ok   = !__builtin_add_overflow(last.offset, last.size, &end);
        const std::optional<uint64_t> next = ok ? align_up(end, alignment_) : std::nullopt;
        if (!next || *next > kMaxDataBytes || *size > kMaxDataBytes - *next) {
            log_error("[%s] tensor '%s': the data section would exceed %zu bytes\n", caller, tensor.name,
                      static_cast<size_t>(kMaxDataBytes));
            return false;
        }
        offset = *next;
    }
    tensors_.push_back(TensorInfo{tensor, *size, offset});
    return true;
}

bool Context::set_tensor_type(const char * caller, int64_t tensor_id, int type) {
    TensorInfo &                info = tensors_[static_cast<size_t>(tensor_id)];
    const std::optional<size_t> size = tensor_bytes(type, info.t.ne);
    if (!size) {
        log_error("[%s] tensor '%s' of %" PRId64 " elements per row cannot have type %d (%s): unknown type, "
                  "not a whole number of blocks, or a size that overflows\n",
                  caller, info.t.name, info.t.ne[0], type,
                  is_valid_type(type) ? ggml_type_name(static_cast<ggml_type>(type)) : "?");
        return false;
    }
    const TensorInfo before = info;
    info.t.type             = static_cast<ggml_type>(type);
    info.size               = *size;
    set_contiguous_strides(info.t);
    if (!relayout(caller, alignment_)) {
        info = before;
        return false;
    }
    if (info.size != before.size) {
        // the old bytes are no longer this tensor's data
        set_tensor_data(tensor_id, nullptr);
    }
    return true;
}

void Context::set_tensor_data(int64_t tensor_id, const void * data) {
    ggml_tensor & t = tensors_[static_cast<size_t>(tensor_id)].t;
    t.data          = const_cast<void *>(data);
    t.buffer        = nullptr;
    t.view_src      = nullptr;
    t.view_offs     = 0;
}

} // namespace switchyard::gguf
