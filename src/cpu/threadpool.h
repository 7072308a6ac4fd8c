// The CPU thread pool: persistent worker threads that run one task at a time on behalf of a caller.
//
// A pool of n threads owns n - 1 std::threads; the caller of run() is thread 0 and works alongside them, so a
// one-thread pool has no workers at all. Idle workers spin briefly (for a time scaled by params.poll, 0 = not
// at all) watching for work, then sleep on a condition variable. run() publishes the task under the mutex with
// a new generation number, wakes the workers, runs thread 0's share and returns once every participating
// worker has returned from the task.
//
// Paused pools: pause() makes idle workers sleep without spinning; resume() undoes it; run() on a paused pool
// resumes it first (as upstream's kickoff does), so computing on a paused pool works and leaves it running.
//
// cpumask / prio / strict_cpu are applied to the workers best-effort when they start (failures are ignored and
// logged at debug level); the caller's thread (thread 0) is left as it is.
//
// Thread safety: run, pause and resume may be called from any thread; concurrent run() calls are serialised
// (one task at a time). Destroying the pool while a run() is in progress is a programming error.
#pragma once

#include "ggml.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::cpu {

// The task a pool runs: called once on each participating thread with that thread's index.
using ThreadTask = void (*)(void * context, int ith);

class ThreadPool {
public:
    ThreadPool(const ThreadPool &)             = delete;
    ThreadPool & operator=(const ThreadPool &) = delete;
    // Stops and joins the workers.
    virtual ~ThreadPool();

    int  n_threads() const { return n_threads_; }
    bool paused() const { return paused_.load(std::memory_order_relaxed); }
    const ggml_threadpool_params & params() const { return params_; }

    void pause();
    void resume();

    // Runs task(context, ith) for every ith in [0, n_active) (n_active clamped to [1, n_threads]), ith 0 on the
    // calling thread, and returns when all of them have returned. Blocking.
    void run(int n_active, ThreadTask task, void * context);

protected:
    explicit ThreadPool(const ggml_threadpool_params & params);
    // Starts the workers; false (logged) if a thread could not be created, in which case none are left running.
    bool start();

private:
    struct Job {
        ThreadTask task     = nullptr;
        void *     context  = nullptr;
        int        n_active = 0;
    };

    void worker_main(int ith);
    void spin_for_work(uint64_t seen) const;
    void wait_for_workers();
    void stop_workers();

    ggml_threadpool_params   params_;
    int                      n_threads_;
    std::vector<std::thread> workers_;

    std::mutex              run_mutex_; // serialises run / pause / resume
    std::mutex              mutex_;     // guards job_, generation_, stop_ and writes of paused_
    std::condition_variable wake_;
    Job                     job_;
    uint64_t                generation_ = 0;
    bool                    stop_       = false;

    std::atomic<uint64_t> published_generation_{0}; // generation_, readable without the mutex (spinning)
    std::atomic<bool>     paused_{false};
    alignas(64) std::atomic<int> pending_{0};       // workers still inside the current task
};

} // namespace switchyard::cpu

// The C handle is the pool itself.
struct ggml_threadpool final : switchyard::cpu::ThreadPool {
    // nullptr (logged) on invalid parameters or when the threads cannot be created
    static std::unique_ptr<ggml_threadpool> create(const ggml_threadpool_params & params, const char * caller);

private:
    explicit ggml_threadpool(const ggml_threadpool_params & params) : ThreadPool(params) {}
};
