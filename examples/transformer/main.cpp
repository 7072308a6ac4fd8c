// Switchyard demo: a small LLaMA-style decoder (token embedding, RMSNorm, rotary attention with a causal mask,
// SwiGLU MLP, residuals, output projection) with deterministic synthetic weights, run through the backend
// scheduler on the devices the registry offers (the best one holds the weights, the CPU is last). Prints the
// devices, the plan summary (splits, copies, buffers), the time per step and a checksum of the logits.
//
// Usage: switchyard-demo [--layers N] [--tokens N] [--steps N] [--threads N] [--test-device]
//   --test-device  add the GPU-like test device (non-host memory, asynchronous) and put the weights on it

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include "test_device.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Config {
    int n_vocab  = 512;
    int n_embd   = 256;
    int n_head   = 8;
    int n_ff     = 688;
    int n_layer  = 4;
    int n_tokens = 32;
    int n_steps  = 5;
    int n_thread = 2;
    bool test_device = false;
};

struct Layer {
    ggml_tensor *attn_norm, *wq, *wk, *wv, *wo, *ffn_norm, *w_gate, *w_up, *w_down;
};

struct Model {
    Config             cfg;
    ggml_context *     ctx = nullptr;
    ggml_tensor *      tok_embd = nullptr;
    ggml_tensor *      out_norm = nullptr;
    ggml_tensor *      output = nullptr;
    std::vector<Layer> layers;
};

// Deterministic pseudo-random weights (xorshift), scaled like a trained network's (1/sqrt(fan_in)).
void fill_weights(ggml_tensor * t, uint32_t seed, float scale) {
    std::vector<float> v(static_cast<size_t>(ggml_nelements(t)));
    uint32_t           s = seed * 2654435761u + 1;
    for (float & x : v) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        x = (static_cast<float>(s % 20001) / 10000.0f - 1.0f) * scale;
    }
    ggml_backend_tensor_set(t, v.data(), 0, v.size() * sizeof(float));
}

void fill_ones(ggml_tensor * t) {
    std::vector<float> v(static_cast<size_t>(ggml_nelements(t)), 1.0f);
    ggml_backend_tensor_set(t, v.data(), 0, v.size() * sizeof(float));
}

bool create_model(Model & m, ggml_backend_t backend, ggml_backend_buffer_t * weights_buf) {
    const Config & c      = m.cfg;
    const size_t   n_tens = 3 + 9 * static_cast<size_t>(c.n_layer);
    ggml_init_params params{n_tens * ggml_tensor_overhead(), nullptr, true};
    m.ctx = ggml_init(params);
    if (!m.ctx) {
        return false;
    }
    auto mat = [&](int rows_in, int rows_out, const char * name, int il) {
        ggml_tensor * t = ggml_new_tensor_2d(m.ctx, GGML_TYPE_F32, rows_in, rows_out);
        ggml_format_name(t, "blk.%d.%s", il, name);
        return t;
    };
    auto vec = [&](int n, const char * name, int il) {
        ggml_tensor * t = ggml_new_tensor_1d(m.ctx, GGML_TYPE_F32, n);
        ggml_format_name(t, "blk.%d.%s", il, name);
        return t;
    };
    m.tok_embd = ggml_new_tensor_2d(m.ctx, GGML_TYPE_F32, c.n_embd, c.n_vocab);
    m.out_norm = ggml_new_tensor_1d(m.ctx, GGML_TYPE_F32, c.n_embd);
    m.output   = ggml_new_tensor_2d(m.ctx, GGML_TYPE_F32, c.n_embd, c.n_vocab);
    for (int il = 0; il < c.n_layer; ++il) {
        m.layers.push_back(Layer{vec(c.n_embd, "attn_norm", il), mat(c.n_embd, c.n_embd, "wq", il),
                                 mat(c.n_embd, c.n_embd, "wk", il), mat(c.n_embd, c.n_embd, "wv", il),
                                 mat(c.n_embd, c.n_embd, "wo", il), vec(c.n_embd, "ffn_norm", il),
                                 mat(c.n_embd, c.n_ff, "w_gate", il), mat(c.n_embd, c.n_ff, "w_up", il),
                                 mat(c.n_ff, c.n_embd, "w_down", il)});
    }
    *weights_buf = ggml_backend_alloc_ctx_tensors(m.ctx, backend);
    if (!*weights_buf) {
        return false;
    }
    uint32_t seed = 1;
    fill_weights(m.tok_embd, seed++, 1.0f);
    fill_ones(m.out_norm);
    fill_weights(m.output, seed++, 1.0f / std::sqrt(static_cast<float>(c.n_embd)));
    for (Layer & l : m.layers) {
        fill_ones(l.attn_norm);
        fill_ones(l.ffn_norm);
        for (ggml_tensor * w : {l.wq, l.wk, l.wv, l.wo, l.w_gate, l.w_up}) {
            fill_weights(w, seed++, 1.0f / std::sqrt(static_cast<float>(c.n_embd)));
        }
        fill_weights(l.w_down, seed++, 1.0f / std::sqrt(static_cast<float>(c.n_ff)));
    }
    return true;
}

// Builds the forward graph for n_tokens tokens; `tokens` and `pos` are input tensors (I32).
ggml_cgraph * build_graph(const Model & m, ggml_context * ctx, ggml_tensor ** tokens, ggml_tensor ** pos) {
    const Config & c      = m.cfg;
    const int      d_head = c.n_embd / c.n_head;
    *tokens = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, c.n_tokens);
    *pos    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, c.n_tokens);
    ggml_set_name(*tokens, "tokens");
    ggml_set_name(*pos, "pos");
    ggml_set_input(*tokens);
    ggml_set_input(*pos);

    ggml_tensor * x = ggml_get_rows(ctx, m.tok_embd, *tokens);
    for (const Layer & l : m.layers) {
        ggml_tensor * h = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l.attn_norm);
        ggml_tensor * q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l.wq, h), d_head, c.n_head, c.n_tokens);
        ggml_tensor * k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l.wk, h), d_head, c.n_head, c.n_tokens);
        ggml_tensor * v = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l.wv, h), d_head, c.n_head, c.n_tokens);
        q = ggml_rope_ext(ctx, q, *pos, nullptr, d_head, GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        k = ggml_rope_ext(ctx, k, *pos, nullptr, d_head, GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        q = ggml_permute(ctx, q, 0, 2, 1, 3);                       // [d_head, n_tokens, n_head]
        k = ggml_permute(ctx, k, 0, 2, 1, 3);                       // [d_head, n_tokens, n_head]
        ggml_tensor * vt  = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3)); // [n_tokens, d_head, n_head]
        ggml_tensor * kq  = ggml_mul_mat(ctx, k, q);                // [n_kv, n_tokens, n_head]
        kq                = ggml_diag_mask_inf(ctx, kq, 0);
        kq                = ggml_soft_max_ext(ctx, kq, nullptr, 1.0f / std::sqrt(static_cast<float>(d_head)), 0.0f);
        ggml_tensor * kqv = ggml_mul_mat(ctx, vt, kq);              // [d_head, n_tokens, n_head]
        ggml_tensor * att = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), c.n_embd, c.n_tokens);
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l.wo, att));

        h = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), l.ffn_norm);
        ggml_tensor * g = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, l.w_gate, h), ggml_mul_mat(ctx, l.w_up, h));
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l.w_down, g));
    }
    x = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), m.out_norm);
    ggml_tensor * logits = ggml_mul_mat(ctx, m.output, x);
    ggml_set_name(logits, "logits");
    ggml_set_output(logits);

    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, logits);
    return gf;
}

bool parse_args(int argc, char ** argv, Config & c) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&](int & out) {
            if (i + 1 >= argc) {
                return false;
            }
            out = std::atoi(argv[++i]);
            return out > 0;
        };
        bool ok = false;
        if (a == "--layers") ok = next(c.n_layer);
        else if (a == "--tokens") ok = next(c.n_tokens);
        else if (a == "--steps") ok = next(c.n_steps);
        else if (a == "--threads") ok = next(c.n_thread);
        else if (a == "--test-device") ok = c.test_device = true;
        else if (a == "--help" || a == "-h") {
            std::printf("usage: %s [--layers N] [--tokens N] [--steps N] [--threads N] [--test-device]\n", argv[0]);
            std::exit(0);
        }
        if (!ok) {
            std::fprintf(stderr, "error: bad argument '%s' (try --help)\n", a.c_str());
            return false;
        }
    }
    return true;
}

} // namespace

// Prints the scheduler's plan in a few lines (the full plan is JSON: ggml_backend_sched_plan_json).
void print_plan(ggml_backend_sched_t sched, ggml_cgraph * gf) {
    std::printf("plan: %d graph nodes in %d splits, %d input copies per split input\n", ggml_graph_n_nodes(gf),
                ggml_backend_sched_get_n_splits(sched), ggml_backend_sched_get_n_copies(sched));
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); ++i) {
        ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
        std::printf("  %-6s compute buffer %.2f MiB\n", ggml_backend_name(b), ggml_backend_sched_get_buffer_size(sched, b) / 1048576.0);
    }
}

int main(int argc, char ** argv) {
    Model model;
    if (!parse_args(argc, argv, model.cfg)) {
        return 2;
    }
    const Config & c = model.cfg;

    ggml_backend_dev_t test_dev = nullptr;
    if (c.test_device) {
        test_dev = switchyard::testing::test_device_create(switchyard::testing::TestDeviceConfig{});
        ggml_backend_device_register(test_dev);
    }
    std::printf("devices:\n");
    std::vector<ggml_backend_t> backends;
    ggml_backend_t              cpu = nullptr;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        std::printf("  %zu: %s (%s)\n", i, ggml_backend_dev_name(dev), ggml_backend_dev_description(dev));
        ggml_backend_t b = ggml_backend_dev_init(dev, nullptr);
        if (!b) {
            continue;
        }
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU && !cpu) {
            cpu = b;
            ggml_backend_cpu_set_n_threads(cpu, c.n_thread);
        } else {
            backends.push_back(b);
        }
    }
    if (!cpu) {
        std::fprintf(stderr, "error: no CPU backend\n");
        return 1;
    }
    backends.push_back(cpu); // the scheduler wants the CPU last
    ggml_backend_t weights_backend = backends.front();
    std::printf("weights on: %s; CPU threads: %d\n", ggml_backend_name(weights_backend), c.n_thread);

    ggml_backend_buffer_t weights = nullptr;
    if (!create_model(model, weights_backend, &weights)) {
        std::fprintf(stderr, "error: could not create the model\n");
        return 1;
    }
    ggml_backend_buffer_set_usage(weights, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    std::printf("model: %d layers, n_embd %d, %d heads, n_ff %d, vocab %d; %d tokens per step; weights %.2f MiB\n", c.n_layer,
                c.n_embd, c.n_head, c.n_ff, c.n_vocab, c.n_tokens, ggml_backend_buffer_get_size(weights) / 1048576.0);

    ggml_backend_sched_t sched = ggml_backend_sched_new(backends.data(), nullptr, static_cast<int>(backends.size()),
                                                        GGML_DEFAULT_GRAPH_SIZE, false, true);
    if (!sched) {
        std::fprintf(stderr, "error: could not create the scheduler\n");
        return 1;
    }
    const size_t         graph_mem = ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE + ggml_graph_overhead();
    std::vector<int32_t> tok(static_cast<size_t>(c.n_tokens)), ps(static_cast<size_t>(c.n_tokens));
    double               checksum = 0.0;
    int64_t              t_total  = 0;
    for (int step = 0; step < c.n_steps; ++step) {
        ggml_init_params gparams{graph_mem, nullptr, true};
        ggml_context *   gctx   = ggml_init(gparams);
        ggml_tensor *    tokens = nullptr;
        ggml_tensor *    pos    = nullptr;
        ggml_cgraph *    gf     = build_graph(model, gctx, &tokens, &pos);
        ggml_backend_sched_reset(sched);
        if (!ggml_backend_sched_alloc_graph(sched, gf)) {
            std::fprintf(stderr, "error: could not allocate the compute graph\n");
            return 1;
        }
        if (step == 0) {
            print_plan(sched, gf);
        }
        for (int i = 0; i < c.n_tokens; ++i) {
            tok[static_cast<size_t>(i)] = (step * 31 + i * 7) % c.n_vocab;
            ps[static_cast<size_t>(i)]  = i;
        }
        ggml_backend_tensor_set(tokens, tok.data(), 0, tok.size() * sizeof(int32_t));
        ggml_backend_tensor_set(pos, ps.data(), 0, ps.size() * sizeof(int32_t));
        const int64_t     t0     = ggml_time_us();
        const ggml_status status = ggml_backend_sched_graph_compute(sched, gf);
        const int64_t     dt     = ggml_time_us() - t0;
        if (status != GGML_STATUS_SUCCESS) {
            std::fprintf(stderr, "error: compute failed: %s\n", ggml_status_to_string(status));
            return 1;
        }
        t_total += dt;
        ggml_tensor *      logits = ggml_graph_get_tensor(gf, "logits");
        std::vector<float> out(static_cast<size_t>(ggml_nelements(logits)));
        ggml_backend_tensor_get(logits, out.data(), 0, out.size() * sizeof(float));
        const size_t last = out.size() - static_cast<size_t>(c.n_vocab);
        size_t       best = 0;
        for (size_t i = 1; i < static_cast<size_t>(c.n_vocab); ++i) {
            best = out[last + i] > out[last + best] ? i : best;
        }
        double sum = 0.0;
        for (float v : out) {
            sum += v;
        }
        checksum += sum;
        std::printf("step %d: %.2f ms (%.1f tokens/s), next token of the last position: %zu\n", step, dt / 1000.0,
                    c.n_tokens / (dt / 1e6), best);
        ggml_free(gctx);
    }
    std::printf("mean time per step: %.2f ms; logits checksum %.6f\n", t_total / 1000.0 / c.n_steps, checksum);

    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(weights);
    ggml_free(model.ctx);
    for (ggml_backend_t b : backends) {
        ggml_backend_free(b);
    }
    if (test_dev) {
        switchyard::testing::test_device_release(test_dev);
    }
    return 0;
}
