// switchyard-ops: conformance and throughput of every op on every device, over the one shared list of op cases.
//
//   switchyard-ops test    [filters]   run every case on each device and on the scalar reference, compare
//   switchyard-ops perf    [filters]   throughput per case and device (GFLOP/s or GB/s), median and spread
//   switchyard-ops support [filters]   op x type x device: which cases each device supports (text, csv, json)
//   switchyard-ops --list              list the cases
//
// Exit status: 0 success, 1 a case failed, 2 a usage error (see cli.h). The modes live in their own files
// (perf.cpp, support.cpp); the command line in cli.cpp.
#include "case_spec.h"
#include "cli.h"

#include "conformance/op_harness.h"
#include "test_device.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <cstdio>
#include <string>

namespace switchyard::tools {

using testing::CaseResult;
using testing::CaseStatus;
using testing::OpCase;

int run_test(const Options & o, const std::vector<Device> & devices, const std::vector<const OpCase *> & cases) {
    Progress progress(o.progress);
    bool     any_failed = false;
    for (const Device & d : devices) {
        size_t passed = 0, unsupported = 0, fails = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            progress.update(d.name, i, cases.size(), cases[i]->name);
            const CaseResult r = testing::run_case(d.backend, *cases[i]);
            if (r.status == CaseStatus::Passed) ++passed;
            else if (r.status == CaseStatus::Unsupported) ++unsupported;
            else {
                ++fails;
                progress.clear();
                std::printf("FAIL %s %s: %s\n", d.name.c_str(), cases[i]->name.c_str(), r.message.c_str());
                std::fflush(stdout);
            }
        }
        progress.clear();
        std::printf("%s: %zu passed, %zu failed, %zu unsupported (of %zu cases)\n", d.name.c_str(), passed, fails, unsupported,
                    cases.size());
        any_failed = any_failed || fails > 0;
    }
    return any_failed ? kExitFailures : kExitOk;
}

namespace {

bool wanted(const Options & o, const std::string & name) {
    if (o.backends.empty()) return true;
    for (const std::string & b : o.backends) {
        if (equal_nocase(b, name.c_str())) return true;
    }
    return false;
}

// The registered devices (and the test device with --test-device) that -b selects, each with a backend.
std::vector<Device> open_devices(const Options & o, ggml_backend_dev_t * test_dev) {
    std::vector<Device> devices;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (!wanted(o, ggml_backend_dev_name(dev))) continue;
        ggml_backend_t backend = ggml_backend_dev_init(dev, nullptr);
        if (!backend) {
            std::fprintf(stderr, "warning: could not initialise %s\n", ggml_backend_dev_name(dev));
            continue;
        }
        if (o.threads > 0 && ggml_backend_is_cpu(backend)) ggml_backend_cpu_set_n_threads(backend, o.threads);
        devices.push_back({ggml_backend_dev_name(dev), backend});
    }
    if (o.test_device && wanted(o, "TEST")) {
        *test_dev = testing::test_device_create(testing::TestDeviceConfig{});
        devices.push_back({"TEST", ggml_backend_dev_init(*test_dev, nullptr)});
    }
    return devices;
}

} // namespace

} // namespace switchyard::tools

int main(int argc, char ** argv) {
    using namespace switchyard::tools;
    Options o;
    if (!parse_options(argc, argv, o)) {
        return kExitUsage;
    }
    if (o.help) {
        usage(stdout);
        return kExitOk;
    }
    std::vector<switchyard::testing::OpCase>         spec_cases(o.case_specs.size());
    std::vector<const switchyard::testing::OpCase *> cases;
    for (size_t i = 0; i < o.case_specs.size(); ++i) {
        std::string error;
        if (!parse_case_spec(o.case_specs[i], spec_cases[i], error)) {
            std::fprintf(stderr, "error: --case '%s': %s (see --help)\n", o.case_specs[i].c_str(), error.c_str());
            return kExitUsage;
        }
        cases.push_back(&spec_cases[i]);
    }
    if (o.case_specs.empty()) cases = cases_for_mode(o);
    if (cases.empty()) {
        std::fprintf(stderr, "error: no %scase matches the filters %s (see --list)\n", o.mode == "perf" ? "perf or test " : "",
                     describe_filters(o).c_str());
        return kExitUsage;
    }
    if (o.list) {
        for (const switchyard::testing::OpCase * c : cases) std::printf("%s\n", c->name.c_str());
        return kExitOk;
    }
    ggml_backend_dev_t  test_dev = nullptr;
    std::vector<Device> devices  = open_devices(o, &test_dev);
    if (devices.empty()) {
        std::string names;
        for (size_t i = 0; i < ggml_backend_dev_count(); ++i) names += std::string(", ") + ggml_backend_dev_name(ggml_backend_dev_get(i));
        std::fprintf(stderr, "error: no device matches -b (devices here: %s, and TEST with --test-device)\n",
                     names.empty() ? "none" : names.c_str() + 2);
        return kExitUsage;
    }
    int rc = kExitOk;
    if (o.mode == "test") rc = run_test(o, devices, cases);
    else if (o.mode == "perf") rc = run_perf(o, devices, cases);
    else rc = run_support(o, devices, cases);
    for (Device & d : devices) ggml_backend_free(d.backend);
    if (test_dev) switchyard::testing::test_device_release(test_dev);
    return rc;
}
