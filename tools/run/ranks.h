// switchyard-run under mpirun (docs/distributed.md): every rank runs the same program on the same model; rank 0
// prints, the others follow. This file is the runner's side of it: the defaults that change with several ranks,
// the agreement check before anything is computed, the token every rank continues with, the per-rank report,
// and the way out (a failing rank ends the whole job, so none waits for it). With one process (no mpirun, or
// a build without GGML_MPI) every function is a no-op or answers as for one rank.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::run {

class Model;

namespace ranks {

int  rank();
int  count(); // 1 without MPI
bool distributed(); // count() > 1

// "switchyard-run: " or, with several ranks, "switchyard-run: [rank 1] "
std::string prefix();

// Ranks other than 0 print nothing on standard output from here on (their errors still go to standard error).
void quiet_followers();

// The devices a run over several ranks uses when --device is not given: each rank's CPU ("MPI0:CPU", ...).
std::vector<std::string> default_devices();
// CPU threads a rank takes by default: the cores it may use (cpu_cores.h), shared among the ranks on this machine
// unless a launcher bound each rank to its own.
int default_threads();

// Every rank's view before loading weights: whether it opened the model (error: why not), a fingerprint of its
// arguments, the file's size and a checksum of its header. False with the first difference (naming the rank and
// the field) on every rank, so that all stop together.
struct View {
    bool        ok = true;
    std::string error;
    uint64_t    options = 0, file_size = 0, header = 0;
};
bool agree(const View & mine, std::string & error);

// Hash of the arguments (argv[1..]); FNV-1a.
uint64_t fingerprint(int argc, char ** argv);
uint64_t fnv1a(const void * data, size_t size, uint64_t hash = 14695981039346656037ull);

// Rank 0's value on every rank.
int32_t     token_from_rank0(int32_t id);
uint32_t    seed_from_rank0(uint32_t seed);

// The per-rank tables after a run: weights held, and the traffic of the MPI devices per token in each phase.
// end_phase records the traffic since the last reset under a name (this rank only); print_traffic is collective
// (every rank calls it) and rank 0 prints a table per phase.
void reset_traffic();
void end_phase(const char * phase, int64_t n_tokens);
void print_traffic(std::FILE * out);

// This rank's weight bytes: what its MPI devices hold plus the weights on the local CPU (every rank holds those).
// remember_weights keeps them for print_traffic; call it after loading, before any compute buffer exists.
size_t weight_bytes(const Model & model);
void   remember_weights(const Model & model);

// The process's exit: with several ranks, status 0 finalises MPI and any other status ends the whole job.
int finish(int status);

} // namespace ranks
} // namespace switchyard::run
