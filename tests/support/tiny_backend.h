// TINY: the smallest useful out-of-tree backend, written only against the public headers (ggml.h,
// ggml-backend-impl.h) to show, and test, that a backend needs nothing else from the library.
//   - one device per reg; its buffer type is not host memory: a buffer's bytes live in a std::vector and its
//     base is a fake address, so tensor data is reachable only through the buffer interface;
//   - its backend computes GGML_OP_NONE and the view ops (nothing to do) and ADD of F32 tensors (a scalar
//     loop with broadcasting of src1) itself, synchronously; no events, no async I/O, no graph plans;
//   - regs are created on request and registered by the caller (ggml_backend_register).
#pragma once

#include "ggml-backend.h"

#include <cstddef>

namespace switchyard::testing {

struct TinyBackendConfig {
    const char *               name        = "TINY";
    enum ggml_backend_dev_type type        = GGML_BACKEND_DEVICE_TYPE_GPU;
    int                        api_version = -1;              // -1: the library's GGML_BACKEND_API_VERSION
    size_t                     memory_size = size_t(1) << 28; // allocations beyond it fail
    bool                       cpy_tensor  = true;            // copy from other TINY buffers (false: refuse)
};

// Creates a new reg with one device. It lives until the end of the process and is not registered.
ggml_backend_reg_t tiny_backend_new_reg(const TinyBackendConfig & config);

// The default TINY reg (created once).
ggml_backend_reg_t tiny_backend_reg();

struct TinyStats {
    size_t bytes_allocated = 0; // in live buffers
    size_t set_calls       = 0; // buffer set_tensor calls
    size_t get_calls       = 0; // buffer get_tensor calls
    size_t device_copies   = 0; // cpy_tensor between two TINY buffers
    size_t graphs_computed = 0;
    size_t nodes_computed  = 0; // ADD nodes executed
};

// Counters of a TINY device (zero for any other device).
TinyStats tiny_backend_stats(ggml_backend_dev_t device);

// True if buffer is a TINY buffer.
bool tiny_backend_owns(ggml_backend_buffer_t buffer);

} // namespace switchyard::testing
