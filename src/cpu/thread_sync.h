// ThreadSync: the barrier the threads computing one graph meet at, both between nodes and inside a kernel
// (barrier(params) in kernel.h). It is a generation barrier on one 32-bit word: the low 16 bits count arrivals
// (at most GGML_MAX_N_THREADS), the high 16 bits are the generation (it wraps; a thread is never a whole lap behind,
// as every episode waits for every thread). Each arrival adds one; the last of the expected threads stores the next generation
// with a zero count, the others wait for the generation to move. One word on one cache line: an episode moves
// that line between the cores about three times (a counter and a generation on two lines take four or five; a
// tiny node's cost is mostly these moves).
//
// Memory ordering: everything a thread wrote before arriving is visible to every thread after it leaves (the
// arrivals are a release sequence ending at the last arriver, whose (seq_cst) store of the new generation the
// waiters acquire). Waiters spin briefly with a CPU-relax hint, then yield, then sleep on the generation word
// (std::atomic::wait), so an oversubscribed machine does not burn its cores. With more threads than the CPUs of
// the affinity mask the process started with, waiters do not spin at all: a spinning thread holds the CPU that a
// thread still working on the node needs (a 1B model on 2 CPUs decoded at 25 tokens/s with 4 spinning threads, 56
// without the spin; 2 threads the same either way).
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

    // Rounds a waiter spins before yielding, for n_threads threads on `cpus` CPUs: none when they outnumber the CPUs.
    static int spin_rounds(int n_threads, int cpus);

private:
    // generation << 16 | arrivals; 32 bits, so that waiting and waking use the futex on the word itself (the C++
    // library sends wider atomics through a shared proxy word, one more atomic update per episode)
    alignas(64) std::atomic<uint32_t> word_{0};
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
