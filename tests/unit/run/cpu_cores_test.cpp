// switchyard-run's default thread count (tools/run/cpu_cores.h) on made-up sysfs and cgroup trees: SMT siblings
// count once, the affinity mask and a hybrid CPU's performance cores choose the CPUs, a CFS quota caps the count
// (cgroup v1 and v2, the smallest along the path), and unreadable or malformed files leave one core per CPU.
#include "cpu_cores.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace switchyard::run {
namespace {

namespace fs = std::filesystem;

class CpuCores : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("switchyard_cpu_cores_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
        s_.sysfs_cpu   = (root_ / "cpu").string();
        s_.hybrid_list = (root_ / "cpu_core_cpus").string();
        s_.cgroup_root = (root_ / "cgroup").string();
    }
    void TearDown() override { fs::remove_all(root_); }

    void write(const std::string & rel, const std::string & text) {
        const fs::path path = root_ / rel;
        fs::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }
    // CPUs 0..n-1 where CPU c's core holds `siblings(c)` (a CPU list)
    template <class Siblings>
    void topology(int n, Siblings siblings) {
        for (int c = 0; c < n; ++c) {
            write("cpu/cpu" + std::to_string(c) + "/topology/thread_siblings_list", siblings(c) + "\n");
        }
    }
    void allow(std::vector<int> cpus, int online) {
        s_.allowed = std::move(cpus);
        s_.online  = online;
    }

    fs::path    root_;
    CoreSources s_;
};

// 8 CPUs, 4 cores: CPU c and c + 4 are siblings (Linux's usual numbering)
std::string smt4(int c) {
    return std::to_string(c % 4) + "," + std::to_string(c % 4 + 4);
}

TEST(CpuList, ParsesRangesAndSingles) {
    EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
    EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
    EXPECT_EQ(parse_cpu_list("2,1,2"), (std::vector<int>{1, 2}));
}

TEST(CpuList, RefusesWhatIsNotAList) {
    for (const char * bad : {"", "\n", "a", "3-1", "1-", "-1", "1,,2", "0-99999999", "1 2"}) {
        EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
    }
}

TEST_F(CpuCores, SmtSiblingsCountOnce) {
    topology(8, smt4);
    allow({0, 1, 2, 3, 4, 5, 6, 7}, 8);
    const CoreBudget b = core_budget(s_);
    EXPECT_EQ(b.cores, 4);
    EXPECT_EQ(b.cpus, 8); // the CPUs themselves: the threads a user may still ask for without sharing one
    EXPECT_FALSE(b.bound);
}

TEST_F(CpuCores, TheMaskChoosesTheCores) {
    topology(8, smt4);
    allow({0, 4}, 8); // both threads of core 0
    EXPECT_EQ(core_budget(s_).cores, 1);
    EXPECT_TRUE(core_budget(s_).bound);
    allow({0, 1, 5}, 8); // cores 0 and 1
    EXPECT_EQ(core_budget(s_).cores, 2);
    allow({3}, 8);
    EXPECT_EQ(core_budget(s_).cores, 1);
}

TEST_F(CpuCores, CoreCpusListIsPreferred) {
    topology(4, [](int c) { return std::to_string(c); }); // an old thread_siblings_list: no SMT
    for (int c = 0; c < 4; ++c) {
        write("cpu/cpu" + std::to_string(c) + "/topology/core_cpus_list", c < 2 ? "0-1\n" : "2-3\n");
    }
    allow({0, 1, 2, 3}, 4);
    EXPECT_EQ(core_budget(s_).cores, 2);
}

TEST_F(CpuCores, WithoutSysfsEveryCpuIsACore) {
    allow({0, 1, 2, 5}, 6);
    EXPECT_EQ(core_budget(s_).cores, 4);
    write("cpu/cpu0/topology/thread_siblings_list", "garbage\n"); // unreadable as a list: CPU 0 alone
    EXPECT_EQ(core_budget(s_).cores, 4);
}

TEST_F(CpuCores, HybridCpusUsePerformanceCoresOnly) {
    // CPUs 0-7: 4 performance cores with two threads each (c, c + 1 for even c); CPUs 8-15: 8 efficiency cores
    topology(16, [](int c) { return c < 8 ? std::to_string(c & ~1) + "-" + std::to_string((c & ~1) + 1) : std::to_string(c); });
    write("cpu_core_cpus", "0-7\n");
    allow({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 16);
    EXPECT_EQ(core_budget(s_).cores, 4);
    allow({2, 3, 8, 9}, 16); // one performance core in the mask
    EXPECT_EQ(core_budget(s_).cores, 1);
    allow({8, 9, 10}, 16); // efficiency cores only: those
    EXPECT_EQ(core_budget(s_).cores, 3);
}

TEST_F(CpuCores, CgroupV2QuotaCapsTheCountRoundedUp) {
    topology(8, [](int c) { return std::to_string(c); });
    allow({0, 1, 2, 3, 4, 5, 6, 7}, 8);
    s_.proc_cgroup = "0::/box/job\n";
    write("cgroup/box/job/cpu.max", "max 100000\n");
    EXPECT_EQ(core_budget(s_).cores, 8);
    write("cgroup/box/job/cpu.max", "250000 100000\n");
    EXPECT_EQ(core_budget(s_).cores, 3);
    write("cgroup/box/cpu.max", "150000 100000\n"); // a parent's smaller quota holds
    EXPECT_EQ(core_budget(s_).cores, 2);
    write("cgroup/cpu.max", "50000 100000\n"); // half a CPU: still one thread
    EXPECT_EQ(core_budget(s_).cores, 1);
    EXPECT_EQ(core_budget(s_).cpus, 1);
}

TEST_F(CpuCores, CgroupV2UnderUnifiedMount) {
    topology(4, [](int c) { return std::to_string(c); });
    allow({0, 1, 2, 3}, 4);
    s_.proc_cgroup = "1:name=systemd:/\n0::/app\n";
    write("cgroup/unified/app/cpu.max", "200000 100000\n");
    EXPECT_EQ(core_budget(s_).cores, 2);
}

TEST_F(CpuCores, CgroupV1Quota) {
    topology(8, [](int c) { return std::to_string(c); });
    allow({0, 1, 2, 3, 4, 5, 6, 7}, 8);
    s_.proc_cgroup = "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n2:cpuset:/\n";
    write("cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    write("cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(core_budget(s_).cores, 8);
    write("cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n");
    EXPECT_EQ(core_budget(s_).cores, 3);
    write("cgroup/cpu,cpuacct/docker/cpu.cfs_quota_us", "100000\n"); // the parent's
    write("cgroup/cpu,cpuacct/docker/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(core_budget(s_).cores, 1);
}

TEST_F(CpuCores, MalformedCgroupFilesAreIgnored) {
    topology(4, [](int c) { return std::to_string(c); });
    allow({0, 1, 2, 3}, 4);
    s_.proc_cgroup = "garbage\n0::/a\n7:cpu:\n";
    for (const char * bad : {"", "0 100000", "100000 0", "-5 100000", "x y", "100000"}) {
        write("cgroup/a/cpu.max", bad);
        EXPECT_EQ(core_budget(s_).cores, 4) << bad;
    }
}

TEST(CpuCoresLive, ThisProcessHasAtLeastOneCore) {
    const CoreSources s = CoreSources::this_process();
    EXPECT_FALSE(s.allowed.empty());
    const CoreBudget b = core_budget(s);
    EXPECT_GE(b.cores, 1);
    EXPECT_LE(b.cores, static_cast<int>(s.allowed.size()));
    EXPECT_EQ(default_threads(), b.cores);
    EXPECT_GE(b.cpus, b.cores);
}

} // namespace
} // namespace switchyard::run
