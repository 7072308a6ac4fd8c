// Collective communication among CPU backends of one process, for the meta device's all-reduce. The CPU reg
// returns these for the proc names "ggml_backend_comm_init", "ggml_backend_comm_free" and
// "ggml_backend_comm_allreduce_tensor" (signatures: ggml_backend_comm_*_t in ggml-backend.h).
#pragma once

#include "ggml-backend.h"

#include <cstddef>

namespace switchyard::cpu {

// A communicator for n_backends CPU backends; NULL (nothing logged above debug level) when one of them is not a
// CPU backend, so the caller uses its generic path; NULL (logged) when out of memory. Release it with comm_free.
void * comm_init(ggml_backend_t * backends, size_t n_backends);
void   comm_free(void * comm_ctx);

// Sums tensors[0..n_backends-1] element-wise and writes the total into every one of them, blocking. The
// tensors must be in host memory, contiguous, of one type (F32, F16 or BF16; sums are taken in float, in
// order of the backends) and of equal element count; false, with nothing written, otherwise.
bool comm_allreduce_tensor(void * comm_ctx, ggml_tensor ** tensors);

} // namespace switchyard::cpu
