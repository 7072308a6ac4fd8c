// Thread pool parameters (ggml.h). The pool itself belongs to the CPU backend (src/cpu/threadpool.cpp); the
// parameters live here so that code without the CPU backend can describe a pool.
#include "ggml.h"

#include <cstring>

extern "C" {

void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads) {
    if (p == nullptr) {
        return;
    }
    std::memset(p->cpumask, 0, sizeof(p->cpumask)); // no mask: threads inherit the process affinity
    p->n_threads  = n_threads;
    p->prio       = GGML_SCHED_PRIO_NORMAL;
    p->poll       = 50;
    p->strict_cpu = false;
    p->paused     = false;
}

struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads) {
    struct ggml_threadpool_params p;
    ggml_threadpool_params_init(&p, n_threads);
    return p;
}

// Two parameter sets describe the same pool when thread count, priority, polling, pinning and mask agree
// (whether the pool starts paused does not matter, as upstream).
bool ggml_threadpool_params_match(const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1) {
    if (p0 == nullptr || p1 == nullptr) {
        return p0 == p1;
    }
    return p0->n_threads == p1->n_threads && p0->prio == p1->prio && p0->poll == p1->poll &&
           p0->strict_cpu == p1->strict_cpu && std::memcmp(p0->cpumask, p1->cpumask, sizeof(p0->cpumask)) == 0;
}

} // extern "C"
