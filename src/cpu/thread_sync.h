// ThreadSync: the barrier the threads computing one graph meet at, both between nodes and inside a kernel
// (barrier(params) in kernel.h). It is a generation barrier: each arrival increments a counter, the last of the
// expected threads resets it and advances the generation, the others wait for the generation to move.
//
// Memory ordering: everything a thread wrote before arriving is visible to every thread after it leaves (the
// counter is a release sequence ending at the last arriver, whose release of the new generation the waiters
// acquire). Waiters spin briefly with a CPU-relax hint, then yield, then sleep on the generation word
// (std::atomic::wait), so an oversubscribed machine does not burn its cores.
//
// Thread safety: any number of threads may use one ThreadSync, but the threads of one episode must all pass
// the same `n_threads`, and a thread must not arrive at the next episode with a different set of participants
// while the current one is still filling up (the executor uses one ThreadSync per participant set).
#pragma once

#include <atomic>
#include <cstdint>

namespace switchyard::cpu {

class ThreadSync {
public:
    ThreadSync()                              = default;
    ThreadSync(const ThreadSync &)            = delete;
    ThreadSync & operator=(const ThreadSync &) = delete;

    // Blocks until n_threads threads (this one included) have arrived. n_threads <= 1 returns at once.
    void arrive_and_wait(int n_threads);

private:
    alignas(64) std::atomic<int> arrived_{0};
    alignas(64) std::atomic<uint32_t> generation_{0};
};

// A short pause for spin loops (PAUSE on x86), telling the core another thread is being waited for.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

} // namespace switchyard::cpu
