// The thread pool and its barrier: parameters (default/init/match), creation and invalid sizes, every thread
// index running exactly once per task, pause/resume (a paused pool still computes and is resumed by it), the
// C API, and the barrier's memory ordering under stress (phases written before a barrier are seen after it), also
// when its waiters have gone to sleep.
#include "cpu/thread_sync.h"
#include "cpu/threadpool.h"

#include "cpu_test_util.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using switchyard::cpu::ThreadSync;
using switchyard::testing::CpuLogCapture;

TEST(ThreadpoolParams, DefaultsAreDocumentedValues) {
    const ggml_threadpool_params p = ggml_threadpool_params_default(6);
    EXPECT_EQ(p.n_threads, 6);
    EXPECT_EQ(p.prio, GGML_SCHED_PRIO_NORMAL);
    EXPECT_EQ(p.poll, 50u);
    EXPECT_FALSE(p.strict_cpu);
    EXPECT_FALSE(p.paused);
    for (bool bit : p.cpumask) {
        ASSERT_FALSE(bit);
    }
}

TEST(ThreadpoolParams, InitOverwritesEverything) {
    ggml_threadpool_params p;
    std::memset(&p, 0xff, sizeof(p));
    ggml_threadpool_params_init(&p, 3);
    const ggml_threadpool_params d = ggml_threadpool_params_default(3);
    EXPECT_TRUE(ggml_threadpool_params_match(&p, &d));
    EXPECT_FALSE(p.paused);
    EXPECT_FALSE(p.cpumask[GGML_MAX_N_THREADS - 1]);
}

TEST(ThreadpoolParams, MatchComparesEveryFieldButPaused) {
    const ggml_threadpool_params a = ggml_threadpool_params_default(4);
    ggml_threadpool_params       b = a;
    EXPECT_TRUE(ggml_threadpool_params_match(&a, &b));
    b.paused = true;
    EXPECT_TRUE(ggml_threadpool_params_match(&a, &b));
    b = a, b.n_threads = 5;
    EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));
    b = a, b.prio = GGML_SCHED_PRIO_HIGH;
    EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));
    b = a, b.poll = 0;
    EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));
    b = a, b.strict_cpu = true;
    EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));
    b = a, b.cpumask[7] = true;
    EXPECT_FALSE(ggml_threadpool_params_match(&a, &b));
}

TEST(Threadpool, NewReportsSizeAndFrees) {
    for (int n : {1, 2, 5}) {
        ggml_threadpool_params p    = ggml_threadpool_params_default(n);
        ggml_threadpool *      pool = ggml_threadpool_new(&p);
        ASSERT_NE(pool, nullptr) << n;
        EXPECT_EQ(ggml_threadpool_get_n_threads(pool), n);
        ggml_threadpool_free(pool);
    }
    ggml_threadpool_free(nullptr); // accepted
}

TEST(Threadpool, InvalidSizesAreRejectedWithALog) {
    CpuLogCapture log;
    for (int n : {0, -3, GGML_MAX_N_THREADS + 1}) {
        ggml_threadpool_params p = ggml_threadpool_params_default(n);
        EXPECT_EQ(ggml_threadpool_new(&p), nullptr) << n;
    }
    EXPECT_EQ(ggml_threadpool_new(nullptr), nullptr);
    EXPECT_TRUE(log.contains("[ggml_threadpool_new] n_threads must be in [1, 512]"));
    EXPECT_EQ(ggml_threadpool_get_n_threads(nullptr), 0);
}

struct Tally {
    std::vector<std::atomic<int>> calls;
    explicit Tally(int n) : calls(static_cast<size_t>(n)) {}
    static void task(void * self, int ith) { static_cast<Tally *>(self)->calls[static_cast<size_t>(ith)]++; }
};

TEST(Threadpool, RunCallsEachActiveIndexOncePerTask) {
    auto pool = ggml_threadpool::create(ggml_threadpool_params_default(4), "test");
    ASSERT_NE(pool, nullptr);
    Tally tally(4);
    for (int round = 0; round < 200; ++round) {
        const int n_active = 1 + round % 4; // 1..4 threads, changing every time
        pool->run(n_active, &Tally::task, &tally);
    }
    // each index ith runs in the rounds where n_active > ith: 200 - 50 * ith
    for (int ith = 0; ith < 4; ++ith) {
        EXPECT_EQ(tally.calls[static_cast<size_t>(ith)].load(), 200 - 50 * ith) << ith;
    }
}

TEST(Threadpool, ActiveCountIsClampedToThePoolSize) {
    auto pool = ggml_threadpool::create(ggml_threadpool_params_default(2), "test");
    ASSERT_NE(pool, nullptr);
    Tally tally(2);
    pool->run(16, &Tally::task, &tally);
    pool->run(0, &Tally::task, &tally);
    EXPECT_EQ(tally.calls[0].load(), 2);
    EXPECT_EQ(tally.calls[1].load(), 1);
}

TEST(Threadpool, PauseResumeAndRunningOnAPausedPool) {
    ggml_threadpool_params p = ggml_threadpool_params_default(3);
    p.paused                 = true;
    ggml_threadpool * pool   = ggml_threadpool_new(&p);
    ASSERT_NE(pool, nullptr);
    EXPECT_TRUE(pool->paused());
    ggml_threadpool_resume(pool);
    EXPECT_FALSE(pool->paused());
    ggml_threadpool_pause(pool);
    EXPECT_TRUE(pool->paused());

    // running a task on a paused pool resumes it and uses all its threads
    Tally tally(3);
    pool->run(3, &Tally::task, &tally);
    EXPECT_FALSE(pool->paused());
    for (int ith = 0; ith < 3; ++ith) {
        EXPECT_EQ(tally.calls[static_cast<size_t>(ith)].load(), 1);
    }
    ggml_threadpool_pause(pool);
    ggml_threadpool_pause(pool); // twice is harmless
    ggml_threadpool_resume(pool);
    ggml_threadpool_resume(pool);
    ggml_threadpool_pause(nullptr);
    ggml_threadpool_resume(nullptr);
    ggml_threadpool_free(pool); // freeing a paused or running pool joins its workers
}

TEST(Threadpool, NoPollingAndPlacementSettingsStillRun) {
    ggml_threadpool_params p = ggml_threadpool_params_default(3);
    p.poll                   = 0;
    p.strict_cpu             = true;
    p.prio                   = GGML_SCHED_PRIO_LOW;
    p.cpumask[0]             = true; // all workers on core 0: still correct, just not parallel
    auto pool                = ggml_threadpool::create(p, "test");
    ASSERT_NE(pool, nullptr);
    Tally tally(3);
    for (int i = 0; i < 20; ++i) {
        pool->run(3, &Tally::task, &tally);
    }
    EXPECT_EQ(tally.calls[2].load(), 20);
}

// Each of n threads writes phase numbers into its slot; after every barrier each thread checks all slots. With
// `late`, the last thread sleeps before each phase, so the others spin out, yield out and sleep in the barrier
// word's wait(), where the arrivals of the others (which change the word, not its generation) wake them early.
struct BarrierStress {
    ThreadSync       sync;
    std::vector<int> slots; // plain ints: only the barrier orders them
    std::atomic<int> errors{0};
    int              n;
    int              phases;
    bool             late;
    BarrierStress(int threads, int n_phases, bool late_last)
        : slots(static_cast<size_t>(threads), -1), n(threads), phases(n_phases), late(late_last) {}

    static void task(void * self_ptr, int ith) {
        auto * self = static_cast<BarrierStress *>(self_ptr);
        for (int phase = 0; phase < self->phases; ++phase) {
            if (self->late && ith == self->n - 1) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            self->slots[static_cast<size_t>(ith)] = phase;
            self->sync.arrive_and_wait(self->n);
            for (int t = 0; t < self->n; ++t) {
                if (self->slots[static_cast<size_t>(t)] != phase) {
                    self->errors++;
                }
            }
            self->sync.arrive_and_wait(self->n); // nobody writes the next phase before all have read this one
        }
    }

    // runs the phases on a pool of n threads; false when the pool cannot be made
    bool run() {
        auto pool = ggml_threadpool::create(ggml_threadpool_params_default(n), "test");
        if (pool == nullptr) {
            return false;
        }
        pool->run(n, &BarrierStress::task, this);
        return true;
    }
};

TEST(ThreadSync, BarrierOrdersMemoryAcrossManyPhases) {
    for (int n : {2, 3, 4}) {
        BarrierStress stress(n, 1000, false);
        ASSERT_TRUE(stress.run());
        EXPECT_EQ(stress.errors.load(), 0) << n;
    }
}

TEST(ThreadSync, SleepingWaitersWakeOnlyWhenAllHaveArrived) {
    for (int n : {2, 5}) {
        BarrierStress late(n, 6, true);
        ASSERT_TRUE(late.run());
        EXPECT_EQ(late.errors.load(), 0) << n;
    }
}

TEST(ThreadSync, OneThreadNeverWaits) {
    ThreadSync sync;
    sync.arrive_and_wait(1);
    sync.arrive_and_wait(0);
    switchyard::cpu::ComputeParams params{0, 1, nullptr, 0, &sync};
    switchyard::cpu::barrier(params); // returns at once
    params.sync = nullptr;
    switchyard::cpu::barrier(params);
    SUCCEED();
}

TEST(ThreadSync, WaitersSpinOnlyWhenEveryThreadHasACpu) {
    EXPECT_GT(ThreadSync::spin_rounds(2, 2), 0);
    EXPECT_GT(ThreadSync::spin_rounds(4, 16), 0);
    EXPECT_EQ(ThreadSync::spin_rounds(3, 2), 0);
    EXPECT_EQ(ThreadSync::spin_rounds(16, 1), 0);
    EXPECT_EQ(ThreadSync::spin_rounds(1, 1), ThreadSync::spin_rounds(8, 8));
}

TEST(ThreadSync, WorksWithPlainThreadsThatSleep) {
    // more threads than the test machine has cores, so waiters reach the sleeping phase
    constexpr int            n = 6;
    BarrierStress            stress(n, 1000, false);
    std::vector<std::thread> threads;
    for (int ith = 0; ith < n; ++ith) {
        threads.emplace_back([&stress, ith] { BarrierStress::task(&stress, ith); });
    }
    for (auto & t : threads) {
        t.join();
    }
    EXPECT_EQ(stress.errors.load(), 0);
}

// Two barriers in turn (as the executor's between-node and in-kernel ones), 3 threads on this 2-core machine so
// that waiters sleep, uneven work: a wake-up lost after the last arriver's store (libstdc++'s notify skips the
// futex wake when it sees no waiter registered, which a release store let it see too early) left a thread asleep
// for good; a watchdog fails the test if the threads make no progress for 20 s. Before the store was made seq_cst,
// such a stall came in 2 of 24 runs of 1,000,000 rounds (and hung llama.cpp's test-save-load-state once).
TEST(ThreadSync, AlternatingBarriersNeverLoseAWakeUp) {
    constexpr int             n = 3;
    constexpr long            kRounds = 200000;
    ThreadSync                a, b;
    std::atomic<long>         progress{0};
    std::atomic<bool>         stalled{false};
    std::vector<std::thread>  threads;
    for (int t = 0; t < n; ++t) {
        threads.emplace_back([&, t] {
            for (long r = 0; r < kRounds && !stalled.load(std::memory_order_relaxed); ++r) {
                if ((r + t) % 7 == 0) {
                    for (int k = 0; k < 2000; ++k) {
                        progress.fetch_add(0, std::memory_order_relaxed); // a little work
                    }
                }
                a.arrive_and_wait(n);
                b.arrive_and_wait(n);
                if (t == 0) {
                    progress.store(r + 1, std::memory_order_relaxed);
                }
            }
        });
    }
    long last = -1;
    for (int quiet = 0; progress.load() < kRounds && quiet < 40;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const long now = progress.load();
        quiet          = now == last ? quiet + 1 : 0;
        last           = now;
    }
    if (progress.load() < kRounds) {
        // a lost wake-up: the sleeping threads never return, so the process cannot join them
        ADD_FAILURE() << "no progress for 20 s at round " << progress.load();
        std::_Exit(1);
    }
    for (auto & t : threads) {
        t.join();
    }
}

} // namespace
