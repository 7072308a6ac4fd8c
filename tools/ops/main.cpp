// switchyard-ops: conformance and throughput of every op on every device, over the one shared list of op cases.
//
//   switchyard-ops test    [filters]   run every case on each device and on the scalar reference, compare
//   switchyard-ops perf    [filters]   throughput per case and device (GFLOP/s or GB/s), median and spread
//   switchyard-ops support [filters]   which op cases each device supports (text, --format csv|json)
//   switchyard-ops --list              list the cases
#include "support/op_cases.h"
#include "support/op_harness.h"
#include "support/test_device.h"

#include "core/graph.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace switchyard::testing;

namespace {

struct Options {
    std::string              mode;
    std::vector<std::string> ops;      // -o
    std::vector<std::string> backends; // -b
    std::string              pattern;  // -p
    std::string              format = "text";
    bool                     list        = false;
    bool                     test_device = false;
    bool                     progress    = true;
    int                      threads     = 0; // 0: the backend's default
};

void usage(std::FILE * f) {
    std::fprintf(f,
                 "usage: switchyard-ops <test|perf|support> [options]\n"
                 "       switchyard-ops --list [options]\n"
                 "\n"
                 "modes:\n"
                 "  test      run every selected case on every selected device and on the scalar reference; a case passes\n"
                 "            when the normalised mean squared error is under its threshold and no guard byte around any\n"
                 "            tensor changed. Prints one line per failing case and a summary per device; the exit status\n"
                 "            is 1 if any case failed.\n"
                 "  perf      measure throughput of the larger perf cases (or the test cases with -p/-o if they match\n"
                 "            none): each case is repeated until its timing is stable; prints the median time and\n"
                 "            GFLOP/s for matrix-like ops or GB/s (bytes read + written) for memory-bound ones, with the\n"
                 "            spread (min..max of the measured batches).\n"
                 "  support   print which cases each device supports, as a table (or --format csv|json).\n"
                 "\n"
                 "options:\n"
                 "  -o OP          only cases of this op (e.g. MUL_MAT, SOFT_MAX); may repeat\n"
                 "  -b BACKEND     only this device (its name, e.g. CPU, TEST); may repeat\n"
                 "  -p TEXT        only cases whose name contains TEXT\n"
                 "  -t N           threads for the CPU backend\n"
                 "  --test-device  also run on the GPU-like test device (non-host memory, asynchronous)\n"
                 "  --format F     output of 'support': text, csv or json\n"
                 "  --no-progress  no progress indicator\n"
                 "  --list         list the selected cases and exit\n"
                 "  -h, --help     this help\n");
}

bool parse(int argc, char ** argv, Options & o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](std::string & out) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "error: option %s needs a value\n", a.c_str());
                return false;
            }
            out = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") { usage(stdout); std::exit(0); }
        else if (a == "test" || a == "perf" || a == "support") o.mode = a;
        else if (a == "--list") o.list = true;
        else if (a == "--test-device") o.test_device = true;
        else if (a == "--no-progress") o.progress = false;
        else if (a == "-o") { if (!value(v)) return false; o.ops.push_back(v); }
        else if (a == "-b") { if (!value(v)) return false; o.backends.push_back(v); }
        else if (a == "-p") { if (!value(o.pattern)) return false; }
        else if (a == "--format") {
            if (!value(o.format)) return false;
            if (o.format != "text" && o.format != "csv" && o.format != "json") {
                std::fprintf(stderr, "error: unknown format '%s' (text, csv or json)\n", o.format.c_str());
                return false;
            }
        } else if (a == "-t") {
            if (!value(v)) return false;
            o.threads = std::atoi(v.c_str());
            if (o.threads <= 0) { std::fprintf(stderr, "error: -t needs a positive number\n"); return false; }
        } else {
            std::fprintf(stderr, "error: unknown option '%s' (see --help)\n", a.c_str());
            return false;
        }
    }
    if (o.mode.empty() && !o.list) {
        std::fprintf(stderr, "error: no mode given (test, perf or support; see --help)\n");
        return false;
    }
    return true;
}

bool selected(const Options & o, const OpCase & c) {
    if (!o.ops.empty() && std::find(o.ops.begin(), o.ops.end(), ggml_op_name(c.op)) == o.ops.end()) return false;
    return o.pattern.empty() || c.name.find(o.pattern) != std::string::npos;
}

std::vector<const OpCase *> select_cases(const Options & o, const std::vector<OpCase> & all) {
    std::vector<const OpCase *> out;
    for (const OpCase & c : all) {
        if (selected(o, c)) out.push_back(&c);
    }
    return out;
}

struct Device {
    std::string    name;
    ggml_backend_t backend;
};

std::vector<Device> open_devices(const Options & o, ggml_backend_dev_t * test_dev) {
    std::vector<Device> devices;
    auto wanted = [&](const std::string & name) {
        if (o.backends.empty()) return true;
        for (const std::string & b : o.backends) {
            if (strcasecmp(b.c_str(), name.c_str()) == 0) return true;
        }
        return false;
    };
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (!wanted(ggml_backend_dev_name(dev))) continue;
        ggml_backend_t backend = ggml_backend_dev_init(dev, nullptr);
        if (!backend) {
            std::fprintf(stderr, "warning: could not initialise %s\n", ggml_backend_dev_name(dev));
            continue;
        }
        if (o.threads > 0 && ggml_backend_is_cpu(backend)) ggml_backend_cpu_set_n_threads(backend, o.threads);
        devices.push_back({ggml_backend_dev_name(dev), backend});
    }
    if (o.test_device && wanted("TEST")) {
        *test_dev = test_device_create(TestDeviceConfig{});
        devices.push_back({"TEST", ggml_backend_dev_init(*test_dev, nullptr)});
    }
    return devices;
}

void progress(const Options & o, const std::string & dev, size_t i, size_t n) {
    if (o.progress) {
        std::fprintf(stderr, "\r[%s] %zu/%zu", dev.c_str(), i, n);
        if (i == n) std::fprintf(stderr, "\n");
    }
}

int run_test(const Options & o, const std::vector<Device> & devices) {
    const auto cases  = select_cases(o, op_cases());
    int        failed = 0;
    for (const Device & d : devices) {
        size_t passed = 0, unsupported = 0, fails = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            progress(o, d.name, i, cases.size());
            const CaseResult r = run_case(d.backend, *cases[i]);
            if (r.status == CaseStatus::Passed) ++passed;
            else if (r.status == CaseStatus::Unsupported) ++unsupported;
            else {
                ++fails;
                if (o.progress) std::fprintf(stderr, "\r");
                std::printf("FAIL %s %s: %s\n", d.name.c_str(), cases[i]->name.c_str(), r.message.c_str());
            }
        }
        progress(o, d.name, cases.size(), cases.size());
        std::printf("%s: %zu passed, %zu failed, %zu unsupported (of %zu cases)\n", d.name.c_str(), passed, fails, unsupported,
                    cases.size());
        failed += fails > 0;
    }
    return failed ? 1 : 0;
}

size_t case_bytes(const PreparedCase & p) {
    size_t bytes = ggml_nbytes(p.output);
    for (int i = 0; i < p.graph->n_leafs; ++i) bytes += ggml_nbytes(p.graph->leafs[i]);
    return bytes;
}

// Times the graph: batches of runs until a batch takes >= 50 ms, then 7 batches; returns per-run seconds.
std::vector<double> time_case(ggml_backend_t backend, ggml_cgraph * graph) {
    ggml_backend_graph_compute(backend, graph); // warm-up
    int runs = 1;
    for (;;) {
        const int64_t t0 = ggml_time_us();
        for (int r = 0; r < runs; ++r) ggml_backend_graph_compute(backend, graph);
        if (ggml_time_us() - t0 >= 50000 || runs >= 1 << 16) break;
        runs *= 2;
    }
    std::vector<double> per_run;
    for (int b = 0; b < 7; ++b) {
        const int64_t t0 = ggml_time_us();
        for (int r = 0; r < runs; ++r) ggml_backend_graph_compute(backend, graph);
        per_run.push_back((ggml_time_us() - t0) / 1e6 / runs);
    }
    std::sort(per_run.begin(), per_run.end());
    return per_run;
}

int run_perf(const Options & o, const std::vector<Device> & devices) {
    auto cases = select_cases(o, perf_cases());
    if (cases.empty()) cases = select_cases(o, op_cases());
    for (const Device & d : devices) {
        for (size_t i = 0; i < cases.size(); ++i) {
            PreparedCase p = prepare_case(d.backend, *cases[i]);
            if (!p.supported) {
                std::printf("%-6s %-70s unsupported\n", d.name.c_str(), cases[i]->name.c_str());
                free_prepared_case(p);
                continue;
            }
            const std::vector<double> t = time_case(d.backend, p.graph);
            const double              med = t[t.size() / 2];
            if (cases[i]->flops > 0) {
                std::printf("%-6s %-70s %10.3f ms %9.2f GFLOP/s (%.2f..%.2f)\n", d.name.c_str(), cases[i]->name.c_str(), med * 1e3,
                            cases[i]->flops / med / 1e9, cases[i]->flops / t.back() / 1e9, cases[i]->flops / t.front() / 1e9);
            } else {
                const double bytes = static_cast<double>(case_bytes(p));
                std::printf("%-6s %-70s %10.3f ms %9.2f GB/s    (%.2f..%.2f)\n", d.name.c_str(), cases[i]->name.c_str(), med * 1e3,
                            bytes / med / 1e9, bytes / t.back() / 1e9, bytes / t.front() / 1e9);
            }
            std::fflush(stdout);
            free_prepared_case(p);
        }
    }
    return 0;
}

bool supports(ggml_backend_t backend, const OpCase & c) {
    PreparedCase p = prepare_case(backend, c);
    const bool   s = p.supported;
    free_prepared_case(p);
    return s;
}

int run_support(const Options & o, const std::vector<Device> & devices) {
    const auto cases = select_cases(o, op_cases());
    if (o.format == "json") std::printf("[\n");
    if (o.format == "csv") {
        std::printf("op,case");
        for (const Device & d : devices) std::printf(",%s", d.name.c_str());
        std::printf("\n");
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        const OpCase & c = *cases[i];
        if (o.format == "text") std::printf("%-16s %-70s", ggml_op_name(c.op), c.name.c_str());
        if (o.format == "csv") std::printf("%s,\"%s\"", ggml_op_name(c.op), c.name.c_str());
        if (o.format == "json") std::printf("  {\"op\": \"%s\", \"case\": \"%s\", \"support\": {", ggml_op_name(c.op), c.name.c_str());
        for (size_t j = 0; j < devices.size(); ++j) {
            const bool s = supports(devices[j].backend, c);
            if (o.format == "text") std::printf(" %s=%s", devices[j].name.c_str(), s ? "yes" : "no");
            if (o.format == "csv") std::printf(",%d", s ? 1 : 0);
            if (o.format == "json") std::printf("%s\"%s\": %s", j ? ", " : "", devices[j].name.c_str(), s ? "true" : "false");
        }
        if (o.format == "json") std::printf("}}%s", i + 1 < cases.size() ? "," : "");
        std::printf("\n");
    }
    if (o.format == "json") std::printf("]\n");
    return 0;
}

} // namespace

int main(int argc, char ** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        return 2;
    }
    if (o.list) {
        for (const OpCase * c : select_cases(o, o.mode == "perf" ? perf_cases() : op_cases())) std::printf("%s\n", c->name.c_str());
        return 0;
    }
    ggml_backend_dev_t  test_dev = nullptr;
    std::vector<Device> devices  = open_devices(o, &test_dev);
    if (devices.empty()) {
        std::fprintf(stderr, "error: no device matches the -b filters\n");
        return 2;
    }
    int rc = 0;
    if (o.mode == "test") rc = run_test(o, devices);
    else if (o.mode == "perf") rc = run_perf(o, devices);
    else rc = run_support(o, devices);
    for (Device & d : devices) ggml_backend_free(d.backend);
    if (test_dev) test_device_release(test_dev);
    return rc;
}
