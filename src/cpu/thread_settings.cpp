#include "cpu/thread_settings.h"

#include "base/log.h"

#include <vector>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace switchyard::cpu {

namespace {

#ifdef __linux__

void apply_cpumask(const ggml_threadpool_params & params, int ith) {
    std::vector<int> cpus;
    for (int i = 0; i < GGML_MAX_N_THREADS && i < CPU_SETSIZE; ++i) {
        if (params.cpumask[i]) {
            cpus.push_back(i);
        }
    }
    if (cpus.empty()) {
        return; // keep the inherited affinity
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (params.strict_cpu) {
        CPU_SET(cpus[static_cast<size_t>(ith) % cpus.size()], &set);
    } else {
        for (int cpu : cpus) {
            CPU_SET(cpu, &set);
        }
    }
    if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
        log_debug("[ggml_threadpool_new] could not set the affinity of worker %d; keeping the default\n", ith);
    }
}

void apply_priority(ggml_sched_priority prio, int ith) {
    int         policy = SCHED_OTHER;
    sched_param param{};
    switch (prio) {
        case GGML_SCHED_PRIO_NORMAL:   return;
        case GGML_SCHED_PRIO_LOW:      policy = SCHED_BATCH; break;
        case GGML_SCHED_PRIO_MEDIUM:   policy = SCHED_FIFO; param.sched_priority = 40; break;
        case GGML_SCHED_PRIO_HIGH:     policy = SCHED_FIFO; param.sched_priority = 80; break;
        case GGML_SCHED_PRIO_REALTIME: policy = SCHED_FIFO; param.sched_priority = 90; break;
        default:                       return;
    }
    if (pthread_setschedparam(pthread_self(), policy, &param) != 0) {
        log_debug("[ggml_threadpool_new] could not set the priority of worker %d; keeping the default\n", ith);
    }
}

#endif

} // namespace

void apply_worker_settings(const ggml_threadpool_params & params, int ith) {
#ifdef __linux__
    apply_cpumask(params, ith);
    apply_priority(params.prio, ith);
#else
    (void) params;
    (void) ith;
#endif
}

} // namespace switchyard::cpu
