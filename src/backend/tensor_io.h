// Checked tensor data access for code inside the library. The extern "C" functions of ggml-backend.h
// (ggml_backend_tensor_set, ..._get, ..._copy) are thin shims over these; library code that needs to know
// whether a transfer happened (graph copy, the scheduler) calls these directly.
//
// Every function validates its request (tensor allocated, in a buffer, offset + size within ggml_nbytes, and
// the bytes touched inside the buffer's memory when the buffer has a base address), logs a message naming
// `caller` when it is not valid and returns false without touching any memory.
#pragma once

#include "ggml-backend.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::backend {

// The buffer that holds a tensor's data: the view source's buffer for views; NULL if not allocated.
ggml_backend_buffer_t tensor_buffer(const ggml_tensor * tensor);

// Same type, extents and strides (the condition for a byte-wise copy).
bool same_layout(const ggml_tensor * a, const ggml_tensor * b);

// True if `size` bytes at `offset` of an allocated tensor are in range, both of the tensor and of its buffer
// (logged otherwise). Overflow-safe.
bool check_range(const ggml_tensor * tensor, size_t offset, size_t size, const char * caller);

// Same for n_copies blocks of `size` bytes, stride_tensor apart, starting at offset.
bool check_range_2d(const ggml_tensor * tensor, size_t offset, size_t size, size_t n_copies, size_t stride_tensor,
                    const char * caller);

// Blocking transfers; size 0 succeeds without touching anything.
bool tensor_set(ggml_tensor * tensor, const void * data, size_t offset, size_t size, const char * caller);
bool tensor_get(const ggml_tensor * tensor, void * data, size_t offset, size_t size, const char * caller);
bool tensor_memset(ggml_tensor * tensor, uint8_t value, size_t offset, size_t size, const char * caller);

// Copies src's data into dst (same layout, any buffers): through host memory when either side is host
// memory, else the destination buffer's cpy_tensor, else a temporary host bounce buffer.
bool tensor_copy(const ggml_tensor * src, ggml_tensor * dst, const char * caller);

} // namespace switchyard::backend
