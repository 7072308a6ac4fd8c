// No CPU kernel allocates while it runs: kernels run on the thread pool's workers, where a failed allocation
// (std::bad_alloc) could not be reported and would end the process. Their scratch comes from the plan's work
// memory or the stack. Every kernel of the dispatch table is wrapped so that the allocations made inside it are
// counted, and every case of the shared op list (tools/conformance/op_cases.h) runs on a 3-thread CPU backend.
//
// This binary (unit_cpu_alloc, on its own so that no other test runs under the replacement) replaces the global
// operator new / delete (plain, array and nothrow forms) with malloc / free plus a counter that is active only on a
// thread that is inside a wrapped kernel; everywhere else they behave as the library's. The over-aligned forms are
// left to the standard library and are not counted.
#include "unit/cpu/cpu_test_util.h"

#include "conformance/op_harness.h"

#include "base/owners.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

namespace {

thread_local bool t_in_kernel = false;
std::atomic<long> g_kernel_allocations{0};
std::atomic<long> g_kernel_calls{0};

void * allocate(std::size_t size) noexcept {
    if (t_in_kernel) {
        g_kernel_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return std::malloc(size == 0 ? 1 : size);
}

// Out of line, so that g++ does not inline operator new into a delete site and warn that free() meets new.
__attribute__((noinline)) void deallocate(void * p) noexcept { std::free(p); }

} // namespace

void * operator new(std::size_t size) {
    void * p = allocate(size);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    return p;
}

void * operator new[](std::size_t size) {
    void * p = allocate(size);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    return p;
}

void * operator new(std::size_t size, const std::nothrow_t &) noexcept { return allocate(size); }
void * operator new[](std::size_t size, const std::nothrow_t &) noexcept { return allocate(size); }
void   operator delete(void * p) noexcept { deallocate(p); }
void   operator delete[](void * p) noexcept { deallocate(p); }
void   operator delete(void * p, std::size_t) noexcept { deallocate(p); }
void   operator delete[](void * p, std::size_t) noexcept { deallocate(p); }
void   operator delete(void * p, const std::nothrow_t &) noexcept { deallocate(p); }
void   operator delete[](void * p, const std::nothrow_t &) noexcept { deallocate(p); }

namespace {

using namespace switchyard;
using namespace switchyard::testing;

// While it lives, every kernel of the dispatch table runs inside a wrapper that counts its calls and the
// allocations its thread makes meanwhile.
class CountingKernels {
public:
    CountingKernels() {
        for (int i = 0; i < GGML_OP_COUNT; ++i) {
            const auto      op   = static_cast<ggml_op>(i);
            cpu::KernelInfo info = cpu::kernel_for(op);
            real()[i]            = info.compute;
            if (info.compute != nullptr) {
                info.compute = &counting;
                previous_[i] = cpu::replace_kernel(op, info);
            }
        }
        reset();
    }
    ~CountingKernels() {
        for (int i = 0; i < GGML_OP_COUNT; ++i) {
            if (real()[i] != nullptr) {
                cpu::replace_kernel(static_cast<ggml_op>(i), previous_[i]);
            }
        }
    }
    CountingKernels(const CountingKernels &)             = delete;
    CountingKernels & operator=(const CountingKernels &) = delete;

    static void reset() {
        g_kernel_allocations = 0;
        g_kernel_calls       = 0;
    }

private:
    static std::array<cpu::KernelFn, GGML_OP_COUNT> & real() {
        static std::array<cpu::KernelFn, GGML_OP_COUNT> fns{};
        return fns;
    }

    static void counting(const cpu::ComputeParams & p, ggml_tensor * dst) {
        g_kernel_calls.fetch_add(1, std::memory_order_relaxed);
        t_in_kernel = true;
        real()[dst->op](p, dst);
        t_in_kernel = false;
    }

    std::array<cpu::KernelInfo, GGML_OP_COUNT> previous_{};
};

TEST(KernelAllocations, NoKernelAllocatesInAnyOpCase) {
    BackendPtr cpu(ggml_backend_cpu_init());
    ASSERT_NE(cpu, nullptr);
    ggml_backend_cpu_set_n_threads(cpu.get(), 3);
    CountingKernels counting;
    for (const OpCase & c : op_cases()) {
        CountingKernels::reset();
        const CaseResult r = run_case(cpu.get(), c);
        EXPECT_EQ(r.status, CaseStatus::Passed) << c.name << ": " << r.message;
        EXPECT_GT(g_kernel_calls.load(), 0) << c.name << ": no kernel ran";
        EXPECT_EQ(g_kernel_allocations.load(), 0) << c.name << ": a kernel allocated while it ran";
    }
}

// The counter sees an allocation made inside a kernel (a swapped-in ADD kernel that calls operator new: a call,
// not a new-expression, so the compiler cannot leave it out).
void allocating_add(const cpu::ComputeParams & p, ggml_tensor * dst) {
    void *        scratch = ::operator new(static_cast<size_t>(dst->ne[0]) * sizeof(float));
    const int64_t rows    = ggml_nrows(dst);
    for (int64_t r = p.ith; r < rows; r += p.nth) {
        elementwise_rows(dst, r, r + 1, [](float x, float y) { return x + y; });
    }
    ::operator delete(scratch);
}

TEST(KernelAllocations, TheCounterSeesAnAllocatingKernel) {
    KernelSwap      add(GGML_OP_ADD, cpu::KernelInfo{allocating_add, nullptr, nullptr, same_shape_f32});
    CountingKernels counting;
    HostContext     ctx;
    ggml_tensor *   a = new_f32(ctx.get(), 8, 6, "a");
    ggml_tensor *   b = new_f32(ctx.get(), 8, 6, "b");
    fill(a, ramp(48, 1.0f));
    fill(b, ramp(48, 2.0f));
    ggml_tensor * out = ggml_add(ctx.get(), a, b);
    ggml_cgraph * gf  = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(gf, out);
    ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), gf, 3), GGML_STATUS_SUCCESS);
    EXPECT_EQ(g_kernel_calls.load(), 3);
    EXPECT_GE(g_kernel_allocations.load(), 3);
    EXPECT_EQ(values(out)[5], ramp(48, 1.0f)[5] + ramp(48, 2.0f)[5]);
}

} // namespace
