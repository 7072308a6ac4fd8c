// Conformance: every case of the shared op list on every device -- the CPU backend at 1, 2 and 4 threads, the
// GPU-like test device and every Vulkan device found -- against the scalar reference (normalised MSE per case,
// guard bytes around every tensor). Cases of custom ops (host_only) must be refused by the test device and the
// Vulkan devices. A Vulkan device computes the ops it supports; the others are reported skipped (the scheduler
// runs them on the CPU), and without a Vulkan device the Vulkan tests are skipped.
#include "conformance/op_cases.h"
#include "conformance/op_harness.h"
#include "test_device.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace switchyard::testing {
namespace {

struct Target {
    const char * name;
    int          n_threads; // 0: the test device, -1: every device of the Vulkan reg
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

public:
    // one backend per device of the Vulkan reg (none when the library is built without it or finds no device)
    static const std::vector<ggml_backend_t> & vulkan() {
        static const std::vector<ggml_backend_t> backends = [] {
            std::vector<ggml_backend_t> v;
            ggml_backend_reg_t          reg = ggml_backend_reg_by_name("Vulkan");
            for (size_t i = 0; reg != nullptr && i < ggml_backend_reg_dev_count(reg); ++i) {
                if (ggml_backend_t b = ggml_backend_dev_init(ggml_backend_reg_dev_get(reg, i), nullptr)) v.push_back(b);
            }
            return v;
        }();
        return backends;
    }

private:

    ggml_backend_dev_t dev_  = nullptr;
    ggml_backend_t     test_ = nullptr;
    ggml_backend_t     cpu_[3]{};
};

const Target kTargets[] = {{"CPU_1thread", 1}, {"CPU_2threads", 2}, {"CPU_4threads", 4}, {"TEST_device", 0}, {"Vulkan", -1}};

// The case on every Vulkan device: passes or is unsupported (reported as skipped); custom ops are refused.
void run_on_vulkan(const OpCase & c) {
    if (Backends::vulkan().empty()) {
        GTEST_SKIP() << "no Vulkan device";
    }
    std::string unsupported;
    for (ggml_backend_t backend : Backends::vulkan()) {
        const CaseResult r    = run_case(backend, c);
        const char *     name = ggml_backend_name(backend);
        if (c.host_only) {
            EXPECT_EQ(r.status, CaseStatus::Unsupported) << c.name << " on " << name << ": " << r.message;
        } else if (r.status == CaseStatus::Unsupported) {
            unsupported += std::string(unsupported.empty() ? "" : "; ") + name + ": " + r.message;
        } else {
            EXPECT_EQ(r.status, CaseStatus::Passed) << c.name << " on " << name << ": " << r.message << " (nmse " << r.nmse << ")";
        }
    }
    if (!unsupported.empty() && !::testing::Test::HasFailure()) {
        GTEST_SKIP() << "unsupported on " << unsupported;
    }
}

using Param = std::tuple<int, size_t>; // target index, case index

class OpConformance : public ::testing::TestWithParam<Param> {};

TEST_P(OpConformance, MatchesReference) {
    const Target & target = kTargets[std::get<0>(GetParam())];
    const OpCase & c      = op_cases()[std::get<1>(GetParam())];
    if (target.n_threads < 0) {
        run_on_vulkan(c);
        return;
    }
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
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Range(size_t(0), op_cases().size())), param_name);

} // namespace
} // namespace switchyard::testing
