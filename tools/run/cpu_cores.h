// switchyard-run's default thread count: one thread per physical core this process may actually run on.
//
// The CPU backend splits every node evenly over its threads and they meet at a barrier after each node, so one
// thread that shares its core with another waits out the others at every node: two threads on one allowed CPU
// decode at half the speed of one. So the count is not the machine's hardware threads but:
// - the CPUs in the process's affinity mask (taskset, cpusets, a container's or launcher's binding);
// - counted once per physical core (SMT siblings share one core's vector units);
// - on hybrid CPUs, where Linux lists the performance cores in /sys/devices/cpu_core/cpus, those cores only,
//   when the mask holds any (an efficiency core would hold back every node's barrier);
// - at most the CFS quota of the process's cgroup, quota / period rounded up (cgroup v2 cpu.max, v1
//   cpu.cfs_quota_us / cpu.cfs_period_us; the smallest along the path to the root), as `docker --cpus` sets.
// Where sysfs cannot be read, each CPU in the mask counts as a core.
#pragma once

#include <string>
#include <vector>

namespace switchyard::run {

// What the count is made from: the live system's by default (this_process), any tree in tests.
struct CoreSources {
    std::vector<int> allowed;                                       // CPU ids in the affinity mask
    int              online      = 0;                               // CPUs online (0: unknown)
    std::string      sysfs_cpu   = "/sys/devices/system/cpu";       // cpuN/topology/{core_cpus,thread_siblings}_list
    std::string      hybrid_list = "/sys/devices/cpu_core/cpus";    // performance cores of a hybrid CPU
    std::string      proc_cgroup;                                   // the text of /proc/self/cgroup
    std::string      cgroup_root = "/sys/fs/cgroup";                // where the cgroup file systems are mounted

    static CoreSources this_process();
};

struct CoreBudget {
    int  cores = 1;     // default threads: 1..GGML_MAX_N_THREADS
    int  cpus  = 1;     // CPUs the process may use: the mask's, at most the quota's (SMT siblings each count)
    bool bound = false; // the mask leaves out some online CPUs (a launcher bound this process)
};

CoreBudget core_budget(const CoreSources & sources);

// core_budget(CoreSources::this_process()), counted once per process.
const CoreBudget & this_process_budget();
int                default_threads();

// Parses a Linux CPU list ("0-3,8,10-11"); empty for text that is not one.
std::vector<int> parse_cpu_list(const std::string & text);

} // namespace switchyard::run
