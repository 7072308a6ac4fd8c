#include "mpi/comm.h"

#include "base/log.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::mpi {

namespace {

struct State {
    bool     active    = false;
    bool     owns_init = false; // we called MPI_Init_thread: finalise at exit
    int      rank      = 0;
    int      size      = 1;
    MPI_Comm comm      = MPI_COMM_NULL;
    double   timeout_s = 300.0;
};

State                 g_state;
std::once_flag        g_once;
ggml_backend_mpi_stats g_stats{};
std::atomic<int64_t>  g_local_bytes{0};
bool                  g_finalized = false;

// A launcher's environment: Open MPI, PMIx, PMI (MPICH, Slurm).
bool launched_with_ranks() {
    for (const char * name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
        const char * v = std::getenv(name);
        if (v != nullptr && std::atoi(v) > 1) {
            return true;
        }
    }
    return false;
}

void finalize_at_exit() {
    if (g_state.active && g_state.owns_init && !g_finalized) {
        ggml_backend_mpi_finalize(0);
    }
}

void start() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized && !launched_with_ranks()) {
        return;
    }
    if (!initialized) {
        int provided = 0;
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            log_error("[ggml_backend_mpi] MPI_Init_thread failed: running as one process\n");
            return;
        }
        g_state.owns_init = true;
    }
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return; // one rank: nothing to distribute (finalised at exit if we started it)
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &g_state.comm);
    MPI_Comm_set_errhandler(g_state.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(g_state.comm, &g_state.rank);
    g_state.size   = size;
    g_state.active = true;
    if (const char * t = std::getenv("SWITCHYARD_MPI_TIMEOUT")) {
        const double v = std::atof(t);
        if (v > 0.0) {
            g_state.timeout_s = v;
        }
    }
    std::atexit(finalize_at_exit);
}

void check(int rc, const char * what, int peer) {
    if (rc == MPI_SUCCESS) {
        return;
    }
    char text[MPI_MAX_ERROR_STRING] = {};
    int  len                        = 0;
    MPI_Error_string(rc, text, &len);
    char why[MPI_MAX_ERROR_STRING + 128];
    std::snprintf(why, sizeof why, "%s with rank %d failed: %s", what, peer, text);
    abort_job(1, why);
}

// Waits for req with the deadline; what/peer name the operation in the message. It polls without sleeping for
// kSpinSeconds (a peer computing a layer answers within milliseconds, and a sleep's wake-up would add to every
// all-reduce), then sleeps in steps growing to a millisecond.
constexpr double kSpinSeconds = 0.05;

void wait(MPI_Request & req, const char * what, int peer) {
    using clock       = std::chrono::steady_clock;
    const auto start  = clock::now();
    auto       nap    = std::chrono::microseconds(0);
    for (int spins = 0;; ++spins) {
        int done = 0;
        check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what, peer);
        if (done) {
            break;
        }
        const double waited = std::chrono::duration<double>(clock::now() - start).count();
        if (waited < kSpinSeconds) {
            std::this_thread::yield(); // the peer is usually a layer's compute away: answer at once
            continue;
        }
        if (waited > g_state.timeout_s) {
            char why[160];
            std::snprintf(why, sizeof why, "%s with rank %d: nothing for %.0f s (SWITCHYARD_MPI_TIMEOUT)", what, peer, waited);
            abort_job(1, why);
        }
        nap = std::min(nap + std::chrono::microseconds(20), std::chrono::microseconds(1000));
        std::this_thread::sleep_for(nap);
    }
    g_stats.seconds += std::chrono::duration<double>(clock::now() - start).count();
    g_stats.n_messages++;
}

constexpr size_t kPiece = size_t(1) << 30; // MPI counts are int

} // namespace

bool active() {
    std::call_once(g_once, start);
    return g_state.active;
}
int rank() { return active() ? g_state.rank : 0; }
int size() { return active() ? g_state.size : 1; }

// Calls post(offset, count) for each piece of at most kPiece bytes of [0, size), waiting for each request.
template <typename Post> void in_pieces(size_t size, const char * what, int peer, Post post) {
    for (size_t done = 0; done < size; done += kPiece) {
        MPI_Request req = MPI_REQUEST_NULL;
        check(post(done, static_cast<int>(std::min(kPiece, size - done)), req), what, peer);
        wait(req, what, peer);
    }
}

void send(const void * data, size_t size, int to) {
    const char * p = static_cast<const char *>(data);
    in_pieces(size, "sending", to, [&](size_t at, int n, MPI_Request & req) {
        return MPI_Isend(p + at, n, MPI_BYTE, to, 0, g_state.comm, &req);
    });
    g_stats.bytes_sent += size;
}

void recv(void * data, size_t size, int from) {
    char * p = static_cast<char *>(data);
    in_pieces(size, "receiving", from, [&](size_t at, int n, MPI_Request & req) {
        return MPI_Irecv(p + at, n, MPI_BYTE, from, 0, g_state.comm, &req);
    });
    g_stats.bytes_received += size;
}

void bcast(void * data, size_t size, int root) {
    char * p = static_cast<char *>(data);
    in_pieces(size, "a broadcast", root, [&](size_t at, int n, MPI_Request & req) {
        return MPI_Ibcast(p + at, n, MPI_BYTE, root, g_state.comm, &req);
    });
    if (g_state.rank == root) {
        g_stats.bytes_sent += size * static_cast<size_t>(g_state.size - 1);
    } else {
        g_stats.bytes_received += size;
    }
}

void allgather(const void * send, void * recv, size_t size) {
    if (size > kPiece) {
        abort_job(1, "an all-gather of more than 1 GiB per rank");
    }
    MPI_Request req = MPI_REQUEST_NULL;
    check(MPI_Iallgather(send, static_cast<int>(size), MPI_BYTE, recv, static_cast<int>(size), MPI_BYTE, g_state.comm, &req),
          "an all-gather", -1);
    wait(req, "an all-gather", -1);
    g_stats.bytes_sent += size * static_cast<size_t>(g_state.size - 1);
    g_stats.bytes_received += size * static_cast<size_t>(g_state.size - 1);
}

void allreduce_sum(float * data, size_t n) {
    const size_t bytes = n * sizeof(float);
    if (g_state.size == 2) {
        // a + b == b + a exactly: MPI's sum is the same on both ranks and equals the sum in rank order
        for (size_t done = 0; done < n; done += kPiece / sizeof(float)) {
            const int   count = static_cast<int>(std::min(kPiece / sizeof(float), n - done));
            MPI_Request req   = MPI_REQUEST_NULL;
            check(MPI_Iallreduce(MPI_IN_PLACE, data + done, count, MPI_FLOAT, MPI_SUM, g_state.comm, &req), "an all-reduce", -1);
            wait(req, "an all-reduce", -1);
        }
        g_stats.bytes_sent += bytes;
        g_stats.bytes_received += bytes;
        return;
    }
    // more ranks: every part, then the sum in rank order (the meta device's order on one machine)
    const size_t piece = kPiece / sizeof(float) / static_cast<size_t>(g_state.size);
    for (size_t done = 0; done < n; done += piece) {
        const size_t count = std::min(piece, n - done);
        std::vector<float> gathered(count * static_cast<size_t>(g_state.size));
        allgather(data + done, gathered.data(), count * sizeof(float));
        for (size_t i = 0; i < count; ++i) {
            float acc = gathered[i];
            for (int r = 1; r < g_state.size; ++r) {
                acc += gathered[static_cast<size_t>(r) * count + i];
            }
            data[done + i] = acc;
        }
    }
}

void get_stats(ggml_backend_mpi_stats & stats) { stats = g_stats; }
void reset_stats() { g_stats = ggml_backend_mpi_stats{}; }

void add_local_bytes(int64_t delta) { g_local_bytes += delta; }
size_t local_bytes() { return static_cast<size_t>(std::max<int64_t>(0, g_local_bytes.load())); }

void abort_job(int status, const char * why) {
    log_error("[ggml_backend_mpi] rank %d of %d: %s: ending the job\n", g_state.rank, g_state.size, why);
    MPI_Abort(MPI_COMM_WORLD, status == 0 ? 1 : status);
    std::_Exit(status == 0 ? 1 : status);
}

} // namespace switchyard::mpi

using namespace switchyard;

extern "C" {

int ggml_backend_mpi_rank(void) { return mpi::rank(); }
int ggml_backend_mpi_size(void) { return mpi::size(); }

bool ggml_backend_mpi_bcast(void * data, size_t size, int root) {
    if (!mpi::active()) {
        return true;
    }
    if ((data == nullptr && size > 0) || root < 0 || root >= mpi::size()) {
        log_error("[ggml_backend_mpi_bcast] bad arguments (data %p, size %zu, root %d of %d ranks)\n", data, size, root,
                  mpi::size());
        return false;
    }
    mpi::bcast(data, size, root);
    return true;
}

bool ggml_backend_mpi_allgather(const void * send, void * recv, size_t size) {
    if ((send == nullptr || recv == nullptr) && size > 0) {
        log_error("[ggml_backend_mpi_allgather] NULL buffer\n");
        return false;
    }
    if (!mpi::active()) {
        if (size > 0) {
            std::memmove(recv, send, size);
        }
        return true;
    }
    mpi::allgather(send, recv, size);
    return true;
}

void ggml_backend_mpi_get_stats(ggml_backend_mpi_stats * stats) {
    if (stats != nullptr) {
        mpi::get_stats(*stats);
    }
}

void ggml_backend_mpi_reset_stats(void) { mpi::reset_stats(); }

size_t ggml_backend_mpi_local_bytes(void) { return mpi::local_bytes(); }

void ggml_backend_mpi_finalize(int status) {
    if (!mpi::active() || mpi::g_finalized) {
        return;
    }
    if (status != 0) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, status);
        std::_Exit(status);
    }
    mpi::g_finalized = true;
    // every rank gets here, or one has failed: a barrier with the deadline, so a rank whose peer ended
    // abnormally does not wait in MPI_Finalize forever
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Ibarrier(mpi::g_state.comm, &req) == MPI_SUCCESS) {
        mpi::wait(req, "the final barrier", -1);
    }
    MPI_Comm_free(&mpi::g_state.comm);
    if (mpi::g_state.owns_init) {
        MPI_Finalize();
    }
}

} // extern "C"
