#pragma once

// Switchyard: one model over several processes with MPI (docs/distributed.md). Built when GGML_MPI is on.
//
// Every rank of an MPI job runs the same program (SPMD). When the process was started by an MPI launcher
// (mpirun, srun) with two ranks or more, the registry holds one reg "MPI" whose devices are every rank's devices,
// the same list in the same order on every rank: "MPI0:CPU", "MPI1:CPU", "MPI1:Vulkan0", ... A program uses them
// as any other device (the scheduler, the meta device, ggml_backend_tensor_set/get); the rule behind them is
// "the owner computes, the others skip":
//   - a buffer of device MPI<r>:X holds memory on rank r only (in X's own buffer type); on the other ranks it is
//     a placeholder with the same size and addresses;
//   - ggml_backend_tensor_set on such a tensor writes on rank r and does nothing elsewhere: every rank passes the
//     same bytes (each has read the same file), only the owner keeps them;
//   - ggml_backend_tensor_get is collective: rank r reads, every rank receives the bytes (a broadcast);
//   - a copy between the devices of ranks a and b is a message from a to b; a copy from host memory to rank b's
//     device is a local write on b;
//   - a graph computed on MPI<r>:X is computed by rank r (on X); the other ranks return at once;
//   - the meta device over one device of each rank sums its partial results with MPI_Allreduce.
// So every rank must make the same calls in the same order, as the same program on the same inputs does. The
// ranks are assumed alike: a remote device answers supports_op as this rank's device of the same name would.
// Messages that do not arrive within SWITCHYARD_MPI_TIMEOUT seconds (default 300) end the job (MPI_Abort) with
// a message naming the ranks, rather than leaving a rank blocked.

#include "ggml.h"
#include "ggml-backend.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_MPI_NAME "MPI"

    // The MPI reg; NULL when the process does not run under an MPI launcher with two ranks or more (then there
    // is nothing to add: no MPI call is made). MPI is initialised on first use of the registry (or of any
    // function here); a program that called MPI_Init itself keeps the duty to finalise it.
    GGML_BACKEND_API ggml_backend_reg_t ggml_backend_mpi_reg(void);

    // This process's rank and the number of ranks (0 and 1 without MPI).
    GGML_BACKEND_API int ggml_backend_mpi_rank(void);
    GGML_BACKEND_API int ggml_backend_mpi_size(void);

    // The rank that owns dev; -1 when dev is not an MPI device.
    GGML_BACKEND_API int ggml_backend_mpi_dev_rank(ggml_backend_dev_t dev);

    // Collectives for the program around the graphs (every rank calls them, in the same order). bcast copies
    // size bytes from root's data to every rank's; allgather puts every rank's size bytes of send into recv, in
    // rank order (recv holds size * n_ranks bytes). False (logged) on an MPI error. Without MPI: bcast does
    // nothing, allgather copies send to recv.
    GGML_BACKEND_API bool ggml_backend_mpi_bcast(void * data, size_t size, int root);
    GGML_BACKEND_API bool ggml_backend_mpi_allgather(const void * send, void * recv, size_t size);

    // What this rank's device traffic has cost since the last reset: bytes it sent (point to point, its share
    // of broadcasts it roots, and 2 (n-1)/n of each all-reduced tensor, as a ring all-reduce sends), bytes it
    // received, messages and collectives it took part in, and seconds spent waiting for them.
    struct ggml_backend_mpi_stats {
        uint64_t bytes_sent;
        uint64_t bytes_received;
        uint64_t n_messages;
        double   seconds;
    };
    GGML_BACKEND_API void ggml_backend_mpi_get_stats(struct ggml_backend_mpi_stats * stats);
    GGML_BACKEND_API void ggml_backend_mpi_reset_stats(void);

    // Bytes of device memory this rank holds in the buffers of its own MPI devices.
    GGML_BACKEND_API size_t ggml_backend_mpi_local_bytes(void);

    // Ends this rank's part of the job: status 0 finalises MPI (collective: every rank must call it), any other
    // status aborts the whole job with it (MPI_Abort), so no rank waits for one that has failed. Does nothing
    // without MPI. Programs that never call it are finalised at exit.
    GGML_BACKEND_API void ggml_backend_mpi_finalize(int status);

#ifdef __cplusplus
}
#endif
