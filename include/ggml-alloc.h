#pragma once

// Switchyard: memory planning for tensors in backend buffers.
//   ggml_tallocr: a bump allocator placing tensors one after another in one buffer.
//   ggml_gallocr: the graph allocator. It plans where every tensor of a compute graph lives so that tensors
//   whose lifetimes do not overlap share memory, reserves buffers of the planned size (one per buffer type),
//   and places the tensors of later graphs of the same shape without reallocating.

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
typedef struct ggml_backend * ggml_backend_t;

// Tensor allocator: places tensors one after another in `buffer`, aligned to the buffer's alignment.
struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void * base;
    size_t alignment;
    size_t offset;
};

GGML_API struct ggml_tallocr    ggml_tallocr_new(ggml_backend_buffer_t buffer);
// GGML_STATUS_ALLOC_FAILED (with a logged message) when the tensor does not fit
GGML_API enum ggml_status       ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor);

// Graph allocator.
// Typical use: reserve with the largest graph once (optional), then ggml_gallocr_alloc_graph for every graph;
// it reallocates the buffers when a graph needs more than was reserved.
typedef struct ggml_gallocr * ggml_gallocr_t;

GGML_API ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft);
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free(ggml_gallocr_t galloc);

// Plans the graph and allocates buffers large enough for it. node_buffer_ids/leaf_buffer_ids pick the buffer
// (type) of each node/leaf; NULL means buffer 0. False (with a logged message) if a buffer cannot be allocated.
GGML_API bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids);

// Plans like ggml_gallocr_reserve_n but allocates nothing: writes the size each buffer would need to sizes[].
GGML_API void ggml_gallocr_reserve_n_size(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids,
    size_t * sizes);

// Places the graph's tensors in the reserved buffers (re-reserving if needed, with a single buffer).
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

// Allocates every tensor of ctx that has no data in buffers of buft (several buffers, combined into one
// multi-buffer, when they exceed the buffer type's max size). NULL on failure or when nothing needed memory.
GGML_API size_t                       ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend);

#ifdef __cplusplus
}
#endif
