#include "ranks.h"

#include "cpu_cores.h"
#include "model.h"

#include "ggml-backend.h"

#ifdef SWITCHYARD_RUN_MPI
#include "ggml-mpi.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace switchyard::run::ranks {

namespace {

#ifdef SWITCHYARD_RUN_MPI
// What a rank tells the others at the agreement point.
struct Wire {
    int32_t  ok;
    uint64_t options, file_size, header;
    char     error[240];
};

struct Traffic {
    uint64_t weight_bytes, bytes_sent, bytes_received, n_messages;
    double   seconds;
};
#endif

std::string hex(uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
    return s;
}

} // namespace

#ifdef SWITCHYARD_RUN_MPI
int rank() { return ggml_backend_mpi_reg() != nullptr ? ggml_backend_mpi_rank() : 0; }
int count() { return ggml_backend_mpi_reg() != nullptr ? ggml_backend_mpi_size() : 1; }
#else
int rank() { return 0; }
int count() { return 1; }
#endif
bool distributed() { return count() > 1; }

std::string prefix() {
    return distributed() ? "switchyard-run: [rank " + std::to_string(rank()) + "] " : "switchyard-run: ";
}

void quiet_followers() {
    if (distributed() && rank() != 0) {
        std::fflush(stdout);
        if (std::freopen("/dev/null", "w", stdout) == nullptr) {
            std::fprintf(stderr, "%scannot silence standard output\n", prefix().c_str());
        }
    }
}

std::vector<std::string> default_devices() {
    std::vector<std::string> names;
    for (int r = 0; r < count(); ++r) {
        names.push_back("MPI" + std::to_string(r) + ":CPU");
    }
    return names;
}

int default_threads() {
    int local = 1;
    for (const char * name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
        if (const char * v = std::getenv(name); v != nullptr && std::atoi(v) > 0) {
            local = std::atoi(v);
            break;
        }
    }
    // a launcher that bound this rank (OpenMPI binds each of two ranks to a core) gave it its share already; else
    // the ranks of this machine share its cores
    const CoreBudget & cores = this_process_budget();
    return cores.bound ? cores.cores : std::max(cores.cores / std::max(local, 1), 1);
}

uint64_t fnv1a(const void * data, size_t size, uint64_t hash) {
    const auto * p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i) {
        hash = (hash ^ p[i]) * 1099511628211ull;
    }
    return hash;
}

uint64_t fingerprint(int argc, char ** argv) {
    uint64_t h = fnv1a("", 0);
    for (int i = 1; i < argc; ++i) {
        h = fnv1a(argv[i], std::strlen(argv[i]) + 1, h); // with the NUL: "a b" differs from "ab"
    }
    return h;
}

bool agree(const View & mine, std::string & error) {
#ifdef SWITCHYARD_RUN_MPI
    if (!distributed()) {
        return true;
    }
    Wire w{};
    w.ok        = mine.ok ? 1 : 0;
    w.options   = mine.options;
    w.file_size = mine.file_size;
    w.header    = mine.header;
    std::snprintf(w.error, sizeof w.error, "%s", mine.error.c_str());
    std::vector<Wire> all(static_cast<size_t>(count()));
    if (!ggml_backend_mpi_allgather(&w, all.data(), sizeof w)) {
        error = "the ranks could not exchange their state";
        return false;
    }
    for (int r = 0; r < count(); ++r) {
        if (!all[static_cast<size_t>(r)].ok) {
            error = "rank " + std::to_string(r) + " failed: " + all[static_cast<size_t>(r)].error;
            return false;
        }
    }
    const Wire & first = all[0];
    for (int r = 1; r < count(); ++r) {
        const Wire &      w_r  = all[static_cast<size_t>(r)];
        const std::string name = "rank " + std::to_string(r);
        if (w_r.options != first.options) {
            error = name + " was started with other arguments than rank 0 (fingerprints " + hex(w_r.options) + " and " +
                    hex(first.options) + "): every rank must run the same command";
            return false;
        }
        if (w_r.file_size != first.file_size || w_r.header != first.header) {
            error = name + "'s model file differs from rank 0's (" + std::to_string(w_r.file_size) + " bytes, header " +
                    hex(w_r.header) + " against " + std::to_string(first.file_size) + " bytes, header " + hex(first.header) + ")";
            return false;
        }
    }
#else
    (void) mine;
    (void) error;
#endif
    return true;
}

namespace {
// value as rank 0 has it, on every rank
template <typename T> T from_rank0(T value) {
#ifdef SWITCHYARD_RUN_MPI
    if (distributed()) {
        ggml_backend_mpi_bcast(&value, sizeof value, 0);
    }
#endif
    return value;
}
} // namespace

int32_t  token_from_rank0(int32_t id) { return from_rank0(id); }
uint32_t seed_from_rank0(uint32_t seed) { return from_rank0(seed); }

namespace {
size_t g_weight_bytes = 0;
#ifdef SWITCHYARD_RUN_MPI
struct Phase {
    std::string            name;
    int64_t                n_tokens;
    ggml_backend_mpi_stats stats;
};
std::vector<Phase> g_phases;
#endif
} // namespace

void remember_weights(const Model & model) { g_weight_bytes = weight_bytes(model); }

void reset_traffic() {
#ifdef SWITCHYARD_RUN_MPI
    if (distributed()) {
        ggml_backend_mpi_reset_stats();
    }
#endif
}

void end_phase(const char * phase, int64_t n_tokens) {
#ifdef SWITCHYARD_RUN_MPI
    if (distributed()) {
        Phase p{phase, n_tokens, {}};
        ggml_backend_mpi_get_stats(&p.stats);
        g_phases.push_back(p);
        ggml_backend_mpi_reset_stats();
    }
#else
    (void) phase;
    (void) n_tokens;
#endif
}

void print_traffic(std::FILE * out) {
#ifdef SWITCHYARD_RUN_MPI
    if (!distributed()) {
        return;
    }
    for (const Phase & p : g_phases) {
        const ggml_backend_mpi_stats & s = p.stats;
        Traffic              mine{g_weight_bytes, s.bytes_sent, s.bytes_received, s.n_messages, s.seconds};
        std::vector<Traffic> all(static_cast<size_t>(count()));
        ggml_backend_mpi_allgather(&mine, all.data(), sizeof mine);
        if (rank() != 0) {
            continue;
        }
        const double per = static_cast<double>(std::max<int64_t>(p.n_tokens, 1));
        std::fprintf(out, "ranks, %s (per token, %lld tokens):\n", p.name.c_str(), static_cast<long long>(p.n_tokens));
        std::fprintf(out, "  %4s  %11s  %14s  %16s  %10s  %13s\n", "rank", "weights MiB", "sent B/token",
                     "received B/token", "msgs/token", "comm ms/token");
        for (int r = 0; r < count(); ++r) {
            const Traffic & t = all[static_cast<size_t>(r)];
            std::fprintf(out, "  %4d  %11.2f  %14.0f  %16.0f  %10.1f  %13.3f\n", r,
                         static_cast<double>(t.weight_bytes) / (1024.0 * 1024.0), static_cast<double>(t.bytes_sent) / per,
                         static_cast<double>(t.bytes_received) / per, static_cast<double>(t.n_messages) / per,
                         t.seconds * 1e3 / per);
        }
    }
    g_phases.clear();
#else
    (void) out;
#endif
}

size_t weight_bytes(const Model & model) {
    size_t bytes = 0;
    for (const Model::Holding & h : model.holdings()) {
#ifdef SWITCHYARD_RUN_MPI
        if (distributed() && ggml_backend_mpi_dev_rank(h.dev) >= 0) {
            continue; // counted from the MPI layer below (this rank's part only)
        }
        if (distributed() && ggml_backend_dev_type(h.dev) != GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue; // the meta device: its parts are MPI devices' buffers
        }
#endif
        bytes += h.bytes;
    }
#ifdef SWITCHYARD_RUN_MPI
    if (distributed()) {
        bytes += ggml_backend_mpi_local_bytes(); // called after loading, before any compute buffer
    }
#endif
    return bytes;
}

int finish(int status) {
#ifdef SWITCHYARD_RUN_MPI
    if (distributed()) {
        std::fflush(stdout);
        std::fflush(stderr);
        ggml_backend_mpi_finalize(status);
    }
#endif
    return status;
}

} // namespace switchyard::run::ranks
