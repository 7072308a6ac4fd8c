// Shared setup for the meta device tests: split states by tensor name, the simple devices (the CPU device n
// times, or n GPU-like test devices), and running a model on a backend -- directly with the graph allocator, or
// under the scheduler -- to compare with the plain CPU backend.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include "test_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace switchyard::testing {

using SplitState = ggml_backend_meta_split_state;

inline SplitState blank_state(ggml_backend_meta_split_axis axis) {
    SplitState s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = axis;
    s.n_segments = 1;
    s.nr[0]      = 1;
    return s;
}

inline SplitState state_mirrored() { return blank_state(GGML_BACKEND_SPLIT_AXIS_MIRRORED); }
inline SplitState state_partial() { return blank_state(GGML_BACKEND_SPLIT_AXIS_PARTIAL); }

// One segment per inner vector: segs[s][d] is device d's share of segment s.
inline SplitState state_segments(int axis, const std::vector<std::vector<int64_t>> & segs) {
    SplitState s = blank_state(static_cast<ggml_backend_meta_split_axis>(axis));
    s.n_segments = static_cast<uint32_t>(segs.size());
    for (size_t i = 0; i < segs.size(); ++i) {
        s.nr[i] = 1;
        for (size_t d = 0; d < segs[i].size(); ++d) {
            s.ne[i * segs[i].size() + d] = segs[i][d]; // segments outer, devices inner
        }
    }
    return s;
}

inline SplitState state_split(int axis, const std::vector<int64_t> & shares) { return state_segments(axis, {shares}); }

// The user's split callback: states by tensor name, MIRRORED for everything else.
struct SplitTable {
    std::map<std::string, SplitState> states;

    static SplitState callback(const ggml_tensor * t, void * ud) {
        const auto * table = static_cast<const SplitTable *>(ud);
        const auto   it    = table->states.find(t->name);
        return it != table->states.end() ? it->second : state_mirrored();
    }
};

enum class DeviceKind { Cpu, Test };

inline const char * kind_name(DeviceKind kind) { return kind == DeviceKind::Cpu ? "cpu" : "test"; }

// n simple devices: the CPU device n times, or n test devices (made once per process and kept, so meta
// devices made from them stay valid).
inline std::vector<ggml_backend_dev_t> simple_devices(DeviceKind kind, int n) {
    struct KeptDevices : std::vector<ggml_backend_dev_t> {
        ~KeptDevices() {
            for (ggml_backend_dev_t d : *this) {
                test_device_release(d);
            }
        }
    };
    static KeptDevices              test_devs;
    std::vector<ggml_backend_dev_t> devs;
    for (int d = 0; d < n; ++d) {
        if (kind == DeviceKind::Cpu) {
            devs.push_back(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
            continue;
        }
        while (static_cast<int>(test_devs.size()) <= d) {
            static std::vector<std::string> names;
            names.push_back("TEST" + std::to_string(test_devs.size()));
            TestDeviceConfig config;
            config.name = names.back().c_str();
            test_devs.push_back(test_device_create(config));
        }
        devs.push_back(test_devs[static_cast<size_t>(d)]);
    }
    return devs;
}

inline ggml_backend_dev_t make_meta(DeviceKind kind, int n, SplitTable & table) {
    std::vector<ggml_backend_dev_t> devs = simple_devices(kind, n);
    return ggml_backend_meta_device(devs.data(), devs.size(), SplitTable::callback, &table);
}

struct WeightSpec {
    std::string          name;
    ggml_type            type;
    std::vector<int64_t> ne;
};

// A model: weights (filled with deterministic values), named inputs (raw bytes) and the graph builder.
struct ModelSpec {
    std::vector<WeightSpec>                     weights;
    std::map<std::string, std::vector<uint8_t>> inputs;
    std::function<ggml_tensor *(ggml_context *, std::map<std::string, ggml_tensor *> &)> build;
    uint32_t                                    seed = 1;
};

inline std::vector<float> random_values(size_t count, uint32_t seed, float lo, float hi) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float>                    v(count);
    for (float & f : v) {
        f = u(rng);
    }
    return v;
}

inline std::vector<uint8_t> as_bytes(const std::vector<float> & v) {
    std::vector<uint8_t> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

inline std::vector<float> weight_values(const WeightSpec & w, uint32_t seed) {
    size_t count = 1;
    for (int64_t n : w.ne) {
        count *= static_cast<size_t>(n);
    }
    const uint32_t h = static_cast<uint32_t>(std::hash<std::string>{}(w.name)) ^ seed;
    if (w.name.find("norm") != std::string::npos) {
        return random_values(count, h, 0.8f, 1.2f);
    }
    return random_values(count, h, -0.3f, 0.3f);
}

struct RunOptions {
    bool          sched = false; // [backend, CPU] under the scheduler instead of the graph allocator
    std::string * plan  = nullptr; // receives the scheduler's plan JSON
    ggml_status * status = nullptr; // receives the compute status (the test does not fail on errors then)
};

// The model's weights in buffers of weights_buft (usage WEIGHTS).
struct PlacedModel {
    ggml_context *                        wctx = nullptr;
    ggml_context *                        gctx = nullptr;
    ggml_backend_buffer_t                 buffer = nullptr;
    std::map<std::string, ggml_tensor *>  tensors;
    ggml_cgraph *                         graph = nullptr;
    ggml_tensor *                         out   = nullptr;

    PlacedModel(const ModelSpec & spec, ggml_backend_buffer_type_t weights_buft) {
        ggml_init_params wp{(spec.weights.size() + 1) * ggml_tensor_overhead(), nullptr, true};
        wctx = ggml_init(wp);
        for (const WeightSpec & w : spec.weights) {
            ggml_tensor * t = ggml_new_tensor(wctx, w.type, static_cast<int>(w.ne.size()), w.ne.data());
            ggml_set_name(t, w.name.c_str());
            tensors[w.name] = t;
        }
        buffer = spec.weights.empty() ? nullptr : ggml_backend_alloc_ctx_tensors_from_buft(wctx, weights_buft);
        EXPECT_TRUE(buffer != nullptr || spec.weights.empty());
        if (buffer != nullptr) {
            ggml_backend_buffer_set_usage(buffer, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            for (const WeightSpec & w : spec.weights) {
                set_values(tensors[w.name], weight_values(w, spec.seed));
            }
        }
        ggml_init_params gp{512 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        gctx  = ggml_init(gp);
        out   = spec.build(gctx, tensors);
        graph = ggml_new_graph(gctx);
        ggml_set_output(out);
        ggml_build_forward_expand(graph, out);
    }

    static void set_values(ggml_tensor * t, const std::vector<float> & v) {
        if (t->type == GGML_TYPE_F32) {
            ggml_backend_tensor_set(t, v.data(), 0, v.size() * sizeof(float));
            return;
        }
        std::vector<ggml_fp16_t> h(v.size());
        ggml_fp32_to_fp16_row(v.data(), h.data(), static_cast<int64_t>(v.size()));
        ggml_backend_tensor_set(t, h.data(), 0, h.size() * sizeof(ggml_fp16_t));
    }

    void set_inputs(const ModelSpec & spec) const {
        for (const auto & [name, bytes] : spec.inputs) {
            ggml_tensor * t = ggml_get_tensor(gctx, name.c_str());
            ASSERT_NE(t, nullptr) << name;
            ASSERT_EQ(ggml_nbytes(t), bytes.size()) << name;
            ggml_backend_tensor_set(t, bytes.data(), 0, bytes.size());
        }
    }

    std::vector<float> output() const {
        std::vector<float> v(static_cast<size_t>(ggml_nelements(out)));
        ggml_backend_tensor_get(out, v.data(), 0, v.size() * sizeof(float));
        return v;
    }

    ~PlacedModel() {
        ggml_backend_buffer_free(buffer);
        ggml_free(gctx);
        ggml_free(wctx);
    }
    PlacedModel(const PlacedModel &)             = delete;
    PlacedModel & operator=(const PlacedModel &) = delete;
};

inline std::string sched_plan(ggml_backend_sched_t sched) {
    std::string s(ggml_backend_sched_plan_json(sched, nullptr, 0) + 1, '\0');
    ggml_backend_sched_plan_json(sched, s.data(), s.size());
    s.pop_back();
    return s;
}

inline std::vector<float> run_model(const ModelSpec & spec, ggml_backend_t backend, const RunOptions & opt = {}) {
    PlacedModel model(spec, ggml_backend_get_default_buffer_type(backend));
    ggml_status status = GGML_STATUS_FAILED;
    if (opt.sched) {
        ggml_backend_t       cpu         = ggml_backend_cpu_init();
        ggml_backend_t       backends[2] = {backend, cpu};
        ggml_backend_sched_t sched = ggml_backend_sched_new(backends, nullptr, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
        EXPECT_TRUE(ggml_backend_sched_alloc_graph(sched, model.graph));
        model.set_inputs(spec);
        status = ggml_backend_sched_graph_compute(sched, model.graph);
        if (opt.plan != nullptr) {
            *opt.plan = sched_plan(sched);
        }
        std::vector<float> out = model.output();
        ggml_backend_sched_free(sched);
        ggml_backend_free(cpu);
        if (opt.status != nullptr) {
            *opt.status = status;
        } else {
            EXPECT_EQ(status, GGML_STATUS_SUCCESS);
        }
        return out;
    }
    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
    EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc, model.graph));
    model.set_inputs(spec);
    status                 = ggml_backend_graph_compute(backend, model.graph);
    std::vector<float> out = model.output();
    ggml_gallocr_free(galloc);
    if (opt.status != nullptr) {
        *opt.status = status;
    } else {
        EXPECT_EQ(status, GGML_STATUS_SUCCESS);
    }
    return out;
}

// The model on the plain CPU backend: the reference.
inline std::vector<float> run_reference(const ModelSpec & spec) {
    ggml_backend_t     cpu = ggml_backend_cpu_init();
    std::vector<float> out = run_model(spec, cpu);
    ggml_backend_free(cpu);
    return out;
}

inline void expect_close(const std::vector<float> & got, const std::vector<float> & want, float tol = 2e-4f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "at element " << i;
    }
}

} // namespace switchyard::testing
