// The MPI layer's communication (include/ggml-mpi.h): starting MPI, the job's communicator, and the few
// operations the devices need, each waited for with a deadline and counted in the statistics.
//
// Every wait is a loop over MPI_Test (spinning briefly, then sleeping in growing steps up to a millisecond), so
// a rank that waits for a peer which never answers ends the job after SWITCHYARD_MPI_TIMEOUT seconds
// (default 300) with a message naming both ranks, instead of blocking forever. A launcher (mpirun) ends the job
// sooner when a rank dies. Calls are made from one thread at a time (MPI_THREAD_SERIALIZED at least).
#pragma once

#include "ggml-mpi.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::mpi {

// Starts MPI once when the process runs under a launcher with two ranks or more (or MPI is initialised
// already); false otherwise, and then nothing below may be called.
bool active();
int  rank();
int  size();

// Point to point, tagged by the caller; block until done (with the deadline). Sizes of any length (sent in
// pieces of at most 1 GiB).
void send(const void * data, size_t size, int to);
void recv(void * data, size_t size, int from);
// Collectives over every rank.
void bcast(void * data, size_t size, int root);
void allgather(const void * send, void * recv, size_t size);
// In-place sum of n floats (identical on every rank: with two ranks a + b; with more, the ranks' parts are
// gathered and added in rank order, so the result does not depend on MPI's algorithm).
void allreduce_sum(float * data, size_t n);

// Statistics (ggml_backend_mpi_stats).
void get_stats(ggml_backend_mpi_stats & stats);
void reset_stats();

// Bytes of device memory held by this rank's own MPI buffers (buffer.cpp keeps the count).
void add_local_bytes(int64_t delta);
size_t local_bytes();

// Ends the job with status (MPI_Abort) after logging why; never returns.
[[noreturn]] void abort_job(int status, const char * why);

} // namespace switchyard::mpi
