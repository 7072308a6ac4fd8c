#include "report.h"

#include "dram_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace switchyard::run {

namespace {

double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

struct SplitCount {
    int    splits = 0;
    int    copies = 0;
    size_t bytes  = 0;
};

// the quoted string after `key` in line, "" when absent
std::string quoted_after(const std::string & line, const std::string & key, size_t & at) {
    at = line.find(key);
    if (at == std::string::npos) {
        return "";
    }
    const size_t start = line.find('"', at + key.size());
    const size_t end   = start == std::string::npos ? start : line.find('"', start + 1);
    if (end == std::string::npos) {
        return "";
    }
    at = end;
    return line.substr(start + 1, end - start - 1);
}

} // namespace

void print_plan_summary(const Context & ctx) {
    // the plan JSON has one split per line: {"backend": "CPU", ..., "inputs": [{"name": ..., "bytes": N}, ...]
    std::map<std::string, SplitCount> per_backend;
    std::istringstream                json(ctx.plan_json());
    int                               total = 0;
    for (std::string line; std::getline(json, line);) {
        size_t            at      = 0;
        const std::string backend = line.rfind("    {\"backend\": ", 0) == 0 ? quoted_after(line, "\"backend\":", at) : "";
        if (backend.empty()) {
            continue;
        }
        SplitCount & c = per_backend[backend];
        ++c.splits;
        ++total;
        const size_t inputs = line.find("\"inputs\": [", at);
        const size_t end    = inputs == std::string::npos ? inputs : line.find(']', inputs);
        for (size_t b = line.find("\"bytes\": ", inputs); inputs != std::string::npos && b < end;
             b = line.find("\"bytes\": ", b + 1)) {
            ++c.copies;
            c.bytes += std::strtoull(line.c_str() + b + 9, nullptr, 10);
        }
    }
    std::printf("plan (last graph): %d splits", total);
    for (const auto & [name, c] : per_backend) {
        std::printf("; %s: %d splits, %d input copies (%.1f KiB)", name.c_str(), c.splits, c.copies,
                    static_cast<double>(c.bytes) / 1024.0);
    }
    std::printf("\n");
}

void print_memory(const Model & model, const Context & ctx) {
    struct Row {
        size_t weights = 0, repacked = 0, kv = 0, compute = 0;
        bool   mapped  = false;
    };
    std::map<std::string, Row> rows;
    for (const Model::Holding & h : model.holdings()) {
        Row & r = rows[ggml_backend_dev_name(h.dev)];
        r.weights += h.bytes;
        r.repacked += h.repacked ? h.bytes : 0;
        r.mapped = r.mapped || h.mapped;
    }
    for (const auto & [dev, bytes] : ctx.cache().holdings()) {
        rows[ggml_backend_dev_name(dev)].kv += bytes;
    }
    for (int i = 0; i < ggml_backend_sched_get_n_backends(ctx.sched()); ++i) {
        ggml_backend_t b = ggml_backend_sched_get_backend(ctx.sched(), i);
        rows[ggml_backend_dev_name(ggml_backend_get_device(b))].compute += ggml_backend_sched_get_buffer_size(ctx.sched(), b);
    }
    std::printf("memory:\n");
    for (const auto & [name, r] : rows) {
        char where[96] = "";
        if (r.repacked > 0) {
            std::snprintf(where, sizeof(where), " (%.2f MiB repacked%s)", mib(r.repacked),
                          r.mapped ? ", the rest mapped from the file" : "");
        } else if (r.mapped) {
            std::snprintf(where, sizeof(where), " (mapped from the file)");
        }
        std::printf("  %-16s weights %8.2f MiB%s, KV cache %7.2f MiB, compute buffer %7.2f MiB\n", name.c_str(),
                    mib(r.weights), where, mib(r.kv), mib(r.compute));
    }
}

void print_generation_bound(std::FILE * out, const std::string & test, const Model & model,
                            const std::vector<double> & tg_rates, const std::vector<double> & dram_gbs) {
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    const double gbs   = median(dram_gbs);
    const double bytes = static_cast<double>(weight_bytes_per_token(model));
    if (gbs <= 0.0 || bytes <= 0.0) {
        return;
    }
    const double bound = gbs * 1e9 / bytes;
    const double tg    = median(tg_rates);
    std::fprintf(out, "\n%s bound: DRAM read %.1f GB/s / %.2f MiB of weights per token = %.1f t/s; %s (median "
                 "%.1f t/s) reaches %.2f of it\n",
                 test.c_str(), gbs, mib(static_cast<uint64_t>(bytes)), bound, test.c_str(), tg, tg / bound);
}

} // namespace switchyard::run
