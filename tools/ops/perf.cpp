// switchyard-ops perf: throughput of each case on each device. A case runs in timed batches until its timing is
// stable (the spread of the last few batches within a tolerance) or a time limit is reached; the report gives
// the median, the spread and whether it stabilised.
#include "case_spec.h"
#include "cli.h"

#include "conformance/op_harness.h"


#include "ggml.h"

#include <algorithm>
#include <cstdint>
#include <unordered_set>

namespace switchyard::tools {

using testing::OpCase;
using testing::PreparedCase;

namespace {

constexpr int64_t kBatchUs    = 50000; // runs per batch are doubled until one batch takes this long
constexpr size_t  kWindow     = 5;     // stability is judged over the last kWindow batches
constexpr size_t  kMinBatches = 3;     // even a slow case gets this many before the time limit stops it
constexpr size_t  kMaxBatches = 200;

struct Timing {
    bool   ok     = false; // false: a compute failed
    double median = 0;     // seconds per run, over the window
    double spread = 0;     // (max - min) / median over the window
    size_t batches = 0;
    int    runs    = 1; // runs per batch
    bool   stable  = false;
};

// Median and relative spread of the last kWindow batches (all of them when fewer).
void summarise(const std::vector<double> & per_run, Timing & t) {
    const size_t        n = std::min(per_run.size(), kWindow);
    std::vector<double> w(per_run.end() - static_cast<std::ptrdiff_t>(n), per_run.end());
    std::sort(w.begin(), w.end());
    t.median  = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
    t.spread  = t.median > 0 ? (w.back() - w.front()) / t.median : 0;
    t.batches = per_run.size();
}

// Seconds for `runs` computes of graph, or a negative value when one fails.
double run_batch(ggml_backend_t backend, ggml_cgraph * graph, int runs) {
    const int64_t t0 = ggml_time_us();
    for (int r = 0; r < runs; ++r) {
        if (ggml_backend_graph_compute(backend, graph) != GGML_STATUS_SUCCESS) return -1;
    }
    return static_cast<double>(ggml_time_us() - t0) / 1e6;
}

// Times graph on backend until the last kWindow batches agree within the tolerance. At the time limit a case
// that has had at least kMinBatches batches stops there, stable if those agree (slow cases never fill a window).
Timing time_case(ggml_backend_t backend, ggml_cgraph * graph, const Options & o) {
    Timing        t;
    const int64_t deadline = ggml_time_us() + static_cast<int64_t>(o.max_seconds * 1e6);
    if (run_batch(backend, graph, 1) < 0) return t; // warm-up
    double first = 0;
    for (;;) { // calibrate the batch size; the last batch of the calibration is the first measurement
        first = run_batch(backend, graph, t.runs);
        if (first < 0) return t;
        if (first * 1e6 >= kBatchUs || t.runs >= (1 << 20) || ggml_time_us() >= deadline) break;
        t.runs *= 2;
    }
    std::vector<double> per_run{first / t.runs};
    for (;;) {
        const double s = run_batch(backend, graph, t.runs);
        if (s < 0) return t;
        per_run.push_back(s / t.runs);
        summarise(per_run, t);
        t.stable = t.spread <= o.tolerance;
        if ((t.stable && per_run.size() >= kWindow) || per_run.size() >= kMaxBatches) break;
        if (per_run.size() >= kMinBatches && ggml_time_us() >= deadline) break;
    }
    t.ok = true;
    return t;
}

// Bytes a memory-bound case moves: its inputs (the sources that no node computes) read and its output written.
double case_bytes(const PreparedCase & p) {
    size_t                              bytes = ggml_nbytes(p.output);
    std::unordered_set<const ggml_tensor *> seen;
    for (int i = 0; i < ggml_graph_n_nodes(p.graph); ++i) {
        const ggml_tensor * node = ggml_graph_node(p.graph, i);
        for (const ggml_tensor * src : node->src) {
            if (src != nullptr && src->op == GGML_OP_NONE && seen.insert(src).second) bytes += ggml_nbytes(src);
        }
    }
    return static_cast<double>(bytes);
}

void print_timing(const Device & d, const OpCase & c, const PreparedCase & p, const Timing & t, int width) {
    const bool   matrix = c.flops > 0;
    const double work   = matrix ? c.flops : case_bytes(p);
    std::printf("%-6s %-*s %11.3f ms %10.2f %-7s %5.1f%% %4zu x %-7d %s\n", d.name.c_str(), width, c.name.c_str(), t.median * 1e3,
                work / t.median / 1e9, matrix ? "GFLOP/s" : "GB/s", t.spread * 100, t.batches, t.runs, t.stable ? "stable" : "UNSTABLE");
}

} // namespace

int run_perf(const Options & o, const std::vector<Device> & devices, const std::vector<const OpCase *> & cases) {
    int width = 4;
    for (const OpCase * c : cases) width = std::max(width, static_cast<int>(c->name.size()));
    std::printf("%-6s %-*s %14s %18s %6s %-14s %s\n", "device", width, "case", "median", "throughput", "spread", "batches x runs",
                "timing");
    Progress progress(o.progress);
    size_t   measured = 0, stable = 0, failed = 0;
    for (const Device & d : devices) {
        for (size_t i = 0; i < cases.size(); ++i) {
            progress.update(d.name, i, cases.size(), cases[i]->name);
            PreparedCase p = o.case_specs.empty() ? testing::prepare_case(d.backend, *cases[i]) : prepare_spec_case(d.backend, *cases[i]);
            Timing       t;
            if (p.supported) t = time_case(d.backend, p.graph, o);
            progress.clear();
            if (!p.supported) {
                std::printf("%-6s %-*s unsupported\n", d.name.c_str(), width, cases[i]->name.c_str());
            } else if (!t.ok) {
                std::printf("%-6s %-*s compute failed\n", d.name.c_str(), width, cases[i]->name.c_str());
                ++failed;
            } else {
                print_timing(d, *cases[i], p, t, width);
                ++measured;
                stable += t.stable;
            }
            std::fflush(stdout);
            testing::free_prepared_case(p);
        }
    }
    std::printf("%zu of %zu measurements stable (spread of the last %zu batches within %.1f%%)\n", stable, measured, kWindow,
                o.tolerance * 100);
    return failed ? kExitFailures : kExitOk;
}

} // namespace switchyard::tools
