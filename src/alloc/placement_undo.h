// Roll-back for allocating a context's tensors (ggml_backend_alloc_ctx_tensors* and the meta device's version).
// Such a call places tensors one by one; when a later step fails (a buffer that cannot be had, a view of a tensor
// without memory, the multi-buffer that would own the parts), every tensor it already placed must lose its
// buffer and data pointer again, or a retry would skip it as "already allocated" and then use freed memory.
//
// PlacementUndo remembers, at construction, the placement of every tensor of the context that has no buffer yet,
// and restores exactly that in its destructor unless commit() was called. Buffers are owned by BufferPtr, so a
// failing path frees them by returning (BufferPtr in base/owners.h).
#pragma once

#include "ggml-backend.h"

#include <vector>

namespace switchyard::alloc {

class PlacementUndo {
public:
    explicit PlacementUndo(ggml_context * ctx) {
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
            if (t->buffer == nullptr) {
                saved_.push_back({t, t->data, t->extra});
            }
        }
    }
    PlacementUndo(const PlacementUndo &)             = delete;
    PlacementUndo & operator=(const PlacementUndo &) = delete;
    ~PlacementUndo() {
        if (committed_) {
            return;
        }
        for (const Saved & s : saved_) {
            s.tensor->buffer = nullptr;
            s.tensor->data   = s.data;
            s.tensor->extra  = s.extra;
        }
    }

    // The allocation succeeded: keep every placement.
    void commit() { committed_ = true; }

private:
    struct Saved {
        ggml_tensor * tensor;
        void *        data;
        void *        extra;
    };
    std::vector<Saved> saved_;
    bool               committed_ = false;
};

} // namespace switchyard::alloc
