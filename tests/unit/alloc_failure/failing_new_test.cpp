// The counting allocator of this binary: every form of the global operator new/delete is replaced, and
// aligned_alloc (what the library's C allocations of host memory use: CPU buffers, context pools) is interposed.
// When armed (injection.h), allocations on the arming thread are numbered and the chosen one fails: operator
// new throws std::bad_alloc, the nothrow forms and aligned_alloc return NULL.
//
// Memory comes from malloc/free (and the real aligned_alloc for over-aligned new), so AddressSanitizer, which
// intercepts those, still sees every allocation and LeakSanitizer every leak.
//
// Not covered: the library's plain malloc calls (the context object in ggml_init, the CPU backend's work
// buffer). Interposing malloc itself would also catch every allocation of libc and the sanitizer runtime; there
// is no narrower hook in the library, so those two stay untested here.
//
// The tests in this file check the allocator itself.
#include "injection.h"


#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <thread>

namespace switchyard::alloc_failure {
namespace {

std::atomic<long> g_live{0};     // operator-new allocations not yet deleted
long              g_count   = 0; // allocations counted since arm (arming thread only)
long              g_c_count = 0; // of which aligned_alloc
long              g_fail_at = kNever;
bool              g_injected = false;

thread_local bool t_counting = false; // this thread armed the injector
thread_local bool t_paused   = false;

// True when this allocation must fail; counts it.
bool next_fails(bool c_allocation) {
    if (!t_counting || t_paused) {
        return false;
    }
    const long index = g_count++;
    g_c_count += c_allocation ? 1 : 0;
    if (index == g_fail_at) {
        g_injected = true;
        return true;
    }
    return false;
}

// Aligned memory that free() takes, from posix_memalign, which this binary does not interpose: libc's, or the
// sanitizer's interceptor of it. (The next aligned_alloc after our own, found with dlsym(RTLD_NEXT), is libc's
// when clang links the sanitizer's runtime into the executable, and its blocks are then unknown to the
// sanitizer's free.)
void * real_aligned_alloc(size_t alignment, size_t size) {
    void * p = nullptr;
    return posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size) == 0 ? p : nullptr;
}

void * raw_allocate(size_t size, size_t alignment) {
    if (size == 0) {
        size = 1;
    }
    if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
        return std::malloc(size);
    }
    const size_t padded = (size + alignment - 1) / alignment * alignment; // aligned_alloc needs a multiple
    return real_aligned_alloc(alignment, padded);
}

void * allocate(size_t size, size_t alignment, bool nothrow) {
    void * p = next_fails(false) ? nullptr : raw_allocate(size, alignment);
    if (p == nullptr) {
        if (nothrow) {
            return nullptr;
        }
        throw std::bad_alloc();
    }
    g_live.fetch_add(1, std::memory_order_relaxed);
    return p;
}

void release(void * p) noexcept {
    if (p != nullptr) {
        g_live.fetch_sub(1, std::memory_order_relaxed);
        std::free(p);
    }
}

} // namespace

void arm(long fail_at) {
    g_count    = 0;
    g_c_count  = 0;
    g_fail_at  = fail_at;
    g_injected = false;
    t_counting = true;
}

long disarm() {
    t_counting = false;
    return g_count;
}

bool injected() { return g_injected; }
long live_allocations() { return g_live.load(); }
long c_allocations() { return g_c_count; }

Pause::Pause() : previous_(t_paused) { t_paused = true; }
Pause::~Pause() { t_paused = previous_; }

} // namespace switchyard::alloc_failure

using switchyard::alloc_failure::allocate;
using switchyard::alloc_failure::release;

// ---- the replaced operators ----

void * operator new(std::size_t size) { return allocate(size, 0, false); }
void * operator new[](std::size_t size) { return allocate(size, 0, false); }
void * operator new(std::size_t size, const std::nothrow_t &) noexcept { return allocate(size, 0, true); }
void * operator new[](std::size_t size, const std::nothrow_t &) noexcept { return allocate(size, 0, true); }
void * operator new(std::size_t size, std::align_val_t al) { return allocate(size, static_cast<size_t>(al), false); }
void * operator new[](std::size_t size, std::align_val_t al) { return allocate(size, static_cast<size_t>(al), false); }
void * operator new(std::size_t size, std::align_val_t al, const std::nothrow_t &) noexcept {
    return allocate(size, static_cast<size_t>(al), true);
}
void * operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t &) noexcept {
    return allocate(size, static_cast<size_t>(al), true);
}

void operator delete(void * p) noexcept { release(p); }
void operator delete[](void * p) noexcept { release(p); }
void operator delete(void * p, std::size_t) noexcept { release(p); }
void operator delete[](void * p, std::size_t) noexcept { release(p); }
void operator delete(void * p, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void * p, const std::nothrow_t &) noexcept { release(p); }
void operator delete(void * p, std::align_val_t) noexcept { release(p); }
void operator delete[](void * p, std::align_val_t) noexcept { release(p); }
void operator delete(void * p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void * p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void * p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void * p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }

// ---- the interposed C allocation ----

extern "C" void * aligned_alloc(size_t alignment, size_t size) noexcept {
    if (switchyard::alloc_failure::next_fails(true)) {
        return nullptr;
    }
    return switchyard::alloc_failure::real_aligned_alloc(alignment, size);
}

// ---- the allocator's own tests ----

namespace switchyard::alloc_failure {
namespace {

struct alignas(64) OverAligned {
    char bytes[64];
};

// Keeps the compiler from removing a new/delete pair (allocation elision) in these tests.
template <class T>
T * keep(T * p) {
    asm volatile("" : : "g"(p) : "memory");
    return p;
}

// new T, or nullptr when it threw std::bad_alloc
template <class T>
T * try_new() {
    try {
        return keep(new T());
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

TEST(CountingAllocator, CountsAndFailsTheChosenAllocation) {
    arm(kNever);
    delete keep(new int(1));
    delete[] keep(new char[10]);
    const long counted = disarm();
    EXPECT_EQ(counted, 2);
    EXPECT_FALSE(injected());

    arm(1);
    int * first  = try_new<int>();
    int * second = try_new<int>();
    int * third  = try_new<int>();
    const long n = disarm();
    EXPECT_EQ(n, 3);
    EXPECT_TRUE(injected());
    EXPECT_NE(first, nullptr);
    EXPECT_EQ(second, nullptr) << "allocation 1 did not throw";
    EXPECT_NE(third, nullptr);
    delete first;
    delete third;
}

TEST(CountingAllocator, NothrowAndAlignedFormsFail) {
    arm(0);
    int * nothrow = keep(new (std::nothrow) int(1));
    disarm();
    EXPECT_EQ(nothrow, nullptr);
    arm(0);
    OverAligned * aligned = try_new<OverAligned>();
    disarm();
    EXPECT_EQ(aligned, nullptr);
    arm(0);
    OverAligned * aligned_nothrow = keep(new (std::nothrow) OverAligned);
    disarm();
    EXPECT_EQ(aligned_nothrow, nullptr);
    auto * ok = keep(new OverAligned);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ok) % 64, 0u);
    delete ok;
}

TEST(CountingAllocator, InterposesAlignedAlloc) {
    arm(kNever);
    void * p = keep(std::aligned_alloc(64, 256));
    const long counted = disarm();
    EXPECT_EQ(counted, 1);
    EXPECT_EQ(c_allocations(), 1);
    ASSERT_NE(p, nullptr);
    std::free(p);
    arm(0);
    void * failed = keep(std::aligned_alloc(64, 256));
    disarm();
    EXPECT_EQ(failed, nullptr);
    // the library's CPU buffers come through it
    arm(0);
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 4096);
    disarm();
    EXPECT_TRUE(injected());
    EXPECT_EQ(buffer, nullptr);
    ggml_backend_buffer_free(buffer);
}

TEST(CountingAllocator, TracksLiveAllocationsAndPauses) {
    const long before = live_allocations();
    auto *     p      = keep(new int(1));
    EXPECT_EQ(live_allocations(), before + 1);
    delete p;
    EXPECT_EQ(live_allocations(), before);
    arm(0);
    {
        Pause pause;
        delete keep(new int(1)); // neither counted nor failed
    }
    const long counted = disarm();
    EXPECT_EQ(counted, 0);
}

TEST(CountingAllocator, OtherThreadsAreNotCounted) {
    std::thread * t = nullptr;
    arm(0);
    {
        Pause pause;
        t = new std::thread([] { delete keep(new int(1)); });
    }
    t->join();
    const long counted = disarm();
    EXPECT_EQ(counted, 0);
    delete t;
}

} // namespace
} // namespace switchyard::alloc_failure
