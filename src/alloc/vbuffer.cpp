// Chunk buffers of one allocator group.
#include "alloc/vbuffer.h"

#include "base/log.h"

namespace switchyard::alloc {

bool VBuffer::fits(const std::vector<size_t> & sizes) const {
    for (size_t c = 0; c < sizes.size(); ++c) {
        if (c >= chunks_.size() || chunks_[c] == nullptr || ggml_backend_buffer_get_size(chunks_[c]) < sizes[c]) {
            return false;
        }
    }
    return true;
}

bool VBuffer::ensure(ggml_backend_buffer_type_t buft, const std::vector<size_t> & sizes, const char * caller,
                     bool * grown) {
    *grown = false;
    if (fits(sizes)) {
        return true;
    }
    // a chunk must grow: every chunk is allocated anew at this plan's size, as upstream does (so a plan that needs
    // less in one chunk and more in another ends with the memory it needs, not the larger of both); the old ones
    // are freed first, as the old and the new buffers may not fit in device memory together
    release();
    chunks_.assign(sizes.size(), nullptr);
    for (size_t c = 0; c < sizes.size(); ++c) {
        ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(buft, sizes[c]);
        if (buffer == nullptr) {
            log_error("[%s] failed to allocate a %s buffer of %zu bytes (chunk %zu)\n", caller,
                      ggml_backend_buft_name(buft), sizes[c], c);
            return false;
        }
        ggml_backend_buffer_set_usage(buffer, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
        chunks_[c] = buffer;
        *grown     = true;
    }
    return true;
}

size_t VBuffer::total_size() const {
    size_t total = 0;
    for (ggml_backend_buffer_t buffer : chunks_) {
        if (buffer != nullptr) {
            total += ggml_backend_buffer_get_size(buffer);
        }
    }
    return total;
}

void VBuffer::reset() {
    for (ggml_backend_buffer_t buffer : chunks_) {
        if (buffer != nullptr) {
            ggml_backend_buffer_reset(buffer);
        }
    }
}

void VBuffer::release() {
    for (ggml_backend_buffer_t buffer : chunks_) {
        if (buffer != nullptr) {
            ggml_backend_buffer_free(buffer);
        }
    }
    chunks_.clear();
}

} // namespace switchyard::alloc
