#include "cpu_cores.h"

#include "ggml.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

namespace switchyard::run {

namespace {

std::optional<std::string> read_text(const std::string & path) {
    std::ifstream in(path);
    if (!in) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string trim(const std::string & s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) {
        return "";
    }
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// A decimal number of at most 18 digits (no sign), or nothing.
std::optional<int64_t> parse_count(const std::string & s) {
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return std::strtoll(s.c_str(), nullptr, 10);
}

// The physical core of a CPU: the list of its hardware threads (the same list for every sibling), or the CPU
// alone where sysfs does not say.
std::vector<int> core_of(const std::string & sysfs_cpu, int cpu) {
    const std::string topology = sysfs_cpu + "/cpu" + std::to_string(cpu) + "/topology/";
    for (const char * name : {"core_cpus_list", "thread_siblings_list"}) {
        if (const auto text = read_text(topology + name)) {
            if (std::vector<int> siblings = parse_cpu_list(*text); !siblings.empty()) {
                return siblings;
            }
        }
    }
    return {cpu};
}

// best = the smaller of best and r, where 0 stands for no limit
void keep_smallest(double & best, double r) {
    if (r > 0.0 && (best == 0.0 || r < best)) {
        best = r;
    }
}

// quota / period from their texts; 0 (no limit) unless both are positive counts
double quota_ratio(const std::string & quota, const std::string & period) {
    const auto q = parse_count(trim(quota)), p = parse_count(trim(period));
    return q && p && *q > 0 && *p > 0 ? static_cast<double>(*q) / static_cast<double>(*p) : 0.0;
}

// The smallest quota / period along the directories from base + rel up to base (both under the same mount), read
// by `ratio_at` (0: no limit there).
double smallest_ratio(const std::string & base, const std::string & rel, double (*ratio_at)(const std::string &)) {
    double      best = 0.0;
    std::string path = rel;
    for (;;) {
        keep_smallest(best, ratio_at(base + path));
        if (path.empty() || path == "/") {
            return best;
        }
        const size_t slash = path.find_last_of('/');
        path               = slash == std::string::npos ? "" : path.substr(0, slash);
    }
}

// cgroup v2: cpu.max is "max PERIOD" (no limit) or "QUOTA PERIOD".
double v2_ratio(const std::string & dir) {
    const auto text = read_text(dir + "/cpu.max");
    if (!text) {
        return 0.0;
    }
    std::istringstream fields(*text);
    std::string        quota, period;
    fields >> quota >> period;
    return quota_ratio(quota, period);
}

// cgroup v1: cpu.cfs_quota_us is -1 without a limit.
double v1_ratio(const std::string & dir) {
    const auto quota = read_text(dir + "/cpu.cfs_quota_us"), period = read_text(dir + "/cpu.cfs_period_us");
    return quota && period ? quota_ratio(*quota, *period) : 0.0;
}

// The CPUs the process's cgroups allow it in time (quota / period, the smallest found), 0 without a limit.
double cgroup_cpus(const CoreSources & s) {
    double             best = 0.0;
    std::istringstream lines(s.proc_cgroup);
    for (std::string line; std::getline(lines, line);) {
        const size_t a = line.find(':');
        const size_t b = a == std::string::npos ? std::string::npos : line.find(':', a + 1);
        if (b == std::string::npos) {
            continue;
        }
        const std::string hierarchy = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
        std::string       path = trim(line.substr(b + 1));
        if (!path.empty() && path.back() == '/') {
            path.pop_back();
        }
        if (hierarchy == "0" && controllers.empty()) { // v2: the unified tree, mounted at the root or in unified/
            for (const std::string & base : {s.cgroup_root, s.cgroup_root + "/unified"}) {
                keep_smallest(best, smallest_ratio(base, path, v2_ratio));
            }
            continue;
        }
        std::istringstream names(controllers);
        bool               cpu = false;
        for (std::string name; std::getline(names, name, ',');) {
            cpu = cpu || name == "cpu";
        }
        if (cpu) { // v1: the cpu controller's tree, mounted under its controllers' names or as cpu/
            for (const std::string & base : {s.cgroup_root + "/" + controllers, s.cgroup_root + "/cpu"}) {
                keep_smallest(best, smallest_ratio(base, path, v1_ratio));
            }
        }
    }
    return best;
}

} // namespace

std::vector<int> parse_cpu_list(const std::string & text) {
    std::set<int>      cpus;
    std::istringstream ranges(trim(text));
    constexpr int64_t  kMax = 1 << 20;
    for (std::string range; std::getline(ranges, range, ',');) {
        const size_t dash  = range.find('-');
        const auto   first = parse_count(range.substr(0, dash));
        const auto   last  = dash == std::string::npos ? first : parse_count(range.substr(dash + 1));
        if (!first || !last || *first > *last || *last >= kMax) {
            return {};
        }
        for (int64_t c = *first; c <= *last; ++c) {
            cpus.insert(static_cast<int>(c));
        }
    }
    return {cpus.begin(), cpus.end()};
}

CoreBudget core_budget(const CoreSources & s) {
    std::vector<int> allowed = s.allowed;
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    CoreBudget budget;
    budget.bound  = s.online > 0 && static_cast<int>(allowed.size()) < s.online;
    double cpus_n = static_cast<double>(std::max<size_t>(allowed.size(), 1));
    if (const auto text = read_text(s.hybrid_list)) {
        const std::vector<int> performance = parse_cpu_list(*text);
        std::vector<int>       both;
        std::set_intersection(allowed.begin(), allowed.end(), performance.begin(), performance.end(),
                              std::back_inserter(both));
        if (!both.empty()) {
            allowed = both;
        }
    }
    std::set<std::vector<int>> cores;
    for (int cpu : allowed) {
        cores.insert(core_of(s.sysfs_cpu, cpu));
    }
    double cores_n = static_cast<double>(std::max<size_t>(cores.size(), 1));
    if (const double quota = cgroup_cpus(s); quota > 0.0) {
        const double cap = std::ceil(quota - 1e-9); // a part of a CPU counts as one
        cores_n          = std::min(cores_n, cap);
        cpus_n           = std::min(cpus_n, cap);
    }
    budget.cores = static_cast<int>(std::clamp(cores_n, 1.0, static_cast<double>(GGML_MAX_N_THREADS)));
    budget.cpus  = static_cast<int>(std::max(cpus_n, 1.0));
    return budget;
}

CoreSources CoreSources::this_process() {
    CoreSources s;
#if defined(__linux__)
    s.online = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    // the mask's size grows until the kernel's CPU count fits (EINVAL below it)
    for (int n = 1024; n <= (1 << 20) && s.allowed.empty(); n *= 4) {
        cpu_set_t *  set  = CPU_ALLOC(n);
        const size_t size = CPU_ALLOC_SIZE(n);
        if (set == nullptr) {
            break;
        }
        CPU_ZERO_S(size, set);
        const int rc = sched_getaffinity(0, size, set);
        if (rc == 0) {
            for (int c = 0; c < n; ++c) {
                if (CPU_ISSET_S(c, size, set)) {
                    s.allowed.push_back(c);
                }
            }
        }
        CPU_FREE(set);
        if (rc != 0 && errno != EINVAL) {
            break;
        }
    }
    if (const auto text = read_text("/proc/self/cgroup")) {
        s.proc_cgroup = *text;
    }
#else
    s.online = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
    if (s.allowed.empty()) { // no mask could be read: every online CPU
        for (int c = 0; c < std::max(s.online, 1); ++c) {
            s.allowed.push_back(c);
        }
    }
    return s;
}

const CoreBudget & this_process_budget() {
    static const CoreBudget budget = core_budget(CoreSources::this_process());
    return budget;
}

int default_threads() { return this_process_budget().cores; }

} // namespace switchyard::run
