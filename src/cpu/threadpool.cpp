// The thread pool (see threadpool.h) and its C API: ggml_threadpool_new / free / get_n_threads / pause / resume.
#include "cpu/threadpool.h"

#include "cpu/thread_settings.h"
#include "cpu/thread_sync.h"

#include "ggml-cpu.h"

#include "base/log.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <exception>

namespace switchyard::cpu {

namespace {

// How long an idle worker watches for new work before sleeping, per unit of params.poll (0..100): poll 50,
// the default, spins for about a millisecond, enough to bridge the gap between the graphs of a decode loop.
constexpr auto kSpinPerPoll = std::chrono::microseconds(20);
constexpr int  kMaxPoll     = 100;

// Rounds of CPU-relax with which thread 0 waits for the workers to finish before it sleeps.
constexpr int kFinishSpinRounds = 4096;

} // namespace

ThreadPool::ThreadPool(const ggml_threadpool_params & params)
    : params_(params), n_threads_(params.n_threads), paused_(params.paused) {}

ThreadPool::~ThreadPool() { stop_workers(); }

bool ThreadPool::start() {
    workers_.reserve(static_cast<size_t>(n_threads_ - 1));
    try {
        for (int ith = 1; ith < n_threads_; ++ith) {
            workers_.emplace_back(&ThreadPool::worker_main, this, ith);
        }
    } catch (const std::exception & e) { // std::system_error, std::bad_alloc
        log_error("[ggml_threadpool_new] could not start worker thread %zu of %d: %s\n", workers_.size() + 1,
                  n_threads_ - 1, e.what());
        stop_workers();
        return false;
    }
    return true;
}

void ThreadPool::stop_workers() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        // a generation no run publishes: a worker spinning for work (spin_for_work) stops at once rather than after
        // its spin (a millisecond at the default poll, which every ggml_graph_compute on a temporary pool waited)
        published_generation_.store(~uint64_t{0}, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread & worker : workers_) {
        worker.join();
    }
    workers_.clear();
}

void ThreadPool::pause() {
    std::lock_guard run_lock(run_mutex_);
    std::lock_guard lock(mutex_);
    paused_.store(true, std::memory_order_relaxed);
}

void ThreadPool::resume() {
    std::lock_guard run_lock(run_mutex_);
    {
        std::lock_guard lock(mutex_);
        paused_.store(false, std::memory_order_relaxed);
    }
    wake_.notify_all();
}

void ThreadPool::run(int n_active, ThreadTask task, void * context) {
    std::lock_guard run_lock(run_mutex_);
    n_active = std::clamp(n_active, 1, n_threads_);
    pending_.store(n_active - 1, std::memory_order_relaxed);
    {
        std::lock_guard lock(mutex_);
        paused_.store(false, std::memory_order_relaxed); // computing on a paused pool resumes it
        if (n_active > 1) {
            job_ = Job{task, context, n_active};
            ++generation_;
            published_generation_.store(generation_, std::memory_order_release);
        }
    }
    if (n_active > 1) {
        wake_.notify_all();
    }
    task(context, 0);
    wait_for_workers();
}

void ThreadPool::wait_for_workers() {
    for (int i = 0; i < kFinishSpinRounds; ++i) {
        if (pending_.load(std::memory_order_acquire) == 0) {
            return;
        }
        cpu_relax();
    }
    for (;;) {
        const int left = pending_.load(std::memory_order_acquire);
        if (left == 0) {
            return;
        }
        pending_.wait(left, std::memory_order_acquire);
    }
}

void ThreadPool::spin_for_work(uint64_t seen) const {
    const uint32_t poll = std::min<uint32_t>(params_.poll, kMaxPoll);
    if (poll == 0) {
        return;
    }
    const auto deadline = std::chrono::steady_clock::now() + kSpinPerPoll * poll;
    while (!paused_.load(std::memory_order_relaxed) &&
           published_generation_.load(std::memory_order_acquire) == seen) {
        for (int i = 0; i < 64; ++i) {
            cpu_relax();
        }
        std::this_thread::yield(); // on a busy machine, let the threads that have work run first
        if (std::chrono::steady_clock::now() >= deadline) {
            return;
        }
    }
}

void ThreadPool::worker_main(int ith) {
    apply_worker_settings(params_, ith);
    uint64_t seen = 0;
    for (;;) {
        spin_for_work(seen);
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] {
                return stop_ || (generation_ != seen && !paused_.load(std::memory_order_relaxed));
            });
            if (stop_) {
                return;
            }
            seen = generation_;
            job  = job_;
        }
        if (ith < job.n_active) {
            job.task(job.context, ith);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                pending_.notify_all();
            }
        }
    }
}

} // namespace switchyard::cpu

std::unique_ptr<ggml_threadpool> ggml_threadpool::create(const ggml_threadpool_params & params,
                                                         const char *                   caller) {
    if (params.n_threads < 1 || params.n_threads > GGML_MAX_N_THREADS) {
        switchyard::log_error("[%s] n_threads must be in [1, %d], got %d\n", caller, GGML_MAX_N_THREADS,
                              params.n_threads);
        return nullptr;
    }
    std::unique_ptr<ggml_threadpool> pool(new (std::nothrow) ggml_threadpool(params));
    if (pool == nullptr) {
        switchyard::log_error("[%s] out of memory\n", caller);
        return nullptr;
    }
    if (!pool->start()) {
        return nullptr;
    }
    return pool;
}

extern "C" {

struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params) {
    if (params == nullptr) {
        switchyard::log_error("[ggml_threadpool_new] params is NULL\n");
        return nullptr;
    }
    return ggml_threadpool::create(*params, "ggml_threadpool_new").release();
}

void ggml_threadpool_free(struct ggml_threadpool * threadpool) { delete threadpool; }

int ggml_threadpool_get_n_threads(struct ggml_threadpool * threadpool) {
    if (threadpool == nullptr) {
        switchyard::log_error("[ggml_threadpool_get_n_threads] threadpool is NULL\n");
        return 0;
    }
    return threadpool->n_threads();
}

void ggml_threadpool_pause(struct ggml_threadpool * threadpool) {
    if (threadpool != nullptr) {
        threadpool->pause();
    }
}

void ggml_threadpool_resume(struct ggml_threadpool * threadpool) {
    if (threadpool != nullptr) {
        threadpool->resume();
    }
}

} // extern "C"
