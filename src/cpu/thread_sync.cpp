#include "cpu/thread_sync.h"

#include "cpu/kernel.h"

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace switchyard::cpu {

namespace {

// Rounds of CPU-relax before yielding, and of yielding before sleeping. The spin catches a hand-off between
// threads that all run (64 rounds take the same time per node as 2,048 did: 216 ns on bench/thread_sync's chain
// of tiny nodes, 2 threads). A wait longer than that is a thread that is not running, and then the CPU is better
// given up: with one busy process beside 2 threads on 2 CPUs, the 1B model decoded at 25 tokens/s spinning 2,048
// rounds, 41 spinning 64 (quiet: 91.8 / 91.2). The yields cost a system call each but keep the wake-up quick.
constexpr int kSpinRounds  = 64;
constexpr int kYieldRounds = 64;

// CPUs of the affinity mask the process started with (taskset, a cpuset, a container's limit): read when the library
// is loaded, before a thread pool pins its threads to single CPUs; the hardware's threads where it cannot be read.
int read_usable_cpus() {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
#endif
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

const int kUsableCpus = read_usable_cpus();

} // namespace

int ThreadSync::spin_rounds(int n_threads, int cpus) {
    return n_threads > cpus ? 0 : kSpinRounds;
}

void ThreadSync::arrive_and_wait(int n_threads) {
    if (n_threads <= 1) {
        return;
    }
    const uint32_t before     = word_.fetch_add(1, std::memory_order_acq_rel);
    const uint32_t generation = before >> 16;
    if ((before & 0xffffu) == static_cast<uint32_t>(n_threads - 1)) {
        // last to arrive: nobody else touches the word until it moves on, so a store starts the next episode.
        // seq_cst, not release: libstdc++'s notify_all first reads how many waiters are registered and skips the
        // futex wake when none is; after a release store that read may happen before the store is visible
        // (StoreLoad), while a waiter registers and still sees the old word, then sleeps for good.
        word_.store(static_cast<uint32_t>((generation + 1) << 16), std::memory_order_seq_cst);
        word_.notify_all();
        return;
    }
    auto      moved = [&] { return (word_.load(std::memory_order_acquire) >> 16) != generation; };
    const int spin  = spin_rounds(n_threads, kUsableCpus);
    for (int i = 0; i < spin; ++i) {
        if (moved()) {
            return;
        }
        cpu_relax();
    }
    for (int i = 0; i < kYieldRounds; ++i) {
        if (moved()) {
            return;
        }
        std::this_thread::yield();
    }
    // wait() returns once the word differs from the value it is given; arrivals of this episode change the word
    // too, so wait again until the generation itself has moved
    for (uint32_t seen = word_.load(std::memory_order_acquire); (seen >> 16) == generation;
         seen           = word_.load(std::memory_order_acquire)) {
        word_.wait(seen, std::memory_order_acquire);
    }
}

void barrier(const ComputeParams & params) {
    if (params.nth > 1 && params.sync != nullptr) {
        params.sync->arrive_and_wait(params.nth);
    }
}

} // namespace switchyard::cpu
