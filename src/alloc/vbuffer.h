// A virtual buffer: the backend buffers holding one allocator group's planned chunks, chunk c in buffer c.
// Owned by the graph allocator; buffers are reallocated only when a plan needs a chunk to be larger (then all of
// them, at the plan's sizes).
#pragma once

#include "ggml-backend.h"

#include <cstddef>
#include <vector>

namespace switchyard::alloc {

class VBuffer {
public:
    // Makes chunk c at least sizes[c] bytes for every c (a zero-size buffer for size 0). Chunks that already fit
    // are kept, larger or extra ones included; when one must grow, every chunk is allocated anew at exactly
    // sizes[c], as upstream does. False, with a logged message naming `caller`, when an allocation fails (the
    // failed chunk is then absent). *grown tells whether any buffer was (re)allocated.
    bool ensure(ggml_backend_buffer_type_t buft, const std::vector<size_t> & sizes, const char * caller,
                bool * grown);

    // Whether every chunk of `sizes` exists and is large enough.
    bool fits(const std::vector<size_t> & sizes) const;

    ggml_backend_buffer_t chunk(size_t c) const { return c < chunks_.size() ? chunks_[c] : nullptr; }
    size_t                n_chunks() const { return chunks_.size(); }
    size_t                total_size() const;
    bool                  empty() const { return chunks_.empty(); }

    // Drops per-tensor state of every chunk before tensors are placed anew (ggml_backend_buffer_reset).
    void reset();
    // Frees every chunk.
    void release();

private:
    std::vector<ggml_backend_buffer_t> chunks_;
};

} // namespace switchyard::alloc
