// fma_mix: how close an FP32 GEMM tile built on FMA can come to the FMA peak on this CPU, with all its data in L1.
//
// The f32 batch GEMM (src/cpu/quants/gemm_float_avx512.cpp) is an outer product per step: P panel loads (16 rows
// each), C broadcast activations, P x C FMAs into P x C zmm accumulators. Beside the FMAs each step therefore
// issues P + C loads. This tool measures, in the same run and interleaved with the plain FMA loop (the peak that
// cpu_kernels reports), loops of that exact instruction mix over L1-resident data:
//   fma only        12 independent FMA chains, no loads (the peak)
//   fma + 2 loads   the 32 x 12 tile's 24 FMAs and 2 panel loads per step, broadcasts replaced by fixed registers
//   tile P x C      the real mix: P panel loads, C broadcasts, P x C FMAs (32 x 12, 48 x 8, 64 x 6)
// Every figure is a ratio to the FMA loop measured right before it (medians of 9 interleaved rounds), so it does
// not drift with the machine's load. What it showed on the development machine (2 cores of a Xeon with AVX-512
// and AMX, three runs): fma + 2 loads 1.01-1.03 x the peak, tile 32 x 12 0.865-0.884, 48 x 8 0.889-0.899, 64 x 6
// 0.878-0.904. The broadcasts cost 10-13 % of the peak whatever the shape (fewer broadcasts per FMA, more panel
// loads), so an FMA tile tops out at about 0.9 x the FMA peak before the weights and activations are packed.
//
// usage: fma_mix [--threads N]
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSteps = 128; // steps per pass over the L1 data: panels P x 8 KiB, activations C x 512 B

__attribute__((target("avx512f"))) float lane_sum(__m512 v) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    float s = 0.0f;
    for (float l : lanes) {
        s += l;
    }
    return s;
}

__attribute__((target("avx512f"))) float fma_only(int64_t passes) {
    __m512 a[12];
    for (int k = 0; k < 12; ++k) {
        a[k] = _mm512_set1_ps(static_cast<float>(k) * 1e-3f);
    }
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int64_t i = 0; i < passes * kSteps * 2; ++i) { // 24 FMAs per step, as the tiles
        for (int k = 0; k < 12; ++k) {
            a[k] = _mm512_fmadd_ps(a[k], m, c);
        }
    }
    __m512 s = a[0];
    for (int k = 1; k < 12; ++k) {
        s = _mm512_add_ps(s, a[k]);
    }
    return lane_sum(s);
}

// P panels x C columns per step; kBroadcast false: the activations come from 4 fixed registers (loads of the
// panels only).
template <int P, int C, bool kBroadcast>
__attribute__((target("avx512f"))) float tile_mix(const float * panels, const float * x, int64_t passes) {
    __m512 acc[P][C];
    for (int p = 0; p < P; ++p) {
        for (int c = 0; c < C; ++c) {
            acc[p][c] = _mm512_setzero_ps();
        }
    }
    const __m512 fixed[4] = {_mm512_set1_ps(x[0]), _mm512_set1_ps(x[1]), _mm512_set1_ps(x[2]), _mm512_set1_ps(x[3])};
    for (int64_t pass = 0; pass < passes; ++pass) {
        for (int i = 0; i < kSteps; ++i) {
            __m512 w[P];
            for (int p = 0; p < P; ++p) {
                w[p] = _mm512_load_ps(panels + (p * kSteps + i) * 16);
            }
            for (int c = 0; c < C; ++c) {
                const __m512 b = kBroadcast ? _mm512_set1_ps(x[i * C + c]) : fixed[c % 4];
                for (int p = 0; p < P; ++p) {
                    acc[p][c] = _mm512_fmadd_ps(w[p], b, acc[p][c]);
                }
            }
        }
    }
    __m512 s = _mm512_setzero_ps();
    for (int p = 0; p < P; ++p) {
        for (int c = 0; c < C; ++c) {
            s = _mm512_add_ps(s, acc[p][c]);
        }
    }
    return lane_sum(s);
}

struct Loop {
    const char * name;
    int          fmas_per_step;
    float (*run)(const float *, const float *, int64_t);
};

float fma_only_loop(const float *, const float *, int64_t passes) { return fma_only(passes); }

const Loop kLoops[] = {
    {"fma + 2 loads (32 x 12, fixed activations)", 24, tile_mix<2, 12, false>},
    {"tile 32 x 12 (2 loads + 12 broadcasts)", 24, tile_mix<2, 12, true>},
    {"tile 48 x 8 (3 loads + 8 broadcasts)", 24, tile_mix<3, 8, true>},
    {"tile 64 x 6 (4 loads + 6 broadcasts)", 24, tile_mix<4, 6, true>},
};

// GFLOP/s of `loop` on n_threads threads, each over its own L1 data, for about 0.1 s.
double gflops(const Loop & loop, int n_threads) {
    const int64_t     passes = 20000;
    std::vector<float> sink(static_cast<size_t>(n_threads));
    const auto        t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < n_threads; ++t) {
        threads.emplace_back([&, t] {
            auto * panels = static_cast<float *>(std::aligned_alloc(64, 4 * kSteps * 16 * sizeof(float)));
            auto * x      = static_cast<float *>(std::aligned_alloc(64, kSteps * 12 * sizeof(float)));
            for (int i = 0; i < 4 * kSteps * 16; ++i) {
                panels[i] = 1e-3f * static_cast<float>(i % 7);
            }
            for (int i = 0; i < kSteps * 12; ++i) {
                x[i] = 1e-3f * static_cast<float>(i % 5);
            }
            sink[static_cast<size_t>(t)] = loop.run(panels, x, passes);
            std::free(panels);
            std::free(x);
        });
    }
    for (std::thread & th : threads) {
        th.join();
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (sink[0] == 12345.0f) {
        std::puts("");
    }
    return 32.0 * loop.fmas_per_step * kSteps * static_cast<double>(passes) * n_threads / s / 1e9;
}

} // namespace

int main(int argc, char ** argv) {
    int n_threads = 2;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            n_threads = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: fma_mix [--threads N]\n");
            return 2;
        }
    }
    if (!__builtin_cpu_supports("avx512f")) {
        std::printf("fma_mix: this CPU has no AVX-512; nothing to measure\n");
        return 0;
    }
    const Loop  peak = {"fma only (the peak)", 24, fma_only_loop};
    const int   n    = static_cast<int>(sizeof kLoops / sizeof kLoops[0]);
    std::vector<std::vector<double>> ratio(static_cast<size_t>(n));
    std::vector<double>              peaks;
    for (int round = 0; round < 9; ++round) {
        for (int i = 0; i < n; ++i) {
            const double p = gflops(peak, n_threads);
            peaks.push_back(p);
            ratio[static_cast<size_t>(i)].push_back(gflops(kLoops[i], n_threads) / p);
        }
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("fma_mix, %d threads: FP32 FMA peak %.0f GFLOP/s (median); loops over L1 data, ratio to the FMA loop "
                "measured right before each (median of 9 rounds, min-max)\n\n",
                n_threads, median(peaks));
    std::printf("| %-44s | ratio | min - max     |\n|----------------------------------------------|-------|---------------|\n", "loop");
    for (int i = 0; i < n; ++i) {
        std::vector<double> r = ratio[static_cast<size_t>(i)];
        std::sort(r.begin(), r.end());
        std::printf("| %-44s | %.3f | %.3f - %.3f |\n", kLoops[i].name, median(r), r.front(), r.back());
    }
    return 0;
}
