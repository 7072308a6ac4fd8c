// Conformance: every case of the shared op list on every device -- the CPU backend at 1, 2 and 4 threads and
// the GPU-like test device -- against the scalar reference (normalised MSE per case, guard bytes around every
// tensor). Cases of custom ops (host_only) must be refused by the test device.
#include "support/op_cases.h"
#include "support/op_harness.h"
#include "support/test_device.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <string>

namespace switchyard::testing {
namespace {

struct Target {
    const char * name;
    int          n_threads; // 0: the test device
};

class Backends {
public:
    static ggml_backend_t get(const Target & t) {
        static Backends b;
        return t.n_threads > 0 ? b.cpu_for(t.n_threads) : b.test_;
    }

private:
    Backends() {
        dev_  = test_device_create(TestDeviceConfig{});
        test_ = ggml_backend_dev_init(dev_, nullptr);
        for (int i = 0; i < 3; ++i) {
            cpu_[i] = ggml_backend_cpu_init();
            ggml_backend_cpu_set_n_threads(cpu_[i], 1 << i);
        }
    }
    ggml_backend_t cpu_for(int n) { return cpu_[n == 1 ? 0 : n == 2 ? 1 : 2]; }

    ggml_backend_dev_t dev_  = nullptr;
    ggml_backend_t     test_ = nullptr;
    ggml_backend_t     cpu_[3]{};
};

const Target kTargets[] = {{"CPU_1thread", 1}, {"CPU_2threads", 2}, {"CPU_4threads", 4}, {"TEST_device", 0}};

using Param = std::tuple<int, size_t>; // target index, case index

class OpConformance : public ::testing::TestWithParam<Param> {};

TEST_P(OpConformance, MatchesReference) {
    const Target & target = kTargets[std::get<0>(GetParam())];
    const OpCase & c      = op_cases()[std::get<1>(GetParam())];
    const CaseResult r    = run_case(Backends::get(target), c);
    if (c.host_only && target.n_threads == 0) {
        // the application's function runs on the host: a device like a GPU must refuse the op
        EXPECT_EQ(r.status, CaseStatus::Unsupported) << c.name << " on " << target.name << ": " << r.message;
        return;
    }
    // every other case of the list is part of the op set both devices must implement
    ASSERT_NE(r.status, CaseStatus::Unsupported) << c.name << ": " << r.message;
    EXPECT_EQ(r.status, CaseStatus::Passed) << c.name << " on " << target.name << ": " << r.message << " (nmse " << r.nmse << ")";
}

std::string param_name(const ::testing::TestParamInfo<Param> & info) {
    std::string name = std::string(kTargets[std::get<0>(info.param)].name) + "_" + std::to_string(std::get<1>(info.param)) + "_" +
                       op_cases()[std::get<1>(info.param)].name;
    for (char & ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(AllCases, OpConformance,
                         ::testing::Combine(::testing::Range(0, 4), ::testing::Range(size_t(0), op_cases().size())), param_name);

} // namespace
} // namespace switchyard::testing
