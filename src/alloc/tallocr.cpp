// ggml_tallocr: tensors placed one after another in one existing buffer (weights, caches, inputs).
#include "base/log.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <cstdint>

using namespace switchyard;

namespace {

// Offset from `offset` up to the next address (base + result) aligned to `alignment`.
size_t aligned_offset(const void * base, size_t offset, size_t alignment) {
    uintptr_t address = reinterpret_cast<uintptr_t>(base) + offset;
    size_t    pad     = (alignment - address % alignment) % alignment;
    return offset + pad;
}

} // namespace

struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer) {
    struct ggml_tallocr talloc = {buffer, nullptr, 1, 0};
    if (buffer == nullptr) {
        log_error("[ggml_tallocr_new] NULL buffer\n");
        return talloc;
    }
    talloc.base      = ggml_backend_buffer_get_base(buffer);
    size_t alignment = ggml_backend_buffer_get_alignment(buffer);
    talloc.alignment = alignment == 0 ? 1 : alignment;
    talloc.offset    = aligned_offset(talloc.base, 0, talloc.alignment);
    return talloc;
}

enum ggml_status ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor) {
    if (talloc == nullptr || talloc->buffer == nullptr || tensor == nullptr) {
        log_error("[ggml_tallocr_alloc] NULL allocator, buffer or tensor\n");
        return GGML_STATUS_FAILED;
    }
    size_t size     = ggml_backend_buffer_get_alloc_size(talloc->buffer, tensor);
    size            = (size + talloc->alignment - 1) / talloc->alignment * talloc->alignment;
    size_t capacity = ggml_backend_buffer_get_size(talloc->buffer);
    if (talloc->offset > capacity || size > capacity - talloc->offset) {
        size_t available = talloc->offset < capacity ? capacity - talloc->offset : 0;
        log_error("[ggml_tallocr_alloc] not enough space in buffer '%s' for tensor '%s' (needs %zu bytes, %zu available)\n",
                  ggml_backend_buffer_name(talloc->buffer), tensor->name, size, available);
        return GGML_STATUS_ALLOC_FAILED;
    }
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(talloc->buffer));
    void * addr = base != nullptr ? base + talloc->offset : nullptr;
    enum ggml_status status = ggml_backend_tensor_alloc(talloc->buffer, tensor, addr);
    if (status == GGML_STATUS_SUCCESS) {
        talloc->offset += size;
    }
    return status;
}
