#include "cpu/thread_sync.h"

#include "cpu/kernel.h"

#include <thread>

namespace switchyard::cpu {

namespace {

// Rounds of CPU-relax before yielding, and of yielding before sleeping. A node usually takes microseconds to
// a few milliseconds, so a brief spin catches the common case without holding a core for long.
constexpr int kSpinRounds  = 2048;
constexpr int kYieldRounds = 64;

} // namespace

void ThreadSync::arrive_and_wait(int n_threads) {
    if (n_threads <= 1) {
        return;
    }
    const uint32_t generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) == n_threads - 1) {
        // last to arrive: reset for the next episode, then release everyone
        arrived_.store(0, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        generation_.notify_all();
        return;
    }
    for (int i = 0; i < kSpinRounds; ++i) {
        if (generation_.load(std::memory_order_acquire) != generation) {
            return;
        }
        cpu_relax();
    }
    for (int i = 0; i < kYieldRounds; ++i) {
        if (generation_.load(std::memory_order_acquire) != generation) {
            return;
        }
        std::this_thread::yield();
    }
    // wait() returns once the value differs from `generation` (spurious wake-ups are handled inside)
    generation_.wait(generation, std::memory_order_acquire);
}

void barrier(const ComputeParams & params) {
    if (params.nth > 1 && params.sync != nullptr) {
        params.sync->arrive_and_wait(params.nth);
    }
}

} // namespace switchyard::cpu
