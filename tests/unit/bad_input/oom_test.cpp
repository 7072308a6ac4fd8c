// Host memory exhaustion, for real: a child process limits its own address space (RLIMIT_AS) a little above
// what it uses and takes what is left of the heap, keeping back a chosen slack, then calls an API that needs
// more (planning a 200k-node graph, creating a meta backend with its worker threads, a huge context, a CPU
// backend, a scheduler). The call must return its failure value with a message naming the function (fix 4:
// std::bad_alloc and std::system_error stopped at the C boundary), the child must exit normally (no signal, no
// "terminate called"), and once memory is back the same objects must work in the same process.
//
// Under ASan/TSan the address-space limit cannot work (their shadow reservations dwarf any sensible limit);
// those cases skip there. The allocation-failure injection test (tests/unit/alloc_failure) covers the same
// paths under the sanitizers.
#include "bad_input.h"

#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <cstring>

// Under ASan and TSan, a failed malloc aborts unless the allocator may return NULL; these tests (and ggml_init with a
// huge pool in core_test.cpp) need the libc behaviour the library is written for.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char * __asan_default_options() {
    return "allocator_may_return_null=1";
}
#elif defined(__SANITIZE_THREAD__)
extern "C" const char * __tsan_default_options() {
    return "allocator_may_return_null=1";
}
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
extern "C" const char * __asan_default_options() {
    return "allocator_may_return_null=1";
}
#elif __has_feature(thread_sanitizer)
extern "C" const char * __tsan_default_options() {
    return "allocator_may_return_null=1";
}
#endif
#endif

namespace switchyard::bad_input {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// ---- in the child ----

// A log sink that does not allocate (the heap may be exhausted when the library logs).
struct StaticLog {
    static constexpr size_t kSize = 16384;
    char                    text[kSize];
    std::atomic<size_t>     used{0};
    std::atomic<int>        errors{0};

    static void callback(ggml_log_level level, const char * msg, void * user_data) {
        auto *       self = static_cast<StaticLog *>(user_data);
        const size_t n    = std::strlen(msg);
        const size_t at   = self->used.fetch_add(n);
        if (at + n < kSize) {
            std::memcpy(self->text + at, msg, n);
            self->text[at + n] = '\0';
        }
        if (level == GGML_LOG_LEVEL_ERROR) {
            self->errors.fetch_add(1);
        }
    }

    bool has(const char * part) const { return std::strstr(text, part) != nullptr; }
    void clear() {
        used   = 0;
        errors = 0;
        text[0] = '\0';
    }
};

StaticLog g_log;

size_t address_space_in_use() {
    FILE * f     = std::fopen("/proc/self/statm", "r");
    long   pages = 0;
    if (f != nullptr) {
        if (std::fscanf(f, "%ld", &pages) != 1) {
            pages = 0;
        }
        std::fclose(f);
    }
    return static_cast<size_t>(pages) * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// Limits the address space (soft limit only, so it can be lifted again) to what is in use plus headroom.
bool limit_address_space(size_t headroom) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_AS, &lim) != 0) {
        return false;
    }
    lim.rlim_cur = address_space_in_use() + headroom;
    return ::setrlimit(RLIMIT_AS, &lim) == 0;
}

bool lift_address_space_limit() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_AS, &lim) != 0) {
        return false;
    }
    lim.rlim_cur = lim.rlim_max;
    return ::setrlimit(RLIMIT_AS, &lim) == 0;
}

// Takes every byte malloc can still hand out (blocks kept in a static array), so the next allocation fails;
// release_bytes then hands a given amount back. Exhausting the heap, rather than trusting the limit alone,
// keeps the tests independent of the free memory and cached thread stacks a process inherits from earlier
// tests.
class HeapHog {
public:
    void exhaust() {
        for (size_t size = 4 * kMiB; size >= 16 && n_ < kMax;) {
            void * p = std::malloc(size);
            if (p == nullptr) {
                size /= 2;
                continue;
            }
            blocks_[n_]  = p;
            sizes_[n_++] = size;
        }
    }
    // frees the largest blocks first until at least `bytes` are back
    void release_bytes(size_t bytes) {
        size_t freed = 0;
        for (size_t i = 0; i < n_ && freed < bytes; ++i) {
            if (blocks_[i] != nullptr) {
                std::free(blocks_[i]);
                blocks_[i] = nullptr;
                freed += sizes_[i];
            }
        }
    }
    void release() {
        for (size_t i = 0; i < n_; ++i) {
            std::free(blocks_[i]);
        }
        n_ = 0;
    }

private:
    static constexpr size_t kMax = 1 << 16;
    void *                  blocks_[kMax];
    size_t                  sizes_[kMax];
    size_t                  n_ = 0;
};

HeapHog g_hog;

// f() with the address space limited and only `slack` bytes of heap left; everything is given back after.
template <class F>
auto with_memory_left(size_t slack, F && f) {
    limit_address_space(32 * kMiB);
    g_hog.exhaust();
    g_hog.release_bytes(slack);
    auto result = f();
    g_hog.release();
    lift_address_space_limit();
    return result;
}

constexpr size_t kSlacks[] = {0, 256 * 1024, kMiB, 4 * kMiB};

// Whether an address-space limit stops allocations here: qemu-user accepts setrlimit(RLIMIT_AS) but ignores it
// (the limit would bind the emulator itself), so under emulation these cases cannot run.
bool address_space_limit_enforced() {
    static const bool enforced = run_in_child([] {
        limit_address_space(64 * kMiB);
        void * volatile p       = std::malloc(1024 * kMiB); // volatile: the malloc/free pair may not be dropped
        const bool      refused = p == nullptr;
        std::free(p);
        return std::string(refused ? "" : "1 GiB allocated above a 64 MiB limit");
    }).passed();
    return enforced;
}

// A chain of n nodes over F32 [len]; every node an output when keep_all (nothing can share memory).
struct HugeGraph {
    ContextPtr    ctx;
    ggml_cgraph * graph = nullptr;

    HugeGraph(int n, int64_t len, bool keep_all) {
        ggml_init_params params = {static_cast<size_t>(n + 16) * ggml_tensor_overhead() +
                                       ggml_graph_overhead_custom(static_cast<size_t>(n) + 16, false),
                                   nullptr, true};
        ctx.reset(ggml_init(params));
        ggml_tensor * x = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, len);
        ggml_set_input(x);
        graph = ggml_new_graph_custom(ctx.get(), static_cast<size_t>(n) + 16, false);
        for (int i = 0; i < n; ++i) {
            x = (i % 2 == 0) ? ggml_scale(ctx.get(), x, 0.5f) : ggml_add(ctx.get(), x, x);
            if (keep_all) {
                ggml_set_output(x);
            }
        }
        ggml_set_output(x);
        ggml_build_forward_expand(graph, x);
    }
};

// Runs body in a child with the static log installed and checks the child's end in the parent.
void expect_clean_failure(const std::function<std::string()> & body) {
    if (kSanitized) {
        GTEST_SKIP() << "RLIMIT_AS cannot be used under AddressSanitizer/ThreadSanitizer (shadow memory "
                        "reservations); tests/unit/alloc_failure covers these paths there";
    }
    if (!address_space_limit_enforced()) {
        GTEST_SKIP() << "RLIMIT_AS is not enforced in this process (qemu-user ignores it); "
                        "tests/unit/alloc_failure covers these paths there";
    }
    const ChildResult r = run_in_child([&] {
        g_log.clear();
        ggml_log_set(StaticLog::callback, &g_log);
        std::string report = body();
        ggml_log_set(nullptr, nullptr);
        return report;
    });
    EXPECT_TRUE(r.exited) << r.describe();
    EXPECT_FALSE(r.terminated_by_exception()) << r.describe();
    EXPECT_TRUE(r.passed()) << r.describe();
}

std::string log_text() {
    return std::string("\nlog:\n") + g_log.text;
}

// ---- cases ----

// Each case calls the API with less and less memory left: every failure must be clean and logged; with no
// memory left at all the call must fail; once memory is back the same objects work.

TEST(OutOfMemory, GallocrReserveOfAHugeGraph) {
    expect_clean_failure([] {
        std::string report;
        HugeGraph   g(200000, 256, false);
        GallocrPtr  galloc(ggml_gallocr_new(ggml_backend_cpu_buffer_type()));
        check(report, g.graph != nullptr && galloc != nullptr, "setup failed");
        if (!report.empty()) {
            return report;
        }
        for (size_t slack : kSlacks) {
            g_log.clear();
            const bool ok = with_memory_left(slack, [&] { return ggml_gallocr_reserve(galloc.get(), g.graph); });
            check(report, ok || g_log.has("ggml_gallocr_reserve"),
                  "slack " + std::to_string(slack) + ": failed without a message naming ggml_gallocr_reserve" +
                      log_text());
            check(report, !ok || slack > 0, "ggml_gallocr_reserve succeeded with no memory left");
        }
        check(report, ggml_gallocr_reserve(galloc.get(), g.graph), "reserve failed once memory was back");
        check(report, ggml_gallocr_alloc_graph(galloc.get(), g.graph), "alloc_graph failed after the retry");
        return report;
    });
}

TEST(OutOfMemory, GallocrReserveWhoseComputeBufferCannotBeHad) {
    expect_clean_failure([] {
        std::string report;
        // 2000 outputs of 1 MiB each: a 2 GiB compute buffer, under a limit of 1 GiB more than in use
        HugeGraph  g(2000, 256 * 1024, true);
        GallocrPtr galloc(ggml_gallocr_new(ggml_backend_cpu_buffer_type()));
        check(report, limit_address_space(1024 * kMiB), "setrlimit failed");
        const bool ok = ggml_gallocr_reserve(galloc.get(), g.graph);
        lift_address_space_limit();
        check(report, !ok, "ggml_gallocr_reserve succeeded under the limit");
        check(report, g_log.has("ggml_gallocr_reserve"), "no message naming ggml_gallocr_reserve" + log_text());
        return report;
    });
}

TEST(OutOfMemory, SchedReserveOfAHugeGraph) {
    expect_clean_failure([] {
        std::string    report;
        BackendPtr     cpu(ggml_backend_cpu_init());
        ggml_backend_t backends[1] = {cpu.get()};
        SchedPtr       sched(ggml_backend_sched_new(backends, nullptr, 1, 200016, false, true));
        HugeGraph      g(200000, 256, false);
        check(report, sched != nullptr, "setup failed");
        if (!report.empty()) {
            return report;
        }
        for (size_t slack : kSlacks) {
            g_log.clear();
            const bool ok = with_memory_left(slack, [&] { return ggml_backend_sched_reserve(sched.get(), g.graph); });
            check(report, ok || g_log.has("ggml_backend_sched_reserve"),
                  "slack " + std::to_string(slack) + ": failed without a message naming ggml_backend_sched_reserve" +
                      log_text());
            check(report, !ok || slack > 0, "ggml_backend_sched_reserve succeeded with no memory left");
        }
        check(report, ggml_backend_sched_reserve(sched.get(), g.graph), "reserve failed once memory was back");
        return report;
    });
}

ggml_backend_meta_split_state mirrored(const ggml_tensor *, void *) {
    ggml_backend_meta_split_state s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.n_segments = 1;
    s.nr[0]      = 1;
    return s;
}

TEST(OutOfMemory, MetaBackendInit) {
    expect_clean_failure([] {
        std::string        report;
        ggml_backend_dev_t cpu     = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        ggml_backend_dev_t devs[4] = {cpu, cpu, cpu, cpu};
        ggml_backend_dev_t meta    = ggml_backend_meta_device(devs, 4, mirrored, nullptr);
        check(report, meta != nullptr, "setup failed");
        if (!report.empty()) {
            return report;
        }
        // with a little memory the objects fit and the worker threads (8 MiB stacks) may not
        for (size_t slack : kSlacks) {
            g_log.clear();
            ggml_backend_t backend = with_memory_left(slack, [&] { return ggml_backend_dev_init(meta, nullptr); });
            check(report, backend != nullptr || g_log.has("ggml_backend_dev_init") || g_log.has("ggml_backend_meta"),
                  "slack " + std::to_string(slack) + ": failed without a message naming ggml_backend_dev_init / " +
                      "ggml_backend_meta" + log_text());
            check(report, backend == nullptr || slack > 0, "the meta backend was created with no memory left");
            ggml_backend_free(backend);
        }
        BackendPtr again(ggml_backend_dev_init(meta, nullptr));
        check(report, again != nullptr, "the meta backend cannot be created once memory was back");
        return report;
    });
}

TEST(OutOfMemory, InitWithAPoolLargerThanTheLimit) {
    expect_clean_failure([] {
        std::string report;
        check(report, limit_address_space(64 * kMiB), "setrlimit failed");
        ggml_init_params params = {512 * kMiB, nullptr, false};
        ggml_context *   ctx    = ggml_init(params);
        check(report, ctx == nullptr, "ggml_init succeeded under the limit");
        check(report, g_log.has("ggml_init"), "no message naming ggml_init" + log_text());
        ggml_free(ctx);
        lift_address_space_limit();
        ContextPtr ok(ggml_init(params));
        check(report, ok != nullptr, "ggml_init failed once the limit was lifted");
        return report;
    });
}

TEST(OutOfMemory, CpuBackendInit) {
    expect_clean_failure([] {
        std::string report;
        for (size_t slack : kSlacks) {
            g_log.clear();
            ggml_backend_t backend = with_memory_left(slack, [] { return ggml_backend_cpu_init(); });
            check(report, backend != nullptr || g_log.has("ggml_backend_cpu_init"),
                  "slack " + std::to_string(slack) + ": failed without a message naming ggml_backend_cpu_init" +
                      log_text());
            check(report, backend == nullptr || slack > 0, "ggml_backend_cpu_init succeeded with no memory left");
            ggml_backend_free(backend);
        }
        BackendPtr ok(ggml_backend_cpu_init());
        check(report, ok != nullptr, "ggml_backend_cpu_init failed once memory was back");
        return report;
    });
}

TEST(OutOfMemory, SchedNew) {
    expect_clean_failure([] {
        std::string    report;
        BackendPtr     cpu(ggml_backend_cpu_init());
        ggml_backend_t backends[1] = {cpu.get()};
        for (size_t slack : kSlacks) {
            g_log.clear();
            ggml_backend_sched_t sched = with_memory_left(
                slack, [&] { return ggml_backend_sched_new(backends, nullptr, 1, 1024, true, true); });
            check(report, sched != nullptr || g_log.has("ggml_backend_sched_new"),
                  "slack " + std::to_string(slack) + ": failed without a message naming ggml_backend_sched_new" +
                      log_text());
            check(report, sched == nullptr || slack > 0, "ggml_backend_sched_new succeeded with no memory left");
            ggml_backend_sched_free(sched);
        }
        SchedPtr ok(ggml_backend_sched_new(backends, nullptr, 1, 1024, true, true));
        check(report, ok != nullptr, "ggml_backend_sched_new failed once memory was back");
        return report;
    });
}

} // namespace
} // namespace switchyard::bad_input
