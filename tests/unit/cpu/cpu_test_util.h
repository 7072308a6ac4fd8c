// Helpers for the CPU runtime tests: log capture, a context whose tensors have host memory, and test kernels
// swapped into the dispatch table, so the executor is tested independently of the real kernel families.
//
// The test kernels:
//   phased_add (on GGML_OP_ADD): dst = src0 + src1 (F32, equal shapes, any strides) on all threads. Each
//     thread records in its scratch slot how many elements it did; after a barrier, thread 0 checks that the
//     slots add up to the element count. Catches broken barriers, scratch and work splits.
//   serial_mul (on GGML_OP_MUL): dst = src0 * src1 on one thread (n_tasks = 1), no scratch.
#pragma once

#include "cpu/kernel.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace switchyard::testing {

class CpuLogCapture {
public:
    CpuLogCapture() { ggml_log_set(&CpuLogCapture::callback, this); }
    ~CpuLogCapture() { ggml_log_set(nullptr, nullptr); }
    CpuLogCapture(const CpuLogCapture &)             = delete;
    CpuLogCapture & operator=(const CpuLogCapture &) = delete;

    bool contains(const std::string & needle) const {
        std::lock_guard lock(mutex_);
        return text_.find(needle) != std::string::npos;
    }
    std::string text() const {
        std::lock_guard lock(mutex_);
        return text_;
    }

private:
    static void callback(ggml_log_level, const char * text, void * user_data) {
        auto *          self = static_cast<CpuLogCapture *>(user_data);
        std::lock_guard lock(self->mutex_);
        self->text_ += text;
    }
    mutable std::mutex mutex_;
    std::string        text_;
};

// Installs a kernel for one op while it lives.
class KernelSwap {
public:
    KernelSwap(ggml_op op, const cpu::KernelInfo & info) : op_(op), previous_(cpu::replace_kernel(op, info)) {}
    ~KernelSwap() { cpu::replace_kernel(op_, previous_); }
    KernelSwap(const KernelSwap &)             = delete;
    KernelSwap & operator=(const KernelSwap &) = delete;

private:
    ggml_op         op_;
    cpu::KernelInfo previous_;
};

// What the test kernels saw; reset() before each computation.
struct KernelStats {
    std::atomic<int>  phased_add_nodes{0}; // nodes computed by phased_add (counted once per node)
    std::atomic<int>  serial_mul_nodes{0};
    std::atomic<int>  max_nth{0};
    std::atomic<bool> scratch_ok{true};

    void reset() {
        phased_add_nodes = 0;
        serial_mul_nodes = 0;
        max_nth          = 0;
        scratch_ok       = true;
    }
};

inline KernelStats & kernel_stats() {
    static KernelStats stats;
    return stats;
}

inline void record_nth(int nth) {
    int seen = kernel_stats().max_nth.load();
    while (nth > seen && !kernel_stats().max_nth.compare_exchange_weak(seen, nth)) {
    }
}

inline float & f32_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *reinterpret_cast<float *>(static_cast<char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] +
                                      i2 * t->nb[2] + i3 * t->nb[3]);
}

// dst = op(src0, src1) over rows [r0, r1) (rows counted over dims 1..3); returns the elements done
template <typename Op> int64_t elementwise_rows(ggml_tensor * dst, int64_t r0, int64_t r1, Op op) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t i1 = r % dst->ne[1], i2 = (r / dst->ne[1]) % dst->ne[2], i3 = r / (dst->ne[1] * dst->ne[2]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            f32_at(dst, i0, i1, i2, i3) = op(f32_at(a, i0, i1, i2, i3), f32_at(b, i0, i1, i2, i3));
        }
    }
    return (r1 - r0) * dst->ne[0];
}

inline bool same_shape_f32(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    return a && b && dst->type == GGML_TYPE_F32 && a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 &&
           ggml_are_same_shape(a, dst) && ggml_are_same_shape(b, dst);
}

inline void phased_add(const cpu::ComputeParams & p, ggml_tensor * dst) {
    record_nth(p.nth);
    const int64_t rows  = ggml_nrows(dst);
    const int64_t per   = (rows + p.nth - 1) / p.nth;
    const int64_t r0    = std::min(rows, per * p.ith);
    const int64_t r1    = std::min(rows, r0 + per);
    const int64_t done  = elementwise_rows(dst, r0, r1, [](float x, float y) { return x + y; });
    auto *        slots = static_cast<char *>(p.wdata);
    *reinterpret_cast<int64_t *>(slots + static_cast<size_t>(p.ith) * 64) = done;
    cpu::barrier(p);
    if (p.ith == 0) {
        int64_t total = 0;
        for (int t = 0; t < p.nth; ++t) {
            total += *reinterpret_cast<const int64_t *>(slots + static_cast<size_t>(t) * 64);
        }
        if (total != ggml_nelements(dst) || p.wsize < static_cast<size_t>(p.nth) * 64) {
            kernel_stats().scratch_ok = false;
        }
        kernel_stats().phased_add_nodes++;
    }
}

inline size_t phased_add_work(const ggml_tensor *, int n_tasks) { return static_cast<size_t>(n_tasks) * 64; }

inline cpu::KernelInfo phased_add_kernel() { return {phased_add, nullptr, phased_add_work, same_shape_f32}; }

inline void serial_mul(const cpu::ComputeParams & p, ggml_tensor * dst) {
    record_nth(p.nth);
    if (p.ith == 0) {
        elementwise_rows(dst, 0, ggml_nrows(dst), [](float x, float y) { return x * y; });
        kernel_stats().serial_mul_nodes++;
    }
}

inline int one_task(const ggml_tensor *, int) { return 1; }

inline cpu::KernelInfo serial_mul_kernel() { return {serial_mul, one_task, nullptr, same_shape_f32}; }

// Installs both test kernels while it lives, and resets the stats.
class TestKernels {
public:
    TestKernels() : add_(GGML_OP_ADD, phased_add_kernel()), mul_(GGML_OP_MUL, serial_mul_kernel()) {
        kernel_stats().reset();
    }

private:
    KernelSwap add_;
    KernelSwap mul_;
};

// A context whose tensors get memory in the context itself.
class HostContext {
public:
    explicit HostContext(size_t mem_size = 16 * 1024 * 1024) {
        ggml_init_params params = {mem_size, nullptr, false};
        ctx_                    = ggml_init(params);
    }
    ~HostContext() { ggml_free(ctx_); }
    HostContext(const HostContext &)             = delete;
    HostContext & operator=(const HostContext &) = delete;

    ggml_context * get() const { return ctx_; }

private:
    ggml_context * ctx_ = nullptr;
};

inline ggml_tensor * new_f32(ggml_context * ctx, int64_t ne0, int64_t ne1, const char * name) {
    ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_set_name(t, name);
    return t;
}

inline void fill(ggml_tensor * t, const std::vector<float> & values) {
    auto * data = static_cast<float *>(t->data);
    for (size_t i = 0; i < values.size(); ++i) {
        data[i] = values[i];
    }
}

inline void fill_all(ggml_tensor * t, float value) {
    auto * data = static_cast<float *>(t->data);
    for (int64_t i = 0; i < ggml_nelements(t); ++i) {
        data[i] = value;
    }
}

inline std::vector<float> values(const ggml_tensor * t) {
    const auto * data = static_cast<const float *>(t->data);
    return std::vector<float>(data, data + ggml_nelements(t));
}

// 0.5, 1.5, 2.5, ... scaled by `scale`
inline std::vector<float> ramp(size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = (static_cast<float>(i) + 0.5f) * scale;
    }
    return v;
}

} // namespace switchyard::testing
