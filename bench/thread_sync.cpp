// thread_sync: what synchronising the threads costs per graph node on the CPU backend, against the floor a
// plain spin barrier reaches on this machine, measured in the same run.
//
//   spin barrier   n threads meet at a sense-reversing barrier that only spins (the cheapest possible
//                  hand-off between nodes: every node of a graph ends with one)
//   graph          a chain of 1,000 tiny ADD nodes (16 floats each) computed by the CPU backend with n threads:
//                  time per node, nearly all of it synchronisation
//   with_ctx call  one call of ggml_graph_compute_with_ctx on a graph of one tiny ADD with n threads (no thread
//                  pool of the caller's: the library's own), against the spin barrier's episode: what a program
//                  written for ggml's examples pays per graph beyond its nodes
//
// usage: thread_sync [--threads N]
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Nanoseconds per episode of a spinning sense-reversing barrier with n threads (median of 9 runs). With more
// threads than the machine has, a waiter yields between looks (a pure spin would hold the CPU the last arriver needs
// for a whole time slice per episode).
double spin_barrier_ns(int n, int episodes) {
    const bool          yield = n > static_cast<int>(std::thread::hardware_concurrency());
    std::vector<double> runs;
    for (int r = 0; r < 9; ++r) {
        alignas(64) std::atomic<int>  arrived{0};
        alignas(64) std::atomic<bool> sense{false};
        auto body = [&](bool measure, double * ns) {
            bool       local = false;
            const auto t0    = Clock::now();
            for (int e = 0; e < episodes; ++e) {
                local = !local;
                if (arrived.fetch_add(1, std::memory_order_acq_rel) == n - 1) {
                    arrived.store(0, std::memory_order_relaxed);
                    sense.store(local, std::memory_order_release);
                } else {
                    while (sense.load(std::memory_order_acquire) != local) {
                        if (yield) {
                            std::this_thread::yield();
                        }
#if defined(__x86_64__)
                        __builtin_ia32_pause();
#endif
                    }
                }
            }
            if (measure) {
                *ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / episodes;
            }
        };
        double                   ns = 0;
        std::vector<std::thread> others;
        for (int t = 1; t < n; ++t) {
            others.emplace_back(body, false, nullptr);
        }
        body(true, &ns);
        for (std::thread & t : others) {
            t.join();
        }
        runs.push_back(ns);
    }
    return median(runs);
}

// Nanoseconds per node of a 1,000-node chain of tiny ADDs on a CPU backend with n threads (median of 21).
double graph_ns_per_node(int n, int n_nodes) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, n);
    ggml_context * ctx = ggml_init({static_cast<size_t>(n_nodes + 8) * ggml_tensor_overhead() +
                                        ggml_graph_overhead_custom(static_cast<size_t>(n_nodes) + 8, false),
                                    nullptr, true});
    ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_tensor * y = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_set_input(x);
    ggml_set_input(y);
    ggml_tensor * cur = x;
    for (int i = 0; i < n_nodes; ++i) {
        cur = ggml_add(ctx, cur, y);
    }
    ggml_set_output(cur);
    ggml_cgraph * graph = ggml_new_graph_custom(ctx, static_cast<size_t>(n_nodes) + 8, false);
    ggml_build_forward_expand(graph, cur);
    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
    ggml_gallocr_alloc_graph(galloc, graph);
    std::vector<float> ones(16, 1.0f);
    ggml_backend_tensor_set(x, ones.data(), 0, sizeof(float) * 16);
    ggml_backend_tensor_set(y, ones.data(), 0, sizeof(float) * 16);
    ggml_backend_graph_compute(cpu, graph); // warm-up: the thread pool starts
    std::vector<double> runs;
    for (int r = 0; r < 21; ++r) {
        const auto t0 = Clock::now();
        ggml_backend_graph_compute(cpu, graph);
        runs.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n_nodes);
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    return median(runs);
}

// Microseconds per ggml_graph_compute_with_ctx of a one-node graph with n threads (median of 9 runs of 500 calls).
double with_ctx_call_us(int n) {
    ggml_context * ctx = ggml_init({size_t{1} << 20, nullptr, false});
    ggml_tensor *  x   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_tensor *  sum = ggml_add(ctx, x, x);
    ggml_cgraph *  g   = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, sum);
    std::vector<double> runs;
    for (int r = 0; r < 9; ++r) {
        const auto t0 = Clock::now();
        for (int i = 0; i < 500; ++i) {
            ggml_graph_compute_with_ctx(ctx, g, n);
        }
        runs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 500);
    }
    ggml_free(ctx);
    return median(runs);
}

} // namespace

int main(int argc, char ** argv) {
    int threads = 2;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--threads" && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: thread_sync [--threads N]\n");
            return 2;
        }
    }
    std::printf("thread synchronisation per graph node, medians\n\n");
    std::printf("| threads | spin barrier ns/episode | graph of 1000 tiny ADDs, ns/node | ratio | with_ctx call, us "
                "| ratio |\n");
    std::printf("|---------|-------------------------|----------------------------------|-------|-------------------"
                "|-------|\n");
    for (int n = 1; n <= threads; ++n) {
        const double spin  = n > 1 ? spin_barrier_ns(n, 100000) : 0.0;
        const double graph = graph_ns_per_node(n, 1000);
        const double call  = with_ctx_call_us(n);
        std::printf("| %7d | %23.1f | %32.1f | %5.2f | %17.1f | %5.0f |\n", n, spin, graph,
                    spin > 0 ? graph / spin : 0.0, call, spin > 0 ? call * 1000.0 / spin : 0.0);
    }
    return 0;
}
