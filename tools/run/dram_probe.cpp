#include "dram_probe.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <thread>
#include <vector>

namespace switchyard::run {

namespace {

constexpr size_t kBytes = size_t{1} << 30;

uint64_t sum_range(const uint64_t * p, size_t n) {
    // four independent sums so the loads are not serialised on one addition chain
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t   i  = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += p[i];
        s1 += p[i + 1];
        s2 += p[i + 2];
        s3 += p[i + 3];
    }
    for (; i < n; ++i) {
        s0 += p[i];
    }
    return s0 + s1 + s2 + s3;
}

} // namespace

double dram_read_gbs(int n_threads) {
    const size_t                 n = kBytes / sizeof(uint64_t);
    std::unique_ptr<uint64_t[]> data(new (std::nothrow) uint64_t[n]);
    if (!data) {
        return 0.0;
    }
    for (size_t i = 0; i < n; ++i) {
        data[i] = i; // touch every page, so the passes read memory rather than fault pages in
    }
    const int             nth = std::max(n_threads, 1);
    std::vector<double>   passes;
    std::vector<uint64_t> sinks(static_cast<size_t>(nth));
    for (int pass = 0; pass < 3; ++pass) {
        const auto               t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> threads;
        for (int t = 0; t < nth; ++t) {
            threads.emplace_back([&, t] {
                const size_t begin = n * static_cast<size_t>(t) / static_cast<size_t>(nth);
                const size_t end   = n * static_cast<size_t>(t + 1) / static_cast<size_t>(nth);
                sinks[static_cast<size_t>(t)] = sum_range(data.get() + begin, end - begin);
            });
        }
        for (std::thread & th : threads) {
            th.join();
        }
        passes.push_back(static_cast<double>(kBytes) /
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9);
    }
    std::sort(passes.begin(), passes.end());
    return sinks[0] == 1 ? 0.0 : passes[1]; // (sinks read so the sums are not optimised away)
}

uint64_t weight_bytes_per_token(const Model & model) {
    const uint64_t all   = model.n_bytes();
    const uint64_t embd  = model.token_embd ? ggml_nbytes(model.token_embd) : 0;
    const bool     tied  = !model.has_tensor("output.weight"); // the output reads the whole embedding matrix
    const uint64_t a_row = model.token_embd ? static_cast<uint64_t>(model.token_embd->nb[1]) : 0;
    return tied ? all + a_row : all - embd + a_row;
}

} // namespace switchyard::run
