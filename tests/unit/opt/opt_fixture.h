// Shared by the ggml-opt tests: a CPU scheduler (2 threads), a two-blob classification data set, and a small
// MLP (2 inputs -> 16 hidden, ReLU -> 2 logits) whose parameters live in a host buffer the test can read, with a
// scalar forward pass on the host as the oracle for its predictions.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-opt.h"
#include "ggml.h"

#include "base/owners.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace switchyard::opt_test {

struct CpuSched {
    BackendPtr backend{ggml_backend_cpu_init()};
    SchedPtr   sched;

    CpuSched() {
        ggml_backend_cpu_set_n_threads(backend.get(), 2);
        ggml_backend_t b = backend.get();
        sched.reset(ggml_backend_sched_new(&b, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
    }
    ggml_backend_sched_t get() const { return sched.get(); }
};

// n points: class 0 around (-2, -2), class 1 around (2, 2), unit variance; labels one-hot. Alternating classes.
inline ggml_opt_dataset_t make_blobs(int64_t n, unsigned seed) {
    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 2, 2, n, 1);
    auto *             x  = static_cast<float *>(ggml_opt_dataset_data(ds)->data);
    auto *             y  = static_cast<float *>(ggml_opt_dataset_labels(ds)->data);
    std::mt19937       rng(seed);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
        const int   cls    = static_cast<int>(i % 2);
        const float center = cls ? 2.0f : -2.0f;
        x[2 * i + 0]       = center + noise(rng);
        x[2 * i + 1]       = center + noise(rng);
        y[2 * i + 0]       = cls ? 0.0f : 1.0f;
        y[2 * i + 1]       = cls ? 1.0f : 0.0f;
    }
    return ds;
}

constexpr int kHidden = 16;

// The model's parameters and input in one host buffer; ctx_compute holds everything else.
struct Mlp {
    ContextPtr    ctx_static;
    BufferPtr     buf;
    ContextPtr    ctx_compute;
    ggml_tensor * w1 = nullptr; // [2, 16]
    ggml_tensor * b1 = nullptr; // [16]
    ggml_tensor * w2 = nullptr; // [16, 2]
    ggml_tensor * b2 = nullptr; // [2]
    ggml_tensor * inputs  = nullptr;
    ggml_tensor * outputs = nullptr;

    explicit Mlp(int64_t batch, unsigned seed = 7) {
        ctx_static.reset(ggml_init({16 * ggml_tensor_overhead(), nullptr, true}));
        w1     = ggml_new_tensor_2d(ctx_static.get(), GGML_TYPE_F32, 2, kHidden);
        b1     = ggml_new_tensor_1d(ctx_static.get(), GGML_TYPE_F32, kHidden);
        w2     = ggml_new_tensor_2d(ctx_static.get(), GGML_TYPE_F32, kHidden, 2);
        b2     = ggml_new_tensor_1d(ctx_static.get(), GGML_TYPE_F32, 2);
        inputs = ggml_new_tensor_2d(ctx_static.get(), GGML_TYPE_F32, 2, batch);
        ggml_set_name(w1, "w1");
        ggml_set_name(b1, "b1");
        ggml_set_name(w2, "w2");
        ggml_set_name(b2, "b2");
        ggml_set_name(inputs, "inputs");
        for (ggml_tensor * p : {w1, b1, w2, b2}) {
            ggml_set_param(p);
        }
        buf.reset(ggml_backend_alloc_ctx_tensors_from_buft(ctx_static.get(), ggml_backend_cpu_buffer_type()));
        std::mt19937                          rng(seed);
        std::uniform_real_distribution<float> u(-0.5f, 0.5f);
        for (ggml_tensor * p : {w1, b1, w2, b2}) {
            auto * d = static_cast<float *>(p->data);
            for (int64_t i = 0; i < ggml_nelements(p); ++i) {
                d[i] = u(rng);
            }
        }
        ctx_compute.reset(ggml_init({4096 * ggml_tensor_overhead() +
                                         4 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
                                     nullptr, true}));
        outputs = forward(ctx_compute.get(), inputs);
    }

    ggml_tensor * forward(ggml_context * ctx, ggml_tensor * x) const {
        ggml_tensor * h = ggml_relu(ctx, ggml_add(ctx, ggml_mul_mat(ctx, w1, x), b1));
        return ggml_add(ctx, ggml_mul_mat(ctx, w2, h), b2);
    }

    // The predicted class of point (x0, x1), computed on the host from the current parameters.
    int predict(float x0, float x1) const {
        const auto * pw1 = static_cast<const float *>(w1->data);
        const auto * pb1 = static_cast<const float *>(b1->data);
        const auto * pw2 = static_cast<const float *>(w2->data);
        const auto * pb2 = static_cast<const float *>(b2->data);
        float        logit[2] = {pb2[0], pb2[1]};
        for (int j = 0; j < kHidden; ++j) {
            const float h = std::max(0.0f, pw1[2 * j] * x0 + pw1[2 * j + 1] * x1 + pb1[j]);
            logit[0] += pw2[j] * h;
            logit[1] += pw2[kHidden + j] * h;
        }
        return logit[1] > logit[0] ? 1 : 0;
    }

    // Host accuracy over datapoints [begin, end) of the data set in its current order.
    double accuracy(ggml_opt_dataset_t ds, int64_t begin, int64_t end) const {
        int64_t correct = 0;
        for (int64_t i = begin; i < end; ++i) {
            float x[2], y[2];
            ggml_opt_dataset_get_batch_host(ds, x, sizeof(x), y, i);
            correct += predict(x[0], x[1]) == (y[1] > y[0] ? 1 : 0);
        }
        return static_cast<double>(correct) / static_cast<double>(end - begin);
    }
};

} // namespace switchyard::opt_test
