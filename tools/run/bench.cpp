#include "bench.h"

#include "bench_table.h"
#include "context.h"
#include "dram_probe.h"
#include "ranks.h"
#include "report.h"

#include <algorithm>
#include <chrono>

namespace switchyard::run {

namespace {

// the tests in llama-bench's order: for each thread count, the ppN, then the tgN, then the ppP+tgN
std::vector<BenchRow> bench_tests(const BenchOptions & b, int n_threads) {
    std::vector<BenchRow> rows;
    for (int t : b.n_threads.size() > 1 ? b.n_threads : std::vector<int>{n_threads}) {
        for (int64_t p : b.n_prompt) {
            if (p > 0) {
                rows.push_back({"pp" + std::to_string(p), p, 0, {}, t});
            }
        }
        for (int64_t n : b.n_gen) {
            if (n > 0) {
                rows.push_back({"tg" + std::to_string(n), 0, n, {}, t});
            }
        }
        for (const auto & [p, n] : b.pg) {
            rows.push_back({"pp" + std::to_string(p) + "+tg" + std::to_string(n), p, n, {}, t});
        }
    }
    return rows;
}

// one run of a test from an empty cache: its tokens per second
bool run_once(Context & ctx, const BenchRow & test, const std::vector<int32_t> & tokens, double & rate,
              std::string & error) {
    std::vector<float> logits;
    ctx.clear();
    const auto t0 = std::chrono::steady_clock::now();
    if (test.n_prompt > 0) {
        const std::vector<int32_t> prompt(tokens.begin(), tokens.begin() + test.n_prompt);
        if (!ctx.decode(prompt, false, logits, error)) {
            return false;
        }
    }
    for (int64_t i = 0; i < test.n_gen; ++i) {
        if (!ctx.decode({tokens[static_cast<size_t>(i)]}, false, logits, error)) {
            return false;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rate                 = static_cast<double>(test.n_prompt + test.n_gen) / seconds;
    return true;
}

} // namespace

int run_bench(const Model & model, Devices & devices, const Options & o, const std::string & model_path,
              std::FILE * info) {
    std::vector<BenchRow> rows   = bench_tests(o.bench_options, devices.n_threads());
    int64_t               needed = 1;
    for (const BenchRow & r : rows) {
        needed = std::max(needed, r.n_prompt + r.n_gen);
    }
    std::string error;
    ContextParams params{std::max(o.n_ctx, needed), o.n_batch, o.n_ubatch, o.flash_attn != FlashAttn::Off};
    auto          ctx = Context::create(model, devices, params, error);
    if (!ctx) {
        std::fprintf(stderr, "%serror: %s\n", ranks::prefix().c_str(), error.c_str());
        return 1;
    }
    std::vector<int32_t> tokens(static_cast<size_t>(needed));
    for (size_t i = 0; i < tokens.size(); ++i) {
        tokens[i] = static_cast<int32_t>((i * 7 + 3) % static_cast<size_t>(model.hparams().n_vocab));
    }
    ranks::reset_traffic();
    int64_t n_run = 0; // tokens run, for the per-rank traffic under mpirun
    // per thread count, the first tgN, whose repetitions the DRAM probe interleaves (GB/s, as many threads)
    struct Bound {
        const BenchRow *    test = nullptr;
        std::vector<double> dram;
    };
    std::vector<Bound> bounds;
    for (BenchRow & test : rows) {
        if (test.n_threads != devices.n_threads()) {
            devices.set_threads(test.n_threads);
        }
        const bool probe = test.n_prompt == 0 &&
                           std::none_of(bounds.begin(), bounds.end(), [&](const Bound & b) {
                               return b.test->n_threads == test.n_threads;
                           });
        if (probe) {
            bounds.push_back({&test, {}});
        }
        for (int rep = -1; rep < o.bench_options.reps; ++rep) { // -1: the warm-up
            double rate = 0.0;
            if (!run_once(*ctx, test, tokens, rate, error)) {
                std::fprintf(stderr, "%serror: %s: %s\n", ranks::prefix().c_str(), test.test.c_str(), error.c_str());
                return 1;
            }
            n_run += test.n_prompt + test.n_gen;
            if (rep >= 0) {
                test.rates.push_back(rate);
                if (probe) {
                    bounds.back().dram.push_back(dram_read_gbs(devices.n_threads()));
                }
            }
        }
    }
    BenchSetup setup;
    const Hparams & hp = model.hparams();
    char            type[128];
    std::snprintf(type, sizeof(type), "%s %.1fM %s", hp.arch.c_str(), static_cast<double>(model.n_params()) / 1e6,
                  ggml_type_name(model.type_of("blk.0.attn_q.weight")));
    setup.model_filename = model_path;
    setup.model_type     = type;
    setup.model_size     = model.n_bytes();
    setup.model_n_params = model.n_params();
    setup.backends       = devices.describe();
    setup.n_threads      = devices.n_threads();
    setup.n_batch        = o.n_batch;
    std::fputs(format_bench(setup, rows, o.bench_options.format).c_str(), stdout);
    for (const Bound & b : bounds) {
        const int         n    = b.test->n_threads;
        const std::string name = bounds.size() > 1 ? b.test->test + " (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)")
                                                   : b.test->test;
        print_generation_bound(info, name, model, b.test->rates, b.dram);
    }
    ranks::end_phase("every test", n_run);
    ranks::print_traffic(info);
    return 0;
}

} // namespace switchyard::run
