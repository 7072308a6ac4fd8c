#pragma once

// Switchyard: placing tensors in backend buffers (source-compatible with upstream ggml's ggml-alloc.h).
//
//   ggml_tallocr   a bump allocator: tensors one after another in one existing buffer (weights, KV cache)
//   ggml_gallocr   the graph allocator: plans where every tensor of a compute graph lives so that tensors whose
//                  lifetimes do not overlap share memory, reserves buffers of the planned size (one set per
//                  buffer type), and places later graphs of the same shape without reallocating
//
// Tensor flags the graph allocator honours: inputs (ggml_set_input) get distinct memory allocated before
// anything else; outputs (ggml_set_output) are never freed or reused. Tensors that already have data or a
// buffer, and views, are left where they are.

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
typedef struct ggml_backend * ggml_backend_t;

//
// Tensor allocator
//

// State of a bump allocation inside `buffer`: the next tensor goes at base + offset, rounded up to alignment.
struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void * base;
    size_t alignment;
    size_t offset;
};

// start at the beginning of buffer (which stays owned by the caller)
GGML_API struct ggml_tallocr    ggml_tallocr_new(ggml_backend_buffer_t buffer);
// place tensor at the next aligned offset and initialize it in the buffer; a failure status (logged) when it
// does not fit
GGML_API enum ggml_status       ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor);

//
// Graph allocator
//
// Typical use:
//   ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
//   ggml_gallocr_reserve(galloc, worst_case_graph);   // optional: size the buffer once
//   ggml_gallocr_alloc_graph(galloc, graph);          // place the tensors of each graph to compute
//   ggml_backend_graph_compute(backend, graph);

typedef struct ggml_gallocr * ggml_gallocr_t;

// one buffer (type) / n buffers, one per buffer type; NULL (logged) on failure. Free with ggml_gallocr_free,
// which also releases the reserved buffers.
GGML_API ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft);
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free(ggml_gallocr_t galloc);

// Plan graph and (re)allocate buffers large enough for it; the graph itself is not modified. Reserving with
// the largest graph you will use avoids reallocations later. node_buffer_ids / leaf_buffer_ids give, per node
// / leaf, which of the allocator's buffers it goes to (NULL: buffer 0). False (logged) if a buffer cannot be
// allocated.
GGML_API bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids);

// Plan like ggml_gallocr_reserve_n but allocate nothing: write to sizes[i] the size buffer i would need.
GGML_API void ggml_gallocr_reserve_n_size(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids,
    size_t * sizes);

// Place the graph's tensors in the reserved buffers. With a single buffer it re-plans and grows the buffer by
// itself when the graph no longer fits the plan; with several buffers that case returns false (call
// ggml_gallocr_reserve_n first).
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

// current size in bytes of buffer buffer_id; 0 if it is not allocated, or if it shares its buffer type (and so
// its memory) with a lower id, so that summing over ids counts each buffer once
GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

//
// Whole contexts
//

// Allocate every tensor of ctx that has no data yet in new buffers of buft (several buffers, combined into a
// multi-buffer, when they exceed the buffer type's max size) and initialize its views. Returns NULL on failure
// and also when nothing needed memory; the caller owns the result. The _size variant returns the bytes this
// would allocate without allocating.
GGML_API size_t                       ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
// = ggml_backend_alloc_ctx_tensors_from_buft with the backend's default buffer type
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend);

#ifdef __cplusplus
}
#endif
