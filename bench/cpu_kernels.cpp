// cpu_kernels: the CPU backend's kernels on the shapes that decide a model's speed, each as a ratio to this
// machine's peaks measured in the same run (the machines are shared and noisy: absolute figures drift between
// runs, ratios within one run do not).
//
// Peaks: DRAM read bandwidth (a 1 GiB array summed by the same number of threads), FP32 FMA throughput (a loop
// of independent vector FMAs on the widest ISA the CPU has). Cases, all through the public API (graphs computed
// on a CPU backend):
//   decode   MUL_MAT of a weight matrix by one activation vector, per weight type: 4096 columns and as many rows
//            as make 1 GiB of weights (at least 14336), larger than any last-level cache (some servers have
//            several hundred MiB) like the DRAM peak's array; GB/s of weights streamed, ratio to the DRAM read
//            bandwidth (the ceiling of token generation) measured alternately with it (medians of 7 pairs)
//   batch    MUL_MAT by 8 and by 512 activation columns (float weights also by 2, 4, 16 and 32): GFLOP/s, ratio to
//            the peak of the instruction the kernel is built on, measured right after the case: int8 dot products (VNNI vpdpbusd, 128 ops each) for the
//            quantized weights (AMX tdpbusd past 32 columns where the CPU has AMX, CPU_REPACK weights too), bf16 dot
//            products (vdpbf16ps; AMX tdpbf16ps past 32 columns on AMX) for bf16, FP32 FMA for f32 and f16
//   decode and batch cases "... CPU_REPACK": q4_0, q4_K, q5_K, q6_K, iq4_nl, iq4_xs, mxfp4, tq1_0, tq2_0, the float
//            weights loaded into the CPU device's extra buffer type (repacked at load time) where the CPU offers it,
//            next to the plain cases
//   decode L3 q4_0, q4_K and tq2_0 weights of 4096 x 4096 (4-10 MiB: in the last-level cache of most servers),
//            plain and CPU_REPACK, computed again and again (warm): GB/s of weights, ratio to a warm read of an array of
//            the same size by the same threads ("L3rd", the cache's read bandwidth)
//   MoE     MUL_MAT_ID of 128 q4_K experts, 8 per token (Qwen3-30B-A3B's up projection), and of 32 mxfp4 experts,
//            4 per token (gpt-oss-20b's), plain and CPU_REPACK: 1 token (GB/s of the experts read, ratio to DRAM;
//            the same experts every run) and 512 tokens (GFLOP/s, ratio to the int8 dot-product peak)
//   attention FLASH_ATTN_EXT, head size 128, 32 query / 8 KV heads, f16 K/V: GFLOP/s; decoding against 4,096 keys
//            (K / V in L3 here) and 32,768 (128 MiB: from DRAM), and a 512 x 512 prefill
//   memory-bound ops (SOFT_MAX, ROPE, SWIGLU, CPY, RMS_NORM, GET_ROWS, ADD): GB/s read + written, ratio to the
//            streaming ceiling of the same bytes read and written ("strm": a plain AVX-512 read-and-write loop
//            over arrays of the op's sizes, measured right after the case; these shapes fit in a large L3)
//   layers   one decode step of a LLaMA-7B-shaped layer stack (q4_0 weights): time per token against the time
//            the weight bytes take at the measured DRAM bandwidth
// Each figure is the median of repeated runs (at least 5, for about half a second).
//
// usage: cpu_kernels [--threads N] [--layers N] [--filter SUBSTRING] [--quick] [--rows N]
// (--filter may be repeated: a case runs when its name contains any of them; --rows: the decode cases' weight rows
// instead of 1 GiB worth, e.g. for a slow baseline)
#include "ggml-alloc.h"
#include "cpu_repack.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <immintrin.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median seconds per call of fn: at least min_runs runs and about `budget` seconds, after one warm-up run.
double time_median(const std::function<void()> & fn, double budget = 0.5, int min_runs = 5) {
    fn();
    std::vector<double> t;
    const auto          start = Clock::now();
    while (static_cast<int>(t.size()) < min_runs || (seconds_since(start) < budget && t.size() < 200)) {
        const auto t0 = Clock::now();
        fn();
        t.push_back(seconds_since(t0));
    }
    return median(t);
}

void run_threads(int n, const std::function<void(int)> & body) {
    std::vector<std::thread> pool;
    for (int i = 1; i < n; ++i) {
        pool.emplace_back(body, i);
    }
    body(0);
    for (std::thread & t : pool) {
        t.join();
    }
}

// ---- peaks -----------------------------------------------------------------------------------------------------

__attribute__((target("avx2"))) uint64_t sum_avx2(const uint64_t * p, size_t n) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i + 16 <= n; i += 16) {
        a0 = _mm256_add_epi64(a0, _mm256_load_si256(reinterpret_cast<const __m256i *>(p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256(reinterpret_cast<const __m256i *>(p + i + 4)));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256(reinterpret_cast<const __m256i *>(p + i + 8)));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256(reinterpret_cast<const __m256i *>(p + i + 12)));
    }
    a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    alignas(32) uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), a0);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

uint64_t sum_scalar(const uint64_t * p, size_t n) {
    uint64_t a[8] = {};
    for (size_t i = 0; i + 8 <= n; i += 8) {
        for (int k = 0; k < 8; ++k) {
            a[k] += p[i + k];
        }
    }
    return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

// An array of `bytes` summed by n_threads threads, each its part, first touched by the thread that reads it. A
// 1 GiB one (kDramBytes) is the DRAM probe: one read takes seconds_once(), read_gbs() is the median of repeated
// reads. An L3-sized one stays in the caches once read: seconds_per_read(reps) sums it reps times in one go (the
// threads are started once, not per read, so a read of a few MiB is not dominated by starting them).
class ReadProbe {
public:
    ReadProbe(size_t bytes, int n_threads)
        : n_threads_(n_threads), words_(bytes / sizeof(uint64_t) / 16 * 16),
          data_(static_cast<uint64_t *>(std::aligned_alloc(64, words_ * sizeof(uint64_t)))) {
        run_threads(n_threads_, [&](int t) {
            for (size_t i = begin(t); i < end(t); ++i) {
                data_[i] = i;
            }
        });
    }
    ~ReadProbe() { std::free(data_); }
    ReadProbe(const ReadProbe &)             = delete;
    ReadProbe & operator=(const ReadProbe &) = delete;

    size_t bytes() const { return words_ * sizeof(uint64_t); }

    double seconds_per_read(int reps) {
        const auto t0 = Clock::now();
        run_threads(n_threads_, [&](int t) {
            const size_t b = begin(t) / 16 * 16, e = end(t) / 16 * 16;
            uint64_t     s = 0;
            for (int r = 0; r < reps; ++r) {
                const uint64_t * part = data_ + b;
                asm volatile("" : "+r"(part)); // each read is a read: the compiler may not reuse the last sum
                s += avx2_ ? sum_avx2(part, e - b) : sum_scalar(part, e - b);
            }
            sink_ += s;
        });
        return seconds_since(t0) / reps;
    }

    double seconds_once() { return seconds_per_read(1); }

    double read_gbs() { return static_cast<double>(bytes()) / time_median([&] { seconds_once(); }, 1.0, 5) / 1e9; }

private:
    size_t begin(int t) const { return words_ * static_cast<size_t>(t) / static_cast<size_t>(n_threads_); }
    size_t end(int t) const { return words_ * static_cast<size_t>(t + 1) / static_cast<size_t>(n_threads_); }

    int                   n_threads_;
    size_t                words_;
    uint64_t *            data_;
    bool                  avx2_ = __builtin_cpu_supports("avx2");
    std::atomic<uint64_t> sink_{0};
};

constexpr size_t kDramBytes = size_t{1} << 30;

__attribute__((target("avx512f"))) float fma_loop_avx512(int64_t iters) {
    __m512 a[12];
    for (int k = 0; k < 12; ++k) {
        a[k] = _mm512_set1_ps(static_cast<float>(k) * 1e-3f);
    }
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int64_t i = 0; i < iters; ++i) {
        for (int k = 0; k < 12; ++k) {
            a[k] = _mm512_fmadd_ps(a[k], m, c);
        }
    }
    __m512 s = a[0];
    for (int k = 1; k < 12; ++k) {
        s = _mm512_add_ps(s, a[k]);
    }
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, s);
    return lanes[0] + lanes[15];
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(int64_t iters) {
    __m256 a[12];
    for (int k = 0; k < 12; ++k) {
        a[k] = _mm256_set1_ps(static_cast<float>(k) * 1e-3f);
    }
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    for (int64_t i = 0; i < iters; ++i) {
        for (int k = 0; k < 12; ++k) {
            a[k] = _mm256_fmadd_ps(a[k], m, c);
        }
    }
    alignas(32) float lanes[8];
    __m256            s = a[0];
    for (int k = 1; k < 12; ++k) {
        s = _mm256_add_ps(s, a[k]);
    }
    _mm256_store_ps(lanes, s);
    return lanes[0] + lanes[7];
}

// 12 independent chains of one dot-product instruction (AVX-512 VNNI vpdpbusd, AVX-512 BF16 vdpbf16ps).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) int vnni_loop(int64_t iters) {
    __m512i a[12];
    for (int k = 0; k < 12; ++k) {
        a[k] = _mm512_set1_epi32(k);
    }
    const __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
    for (int64_t i = 0; i < iters; ++i) {
        for (int k = 0; k < 12; ++k) {
            a[k] = _mm512_dpbusd_epi32(a[k], x, y);
        }
    }
    __m512i s = a[0];
    for (int k = 1; k < 12; ++k) {
        s = _mm512_add_epi32(s, a[k]);
    }
    alignas(64) int lanes[16];
    _mm512_store_si512(lanes, s);
    return lanes[0] + lanes[15];
}

__attribute__((target("avx512f,avx512bw,avx512bf16"))) float bf16_loop(int64_t iters) {
    __m512 a[12];
    for (int k = 0; k < 12; ++k) {
        a[k] = _mm512_set1_ps(static_cast<float>(k) * 1e-3f);
    }
    const __m512bh x = (__m512bh) _mm512_set1_epi32(0x3f803f80), y = (__m512bh) _mm512_set1_epi32(0x33d633d6);
    for (int64_t i = 0; i < iters; ++i) {
        for (int k = 0; k < 12; ++k) {
            a[k] = _mm512_dpbf16_ps(a[k], x, y);
        }
    }
    __m512 s = a[0];
    for (int k = 1; k < 12; ++k) {
        s = _mm512_add_ps(s, a[k]);
    }
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, s);
    return lanes[0] + lanes[15];
}

#if defined(__linux__)
// 4 independent accumulators of AMX tdpbf16ps (16 x 16 x 32 products, 16,384 ops each) or, kInt8, tdpbusd (16 x
// 16 x 64 byte products, 32,768 ops each) on tiles that stay in the tile registers. The process must hold the tile
// data permission (the library asks for it when it detects the CPU; asked again here, which is harmless).
template <bool kInt8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) int amx_loop(int64_t iters) {
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) != 0) {
        return 0;
    }
    struct alignas(64) {
        uint8_t  palette = 1, start_row = 0, reserved[14] = {};
        uint16_t colsb[16] = {};
        uint8_t  rows[16]  = {};
    } cfg;
    for (int t = 0; t < 8; ++t) {
        cfg.colsb[t] = 64;
        cfg.rows[t]  = 16;
    }
    alignas(64) static thread_local uint16_t ones[16 * 32]; // bf16 1.0, or bytes of 0x80 and 0x3f
    alignas(64) static thread_local int32_t  out[16 * 16];
    std::fill(std::begin(ones), std::end(ones), uint16_t{0x3f80});
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, ones, 64);
    _tile_loadd(5, ones, 64);
    _tile_loadd(6, ones, 64);
    _tile_loadd(7, ones, 64);
    for (int64_t i = 0; i < iters; ++i) {
        if constexpr (kInt8) {
            _tile_dpbusd(0, 4, 6);
            _tile_dpbusd(1, 4, 7);
            _tile_dpbusd(2, 5, 6);
            _tile_dpbusd(3, 5, 7);
        } else {
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, out, 64);
    _tile_release();
    return out[0];
}
#endif

enum class Peak { kFma, kBf16, kVnni, kAmxBf16, kAmxInt8 };

// Giga-operations per second of `which` on n_threads threads (a multiply-add counts 2), 0 when the CPU lacks it:
// the median of at least min_runs runs over about `budget` seconds (0.2 s by default, for pairing with one case).
double dot_peak(Peak which, int n_threads, double budget = 0.2, int min_runs = 3) {
    const int64_t iters = 5'000'000;
    if ((which == Peak::kVnni && !__builtin_cpu_supports("avx512vnni")) ||
        (which == Peak::kBf16 && !__builtin_cpu_supports("avx512bf16")) ||
        ((which == Peak::kAmxBf16 || which == Peak::kAmxInt8) && !ggml_cpu_has_amx_int8())) {
        return 0.0;
    }
#if !defined(__linux__)
    if (which == Peak::kAmxBf16 || which == Peak::kAmxInt8) {
        return 0.0;
    }
#endif
    const bool avx512 = __builtin_cpu_supports("avx512f");
    std::atomic<int> sink{0};
    const double     s = time_median(
        [&] {
            run_threads(n_threads, [&](int) {
                switch (which) {
                    case Peak::kVnni: sink.store(vnni_loop(iters)); break;
                    case Peak::kBf16: sink.store(static_cast<int>(bf16_loop(iters))); break;
#if defined(__linux__)
                    case Peak::kAmxBf16: sink.store(amx_loop<false>(iters / 16)); break;
                    case Peak::kAmxInt8: sink.store(amx_loop<true>(iters / 16)); break;
#else
                    case Peak::kAmxBf16:
                    case Peak::kAmxInt8: break;
#endif
                    case Peak::kFma:
                        sink.store(static_cast<int>(avx512 ? fma_loop_avx512(iters) : fma_loop_avx2(iters)));
                        break;
                }
            });
        },
        budget, min_runs);
    if (which == Peak::kAmxBf16 || which == Peak::kAmxInt8) { // 4 x iters / 16 tile products per thread
        const double ops = which == Peak::kAmxBf16 ? 16384.0 : 32768.0;
        return ops * 4 * static_cast<double>(iters / 16) * n_threads / s / 1e9;
    }
    const double ops_per_instr = which == Peak::kVnni ? 128.0 : which == Peak::kBf16 ? 64.0 : avx512 ? 32.0 : 16.0;
    return ops_per_instr * 12 * static_cast<double>(iters) * n_threads / s / 1e9;
}

// FP32 GFLOP/s of independent FMAs on n_threads threads (AVX-512 when present, else AVX2).
double fma_peak_gflops(int n_threads, const char ** isa) {
    *isa = __builtin_cpu_supports("avx512f") ? "avx512" : "avx2";
    return dot_peak(Peak::kFma, n_threads, 0.5, 5);
}

// ---- graphs on the CPU backend ----------------------------------------------------------------------------------

struct Options {
    int                      threads = 2;
    int                      layers  = 8;
    std::vector<std::string> filters;
    bool                     quick = false;
    int64_t                  rows  = 0; // decode rows; 0: 1 GiB of weights
};

// A graph whose tensors live in one CPU buffer, filled with random data, computed on `backend`.
class Bench {
public:
    Bench(ggml_backend_t backend, size_t n_tensors) : backend_(backend) {
        ctx_ = ggml_init({n_tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true});
    }
    ~Bench() {
        ggml_backend_buffer_free(buffer_);
        ggml_backend_buffer_free(wbuffer_);
        ggml_free(ctx_);
        ggml_free(wctx_);
    }
    Bench(const Bench &)             = delete;
    Bench & operator=(const Bench &) = delete;

    ggml_context * ctx() { return ctx_; }

    ggml_tensor * tensor(ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1) {
        ggml_tensor * t = ggml_new_tensor_4d(ctx_, type, ne0, ne1, ne2, ne3);
        filled_.push_back(t);
        return t;
    }

    // A tensor in a buffer of `buft` of its own (e.g. weights in CPU_REPACK), filled like those of tensor().
    ggml_tensor * weight(ggml_backend_buffer_type_t buft, ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2 = 1) {
        if (wctx_ == nullptr) {
            wctx_ = ggml_init({4 * ggml_tensor_overhead(), nullptr, true});
        }
        wbuft_          = buft;
        ggml_tensor * t = ggml_new_tensor_3d(wctx_, type, ne0, ne1, ne2);
        filled_.push_back(t);
        return t;
    }

    // Allocates everything, fills the tensors made with tensor() and weight() and builds the graph of `out`.
    bool prepare(ggml_tensor * out) {
        graph_ = ggml_new_graph(ctx_);
        ggml_build_forward_expand(graph_, out);
        buffer_ = ggml_backend_alloc_ctx_tensors(ctx_, backend_);
        if (buffer_ == nullptr) {
            return false;
        }
        if (wctx_ != nullptr && (wbuffer_ = ggml_backend_alloc_ctx_tensors_from_buft(wctx_, wbuft_)) == nullptr) {
            return false;
        }
        std::mt19937 rng(42);
        for (ggml_tensor * t : filled_) {
            fill(t, rng);
        }
        return true;
    }

    double seconds(double budget) {
        return time_median([&] { ggml_backend_graph_compute(backend_, graph_); }, budget);
    }

    double seconds_once() {
        const auto t0 = Clock::now();
        ggml_backend_graph_compute(backend_, graph_);
        return seconds_since(t0);
    }

private:
    static void fill(ggml_tensor * t, std::mt19937 & rng) {
        const int64_t n = ggml_nelements(t);
        if (t->type == GGML_TYPE_I32) {
            std::vector<int32_t> v(static_cast<size_t>(n));
            for (int32_t & x : v) {
                x = static_cast<int32_t>(rng() % 512);
            }
            ggml_backend_tensor_set(t, v.data(), 0, ggml_nbytes(t));
            return;
        }
        std::normal_distribution<float> d(0.0f, 1.0f);
        // one row's worth of random floats, converted per row block to keep the quantization cheap
        const int64_t      ne0   = t->ne[0];
        const int64_t      rows  = n / ne0;
        const int64_t      chunk = std::max<int64_t>(1, std::min<int64_t>(rows, 64));
        std::vector<float> src(static_cast<size_t>(ne0 * chunk));
        for (float & x : src) {
            x = d(rng) * 0.1f;
        }
        std::vector<uint8_t> bytes(ggml_row_size(t->type, ne0) * static_cast<size_t>(chunk));
        if (t->type == GGML_TYPE_F32) {
            std::memcpy(bytes.data(), src.data(), bytes.size());
        } else if (ggml_get_type_traits(t->type)->from_float_ref == nullptr) {
            // no quantizer (the grid formats, iq1): random blocks, each f16 d (the first field; iq1_m: the top
            // nibbles of its four scale words, bytes 48..55) a moderate scale
            const size_t block = ggml_type_size(t->type);
            for (size_t i = 0; i < bytes.size(); ++i) {
                bytes[i] = static_cast<uint8_t>(rng());
                if (i % block == block - 1) {
                    uint8_t *         b = bytes.data() + i + 1 - block;
                    const ggml_fp16_t h = ggml_fp32_to_fp16(0.01f + 0.001f * static_cast<float>(rng() % 16));
                    if (t->type == GGML_TYPE_IQ1_M) {
                        for (int w = 0; w < 4; ++w) {
                            b[49 + 2 * w] = static_cast<uint8_t>((b[49 + 2 * w] & 0x0f) | (((h >> (4 * w)) & 0xf) << 4));
                        }
                    } else {
                        std::memcpy(b, &h, sizeof(h));
                    }
                }
            }
        } else {
            ggml_quantize_chunk(t->type, src.data(), bytes.data(), 0, chunk, ne0, nullptr);
        }
        if (!ggml_backend_buffer_is_host(t->buffer)) { // e.g. CPU_REPACK: the whole tensor at once, repacked once
            std::vector<uint8_t> whole(ggml_nbytes(t));
            for (size_t off = 0; off < whole.size(); off += bytes.size()) {
                std::memcpy(whole.data() + off, bytes.data(), std::min(bytes.size(), whole.size() - off));
            }
            ggml_backend_tensor_set(t, whole.data(), 0, whole.size());
            return;
        }
        for (int64_t r = 0; r < rows; r += chunk) {
            const int64_t k = std::min(chunk, rows - r);
            ggml_backend_tensor_set(t, bytes.data(), static_cast<size_t>(r) * ggml_row_size(t->type, ne0),
                                    static_cast<size_t>(k) * ggml_row_size(t->type, ne0));
        }
    }

    ggml_backend_t             backend_;
    ggml_context *             ctx_    = nullptr;
    ggml_backend_buffer_t      buffer_ = nullptr;
    ggml_context *             wctx_    = nullptr; // weight(): their context, buffer type and buffer
    ggml_backend_buffer_type_t wbuft_   = nullptr;
    ggml_backend_buffer_t      wbuffer_ = nullptr;
    ggml_cgraph *              graph_  = nullptr;
    std::vector<ggml_tensor *> filled_;
};

struct Peaks {
    double      dram_gbs;
    double      fma_gflops;
    ReadProbe * dram;
};

void row(const char * name, double value, const char * unit, double ratio, const char * of) {
    std::printf("| %-44s | %9.1f %-7s | %6.3f x %-5s |\n", name, value, unit, ratio, of);
}

bool selected(const Options & o, const std::string & name) {
    return o.filters.empty() || std::any_of(o.filters.begin(), o.filters.end(), [&](const std::string & f) {
               return name.find(f) != std::string::npos;
           });
}

// The weight types with repacked cases (weights loaded into CPU_REPACK), next to their plain ones (the floats are
// stored plainly there where the CPU has no tile for them: the case then measures the plain path).
constexpr ggml_type kRepackTypes[] = {GGML_TYPE_Q4_0,  GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,   GGML_TYPE_Q6_K,
                                      GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4, GGML_TYPE_TQ1_0,
                                      GGML_TYPE_TQ2_0, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S,
                                      GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M,
                                      GGML_TYPE_F32,    GGML_TYPE_F16,    GGML_TYPE_BF16};

// b's graph: m x k weights of `type` (in `buft` when it is not nullptr) times one column; the weights, or nullptr
// when b cannot be prepared.
ggml_tensor * prepare_decode(Bench & b, ggml_type type, int64_t k, int64_t m, ggml_backend_buffer_type_t buft) {
    ggml_tensor * w = buft ? b.weight(buft, type, k, m) : b.tensor(type, k, m);
    ggml_tensor * x = b.tensor(GGML_TYPE_F32, k, 1);
    return b.prepare(ggml_mul_mat(b.ctx(), w, x)) ? w : nullptr;
}

// One decode case; weights in `buft` when it is not nullptr (the case is then named "... <type> CPU_REPACK").
void decode_case(ggml_backend_t be, const Options & o, const Peaks & p, ggml_type type, ggml_backend_buffer_type_t buft) {
    const int64_t k        = 4096;
    const auto    fill_gib = static_cast<int64_t>((size_t{1} << 30) / ggml_row_size(type, k));
    const int64_t m        = o.rows > 0 ? o.rows : o.quick ? 4096 : std::max<int64_t>(14336, fill_gib);
    const std::string name = std::string("decode ") + std::to_string(m) + "x" + std::to_string(k) + " " +
                             ggml_type_name(type) + (buft ? " CPU_REPACK" : "") + ", GB/s of weights";
    if (!selected(o, name)) {
        return;
    }
    Bench         b(be, 8);
    ggml_tensor * w = prepare_decode(b, type, k, m, buft);
    if (w == nullptr) {
        return;
    }
    // paired with DRAM reads of the same size, alternately: the ratio holds while the machine's bandwidth
    // drifts (other tenants)
    std::vector<double> t_w, t_d;
    b.seconds_once();
    for (int r = 0; r < 7; ++r) {
        t_d.push_back(p.dram->seconds_once());
        t_w.push_back(b.seconds_once());
    }
    const double gbs  = static_cast<double>(ggml_nbytes(w)) / median(t_w) / 1e9;
    const double dram = static_cast<double>(p.dram->bytes()) / median(t_d) / 1e9;
    row(name.c_str(), gbs, "GB/s", gbs / dram, "DRAM");
}

// One decode case on weights that stay in the last-level cache (4096 x 4096: 9-10 MiB at 4-5 bits): computed
// again and again, warm, against a warm read of an array of the same size by the same threads (5 x 20 reads);
// medians of 7 alternating pairs (the ceiling is the cache's read bandwidth, not DRAM's).
void warm_decode_case(ggml_backend_t be, const Options & o, ggml_type type, ggml_backend_buffer_type_t buft) {
    const int64_t     k = 4096, m = 4096;
    const std::string name = std::string("decode L3 ") + std::to_string(m) + "x" + std::to_string(k) + " " +
                             ggml_type_name(type) + (buft ? " CPU_REPACK" : "") + ", GB/s";
    if (!selected(o, name)) {
        return;
    }
    Bench         b(be, 8);
    ggml_tensor * w = prepare_decode(b, type, k, m, buft);
    if (w == nullptr) {
        return;
    }
    ReadProbe           read(ggml_nbytes(w), o.threads);
    std::vector<double> t_w, t_r;
    for (int r = 0; r < 7; ++r) {
        std::vector<double> reads;
        read.seconds_per_read(1); // warms the array again (the weights' runs evicted part of it)
        for (int i = 0; i < 5; ++i) {
            reads.push_back(read.seconds_per_read(20));
        }
        t_r.push_back(median(reads));
        t_w.push_back(b.seconds(0.2));
    }
    const double gbs  = static_cast<double>(ggml_nbytes(w)) / median(t_w) / 1e9;
    const double ceil = static_cast<double>(ggml_nbytes(w)) / median(t_r) / 1e9;
    row(name.c_str(), gbs, "GB/s", gbs / ceil, "L3rd");
}

void decode_cases(ggml_backend_t be, const Options & o, const Peaks & p) {
    const ggml_type types[] = {GGML_TYPE_F32,     GGML_TYPE_F16,     GGML_TYPE_BF16,   GGML_TYPE_Q8_0,
                               GGML_TYPE_Q4_0,    GGML_TYPE_Q4_1,    GGML_TYPE_Q5_0,   GGML_TYPE_Q5_1,
                               GGML_TYPE_Q2_K,    GGML_TYPE_Q3_K,    GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,
                               GGML_TYPE_Q6_K,    GGML_TYPE_IQ4_NL,  GGML_TYPE_MXFP4,  GGML_TYPE_IQ4_XS,
                               GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS,  GGML_TYPE_IQ2_S,  GGML_TYPE_IQ3_XXS,
                               GGML_TYPE_IQ3_S,   GGML_TYPE_IQ1_S,   GGML_TYPE_IQ1_M,  GGML_TYPE_TQ1_0,
                               GGML_TYPE_TQ2_0};
    for (ggml_type type : types) {
        decode_case(be, o, p, type, nullptr);
    }
    for (ggml_type type : kRepackTypes) {
        if (ggml_backend_buffer_type_t buft = cpu_repack_buffer_type()) {
            decode_case(be, o, p, type, buft);
        }
    }
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_TQ2_0}) {
        warm_decode_case(be, o, type, nullptr);
        if (ggml_backend_buffer_type_t buft = cpu_repack_buffer_type()) {
            warm_decode_case(be, o, type, buft);
        }
    }
}

// One batch case; weights in `buft` when it is not nullptr.
void batch_case(ggml_backend_t be, const Options & o, int64_t n, ggml_type type, ggml_backend_buffer_type_t buft) {
    const int64_t     k = 4096, m = 4096;
    const std::string name = "batch " + std::to_string(n) + ", 4096x4096 " + ggml_type_name(type) +
                             (buft ? " CPU_REPACK" : "") + ", GFLOP/s";
    if (!selected(o, name)) {
        return;
    }
    Bench         b(be, 8);
    ggml_tensor * w = buft ? b.weight(buft, type, k, m) : b.tensor(type, k, m);
    ggml_tensor * x = b.tensor(GGML_TYPE_F32, k, n);
    if (!b.prepare(ggml_mul_mat(b.ctx(), w, x))) {
        return;
    }
    const double gflops = 2.0 * static_cast<double>(k * m * n) / b.seconds(0.5) / 1e9;
    // against the peak of the kernel's instruction measured right after the case (the FMA peak when the CPU
    // lacks the dot-product instruction; bf16 batches past 32 columns run on AMX where the CPU has it)
    Peak which = ggml_is_quantized(type) ? Peak::kVnni : type == GGML_TYPE_BF16 ? Peak::kBf16 : Peak::kFma;
    if (n > 32 && ggml_cpu_has_amx_int8() && type != GGML_TYPE_F32) {
        // past 32 columns bf16 runs on AMX-BF16 tiles and quantized weights on AMX-INT8 tiles (CPU_REPACK weights
        // too: their panels are unpacked for it; f16, four bf16 products per product on AMX, stays against the FMA
        // peak, the yardstick for it)
        if (type == GGML_TYPE_BF16) {
            which = Peak::kAmxBf16;
        } else if (type != GGML_TYPE_F16) {
            which = Peak::kAmxInt8;
        }
    }
    double peak = dot_peak(which, o.threads);
    if (peak <= 0.0) {
        which = Peak::kFma;
        peak  = dot_peak(which, o.threads);
    }
    const char * peak_name = which == Peak::kVnni       ? "VNNI"
                             : which == Peak::kBf16     ? "BF16"
                             : which == Peak::kAmxBf16  ? "AMXbf"
                             : which == Peak::kAmxInt8  ? "AMXi8"
                                                        : "FMA";
    row(name.c_str(), gflops, "GFLOP/s", gflops / peak, peak_name);
}

void batch_cases(ggml_backend_t be, const Options & o) {
    struct Case {
        int64_t   n;
        ggml_type type;
    };
    const Case cases[] = {
        {2, GGML_TYPE_F32},    {2, GGML_TYPE_F16},     {2, GGML_TYPE_BF16},    {4, GGML_TYPE_F32},
        {4, GGML_TYPE_F16},    {4, GGML_TYPE_BF16},    {32, GGML_TYPE_F32},
        {8, GGML_TYPE_Q4_0},   {8, GGML_TYPE_Q4_K},    {8, GGML_TYPE_IQ4_NL},  {8, GGML_TYPE_Q8_0},
        {8, GGML_TYPE_F32},    {8, GGML_TYPE_F16},     {8, GGML_TYPE_BF16},    {16, GGML_TYPE_F32},
        {16, GGML_TYPE_F16},   {16, GGML_TYPE_BF16},   {32, GGML_TYPE_F16},    {32, GGML_TYPE_BF16},
        {512, GGML_TYPE_F32},  {512, GGML_TYPE_F16},   {512, GGML_TYPE_BF16},  {512, GGML_TYPE_Q8_0},
        {512, GGML_TYPE_Q4_0}, {512, GGML_TYPE_Q4_K},  {512, GGML_TYPE_IQ4_NL}, {512, GGML_TYPE_Q4_1},
        {512, GGML_TYPE_Q5_K}, {512, GGML_TYPE_Q6_K},  {512, GGML_TYPE_IQ4_XS}, {512, GGML_TYPE_IQ2_XXS},
        {512, GGML_TYPE_IQ3_S}, {512, GGML_TYPE_IQ1_S},  {512, GGML_TYPE_IQ1_M}, {512, GGML_TYPE_TQ1_0},
        {512, GGML_TYPE_TQ2_0},
    };
    for (const Case & c : cases) {
        batch_case(be, o, c.n, c.type, nullptr);
    }
    for (int64_t n : {2, 4, 8, 16, 32, 512}) {
        for (ggml_type type : kRepackTypes) {
            const bool small_float = !ggml_is_quantized(type) && n != 8 && n != 512; // the 2-32 columns
            if (ggml_backend_buffer_type_t buft = cpu_repack_buffer_type(); buft && (n == 8 || n == 512 || small_float)) {
                batch_case(be, o, n, type, buft);
            }
        }
    }
}

void attention_cases(ggml_backend_t be, const Options & o, const Peaks & p) {
    struct Case {
        int64_t n_q, n_kv;
    };
    for (const Case c : {Case{1, 4096}, Case{1, 32768}, Case{512, 512}}) { // 1 x 32768: 128 MiB of K / V, from DRAM
        const std::string name = "FLASH_ATTN_EXT hs128 32/8 heads f16 KV, " + std::to_string(c.n_q) + " x " +
                                 std::to_string(c.n_kv) + ", GFLOP/s";
        if (!selected(o, name)) {
            continue;
        }
        const int64_t hs = 128, n_head = 32, n_head_kv = 8;
        Bench         b(be, 16);
        ggml_tensor * q    = b.tensor(GGML_TYPE_F32, hs, c.n_q, n_head);
        ggml_tensor * kt   = b.tensor(GGML_TYPE_F16, hs, c.n_kv, n_head_kv);
        ggml_tensor * vt   = b.tensor(GGML_TYPE_F16, hs, c.n_kv, n_head_kv);
        ggml_tensor * mask = b.tensor(GGML_TYPE_F16, c.n_kv, GGML_PAD(c.n_q, 64));
        ggml_tensor * out  = ggml_flash_attn_ext(b.ctx(), q, kt, vt, mask, 1.0f / std::sqrt(128.0f), 0.0f, 0.0f);
        if (!b.prepare(out)) {
            continue;
        }
        const double flops  = 4.0 * static_cast<double>(hs * c.n_q * c.n_kv * n_head);
        const double gflops = flops / b.seconds(0.5) / 1e9;
        row(name.c_str(), gflops, "GFLOP/s", gflops / p.fma_gflops, "FMA");
    }
}

// MUL_MAT_ID of a mixture of experts: n_expert experts of rows x k weights, n_used distinct ones per token (drawn
// uniformly), in the CPU buffer or (buft) CPU_REPACK, for 1 token (GB/s of the experts read, ratio to the DRAM read
// bandwidth; the same experts every run, so they stay in a cache that large) and for 512 (GFLOP/s, ratio to the int8
// dot-product peak, else the FMA peak).
struct MoeShape {
    const char * name;
    ggml_type    type;
    int64_t      k, rows, n_expert, n_used;
};

// Qwen3-30B-A3B's up projection (128 q4_K experts of 768 x 2048, 8 per token), gpt-oss-20b's (32 mxfp4 experts of
// 2880 x 2880, 4 per token).
constexpr MoeShape kMoeShapes[] = {{"128 experts top-8 768x2048", GGML_TYPE_Q4_K, 2048, 768, 128, 8},
                                   {"32 experts top-4 2880x2880", GGML_TYPE_MXFP4, 2880, 2880, 32, 4}};

void moe_case(ggml_backend_t be, const Options & o, const Peaks & p, const MoeShape & sh, int64_t n_tokens,
              ggml_backend_buffer_type_t buft) {
    const std::string name = std::string("MUL_MAT_ID ") + sh.name + " " + ggml_type_name(sh.type) +
                             (buft ? " CPU_REPACK" : "") + ", " + std::to_string(n_tokens) +
                             (n_tokens == 1 ? " token, GB/s" : " tokens, GFLOP/s");
    if (!selected(o, name)) {
        return;
    }
    Bench         b(be, 8);
    ggml_tensor * as  = buft ? b.weight(buft, sh.type, sh.k, sh.rows, sh.n_expert)
                             : b.tensor(sh.type, sh.k, sh.rows, sh.n_expert);
    ggml_tensor * x   = b.tensor(GGML_TYPE_F32, sh.k, 1, n_tokens);
    ggml_tensor * ids = b.tensor(GGML_TYPE_I32, sh.n_used, n_tokens);
    if (!b.prepare(ggml_mul_mat_id(b.ctx(), as, x, ids))) {
        return;
    }
    std::mt19937         rng(7);
    std::vector<int32_t> experts(static_cast<size_t>(sh.n_expert)), chosen;
    for (int64_t t = 0; t < n_tokens; ++t) {
        std::iota(experts.begin(), experts.end(), 0);
        std::shuffle(experts.begin(), experts.end(), rng);
        chosen.insert(chosen.end(), experts.begin(), experts.begin() + sh.n_used);
    }
    ggml_backend_tensor_set(ids, chosen.data(), 0, ggml_nbytes(ids));
    const double secs = b.seconds(0.5);
    if (n_tokens == 1) {
        const double expert = static_cast<double>(ggml_nbytes(as) / sh.n_expert);
        const double gbs    = static_cast<double>(sh.n_used) * expert / secs / 1e9;
        row(name.c_str(), gbs, "GB/s", gbs / p.dram_gbs, "DRAM");
        return;
    }
    const double gflops = 2.0 * static_cast<double>(sh.k * sh.rows * sh.n_used * n_tokens) / secs / 1e9;
    const double vnni   = dot_peak(Peak::kVnni, o.threads);
    row(name.c_str(), gflops, "GFLOP/s", gflops / (vnni > 0 ? vnni : p.fma_gflops), vnni > 0 ? "VNNI" : "FMA");
}

void moe_cases(ggml_backend_t be, const Options & o, const Peaks & p) {
    for (const MoeShape & sh : kMoeShapes) {
        for (const int64_t n_tokens : {int64_t{1}, int64_t{512}}) {
            moe_case(be, o, p, sh, n_tokens, nullptr);
            if (ggml_backend_buffer_type_t buft = cpu_repack_buffer_type()) {
                moe_case(be, o, p, sh, n_tokens, buft);
            }
        }
    }
}

// The streaming ceiling of a one-pass op that reads in_bytes and writes out_bytes: arrays of those sizes (so they
// sit in the same level of the memory hierarchy as the op's own), n_threads threads each streaming its share with
// AVX-512 loads and stores (output vector j the sum of its share of input vectors), 20 passes per timing; GB/s
// of bytes read + written, median of 5 timings. No kernel of an op with that traffic can beat it by much.
__attribute__((target("avx512f"))) void stream_pass(const float * in, size_t in_vecs, float * out, size_t out_vecs) {
    size_t i = 0;
    for (size_t j = 0; j < out_vecs; ++j) {
        const size_t end = (j + 1) * in_vecs / out_vecs;
        __m512       s   = _mm512_setzero_ps();
        for (; i < end; ++i) {
            s = _mm512_add_ps(s, _mm512_loadu_ps(in + i * 16));
        }
        _mm512_storeu_ps(out + j * 16, s);
    }
}

double stream_gbs(size_t in_bytes, size_t out_bytes, int n_threads) {
    if (!__builtin_cpu_supports("avx512f") || out_bytes < 64) {
        return 0.0;
    }
    const size_t in_vecs = std::max<size_t>(in_bytes / 64, 1), out_vecs = out_bytes / 64;
    auto *       in      = static_cast<float *>(std::aligned_alloc(64, in_vecs * 64));
    auto *       out     = static_cast<float *>(std::aligned_alloc(64, out_vecs * 64));
    constexpr int kPasses = 20;
    auto          share   = [&](int t, size_t n) { return n * static_cast<size_t>(t) / static_cast<size_t>(n_threads); };
    run_threads(n_threads, [&](int t) { // first touch by the thread that streams the part
        std::fill(in + share(t, in_vecs) * 16, in + share(t + 1, in_vecs) * 16, 1.0f);
        std::fill(out + share(t, out_vecs) * 16, out + share(t + 1, out_vecs) * 16, 0.0f);
    });
    std::vector<double> t;
    for (int run = 0; run < 6; ++run) {
        const auto t0 = Clock::now();
        run_threads(n_threads, [&](int th) {
            const size_t o0 = share(th, out_vecs), o1 = share(th + 1, out_vecs);
            const size_t i0 = o0 * in_vecs / out_vecs, i1 = o1 * in_vecs / out_vecs;
            for (int pass = 0; pass < kPasses; ++pass) {
                stream_pass(in + i0 * 16, i1 - i0, out + o0 * 16, o1 - o0);
            }
        });
        if (run > 0) { // the first run warms the caches
            t.push_back(seconds_since(t0) / kPasses);
        }
    }
    std::free(in);
    std::free(out);
    return static_cast<double>(in_vecs * 64 + out_vecs * 64) / median(t) / 1e9;
}

void memory_cases(ggml_backend_t be, const Options & o, const Peaks & p) {
    struct Case {
        const char *                                                        name;
        std::function<ggml_tensor *(Bench &, double & bytes)> build;
    };
    const Case cases[] = {
        {"SOFT_MAX [4096,512] with mask, GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * x    = b.tensor(GGML_TYPE_F32, 4096, 512);
             ggml_tensor * mask = b.tensor(GGML_TYPE_F16, 4096, 512);
             bytes              = 2.0 * static_cast<double>(ggml_nbytes(x)) + static_cast<double>(ggml_nbytes(mask));
             return ggml_soft_max_ext(b.ctx(), x, mask, 0.125f, 0.0f);
         }},
        {"ROPE neox [128,32,512], GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * x   = b.tensor(GGML_TYPE_F32, 128, 32, 512);
             ggml_tensor * pos = b.tensor(GGML_TYPE_I32, 512);
             bytes             = 2.0 * static_cast<double>(ggml_nbytes(x));
             return ggml_rope_ext(b.ctx(), x, pos, nullptr, 128, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f,
                                  1.0f, 32.0f, 1.0f);
         }},
        {"SWIGLU [11008,512], GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * g = b.tensor(GGML_TYPE_F32, 11008, 512);
             ggml_tensor * u = b.tensor(GGML_TYPE_F32, 11008, 512);
             bytes           = 3.0 * static_cast<double>(ggml_nbytes(g));
             return ggml_swiglu_split(b.ctx(), g, u);
         }},
        {"CPY f32->f16 [4096,4096], GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * x = b.tensor(GGML_TYPE_F32, 4096, 4096);
             ggml_tensor * y = ggml_new_tensor_2d(b.ctx(), GGML_TYPE_F16, 4096, 4096);
             bytes           = 1.5 * static_cast<double>(ggml_nbytes(x));
             return ggml_cpy(b.ctx(), x, y);
         }},
        {"RMS_NORM [4096,512], GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * x = b.tensor(GGML_TYPE_F32, 4096, 512);
             bytes           = 2.0 * static_cast<double>(ggml_nbytes(x));
             return ggml_rms_norm(b.ctx(), x, 1e-5f);
         }},
        {"GET_ROWS q4_0 [4096, 32000] x 512, GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * w   = b.tensor(GGML_TYPE_Q4_0, 4096, 32000);
             ggml_tensor * ids = b.tensor(GGML_TYPE_I32, 512);
             bytes             = 512.0 * (static_cast<double>(ggml_row_size(GGML_TYPE_Q4_0, 4096)) + 4096.0 * 4);
             return ggml_get_rows(b.ctx(), w, ids);
         }},
        {"ADD [4096,512] + [4096,512], GB/s",
         [](Bench & b, double & bytes) {
             ggml_tensor * x = b.tensor(GGML_TYPE_F32, 4096, 512);
             ggml_tensor * y = b.tensor(GGML_TYPE_F32, 4096, 512);
             bytes           = 3.0 * static_cast<double>(ggml_nbytes(x));
             return ggml_add(b.ctx(), x, y);
         }},
    };
    for (const Case & c : cases) {
        if (!selected(o, c.name)) {
            continue;
        }
        Bench        b(be, 16);
        double       bytes = 0;
        ggml_tensor * out  = c.build(b, bytes);
        if (!b.prepare(out)) {
            continue;
        }
        const double gbs = bytes / b.seconds(0.5) / 1e9;
        // against the streaming ceiling of the same traffic, measured right after (the DRAM read peak where the
        // CPU has no AVX-512)
        const auto   written = static_cast<size_t>(ggml_nbytes(out));
        const double ceiling = stream_gbs(static_cast<size_t>(bytes) - std::min(written, static_cast<size_t>(bytes)), written, o.threads);
        if (ceiling > 0.0) {
            row(c.name, gbs, "GB/s", gbs / ceiling, "strm");
        } else {
            row(c.name, gbs, "GB/s", gbs / p.dram_gbs, "DRAM");
        }
    }
}

// One decode step (1 token) of a LLaMA-7B-shaped stack of `layers` layers with q4_0 weights: attention
// projections, 512 cached positions, SwiGLU FFN. Reported against the weight bytes at DRAM speed.
void layer_case(ggml_backend_t be, const Options & o, const Peaks & p) {
    const std::string name = "decode step, LLaMA-7B x " + std::to_string(o.layers) + " layers q4_0, ms/token";
    if (!selected(o, name)) {
        return;
    }
    const int64_t embd = 4096, ff = 11008, hs = 128, n_head = 32, n_kv = 512;
    Bench         b(be, 64 * static_cast<size_t>(o.layers) + 16);
    ggml_context * ctx     = b.ctx();
    ggml_tensor *  cur     = b.tensor(GGML_TYPE_F32, embd, 1);
    ggml_tensor *  pos     = b.tensor(GGML_TYPE_I32, 1);
    double         w_bytes = 0;
    for (int l = 0; l < o.layers; ++l) {
        auto weight = [&](int64_t k, int64_t m) {
            ggml_tensor * w = b.tensor(GGML_TYPE_Q4_0, k, m);
            w_bytes += static_cast<double>(ggml_nbytes(w));
            return w;
        };
        ggml_tensor * norm = b.tensor(GGML_TYPE_F32, embd);
        ggml_tensor * h    = ggml_mul(ctx, ggml_rms_norm(ctx, cur, 1e-5f), norm);
        ggml_tensor * q    = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, weight(embd, embd), h), hs, n_head, 1);
        ggml_mul_mat(ctx, weight(embd, embd), h); // K and V projections (their cache writes are left out)
        ggml_tensor * kc = b.tensor(GGML_TYPE_F16, hs, n_kv, n_head);
        ggml_tensor * vc = b.tensor(GGML_TYPE_F16, hs, n_kv, n_head);
        q                = ggml_rope_ext(ctx, q, pos, nullptr, hs, GGML_ROPE_TYPE_NORMAL, 4096, 10000.0f, 1.0f, 0.0f,
                                         1.0f, 32.0f, 1.0f);
        ggml_tensor * a  = ggml_flash_attn_ext(ctx, ggml_permute(ctx, q, 0, 2, 1, 3), kc, vc, nullptr,
                                               1.0f / std::sqrt(128.0f), 0.0f, 0.0f);
        ggml_tensor * o_ = ggml_mul_mat(ctx, weight(embd, embd), ggml_reshape_2d(ctx, a, embd, 1));
        ggml_tensor * f  = ggml_add(ctx, o_, cur);
        ggml_tensor * g  = ggml_mul_mat(ctx, weight(embd, ff), f);
        ggml_tensor * u  = ggml_mul_mat(ctx, weight(embd, ff), f);
        cur              = ggml_add(ctx, ggml_mul_mat(ctx, weight(ff, embd), ggml_swiglu_split(ctx, g, u)), f);
        w_bytes += static_cast<double>(ggml_row_size(GGML_TYPE_Q4_0, embd)) * embd; // the K/V projections
    }
    if (!b.prepare(cur)) {
        return;
    }
    const double s     = b.seconds(2.0);
    const double bound = w_bytes / (p.dram_gbs * 1e9);
    row(name.c_str(), s * 1e3, "ms", bound / s, "bound");
}

} // namespace

int main(int argc, char ** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--threads" && i + 1 < argc) {
            o.threads = std::atoi(argv[++i]);
        } else if (a == "--layers" && i + 1 < argc) {
            o.layers = std::atoi(argv[++i]);
        } else if (a == "--filter" && i + 1 < argc) {
            o.filters.emplace_back(argv[++i]);
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--rows" && i + 1 < argc) {
            o.rows = std::atoll(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: cpu_kernels [--threads N] [--layers N] [--filter SUBSTRING] [--quick] [--rows N]\n");
            return 2;
        }
    }
    ggml_backend_t be = ggml_backend_cpu_init();
    if (be == nullptr) {
        return 1;
    }
    ggml_backend_cpu_set_n_threads(be, o.threads);
    const char * isa = "";
    Peaks        p{};
    ReadProbe dram(kDramBytes, o.threads);
    p.dram       = &dram;
    p.dram_gbs   = dram.read_gbs();
    p.fma_gflops = fma_peak_gflops(o.threads, &isa);
    std::printf("cpu_kernels, %d threads: DRAM read %.1f GB/s (1 GiB), FP32 FMA peak %.0f GFLOP/s (%s)\n\n", o.threads,
                p.dram_gbs, p.fma_gflops, isa);
    std::printf("| %-44s | %-17s | %-13s |\n", "case", "median", "ratio");
    std::printf("|%s|%s|%s|\n", std::string(46, '-').c_str(), std::string(19, '-').c_str(), std::string(15, '-').c_str());
    decode_cases(be, o, p);
    batch_cases(be, o);
    attention_cases(be, o, p);
    moe_cases(be, o, p);
    memory_cases(be, o, p);
    layer_case(be, o, p);
    ggml_backend_free(be);
    return 0;
}
