// meta_block: a LLaMA-style transformer block (fused QKV, grouped-query attention, SwiGLU FFN) on
//   (a) one CPU backend with two threads, and
//   (b) a meta device of two CPU backends with one thread each (tensor parallel: attention split by heads, the
//       FFN by hidden units; two all-reduces per block),
// for a few batch sizes. Prints the median time per block of each and the ratio meta / cpu, and checks that
// both compute the same result.
//
// usage: meta_block [embd] [iterations]     (defaults: 1024, 20)
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

struct Dims {
    int64_t embd, head_dim, n_head, n_head_kv, ff, tokens;
};

using SplitState = ggml_backend_meta_split_state;

SplitState split(int axis, const std::vector<std::vector<int64_t>> & segments) {
    SplitState s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = static_cast<ggml_backend_meta_split_axis>(axis);
    s.n_segments = static_cast<uint32_t>(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) {
        s.nr[i] = 1;
        for (size_t d = 0; d < segments[i].size(); ++d) {
            s.ne[i * segments[i].size() + d] = segments[i][d]; // segments outer, devices inner
        }
    }
    return s;
}

// Splits for two devices: half of the heads and half of the hidden units each.
struct Splits {
    std::map<std::string, SplitState> by_name;

    explicit Splits(const Dims & m) {
        const int64_t q = m.embd / 2, kv = m.head_dim * m.n_head_kv / 2, f = m.ff / 2;
        by_name["wqkv"]   = split(1, {{q, q}, {kv, kv}, {kv, kv}});
        by_name["wo"]     = split(0, {{q, q}});
        by_name["w_gate"] = split(1, {{f, f}});
        by_name["w_up"]   = split(1, {{f, f}});
        by_name["w_down"] = split(0, {{f, f}});
    }

    static SplitState callback(const ggml_tensor * t, void * ud) {
        const auto & map = static_cast<const Splits *>(ud)->by_name;
        const auto   it  = map.find(t->name);
        if (it != map.end()) {
            return it->second;
        }
        SplitState s;
        std::memset(&s, 0, sizeof(s));
        s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
        return s;
    }
};

struct Block {
    ggml_context *        wctx = nullptr;
    ggml_context *        gctx = nullptr;
    ggml_backend_buffer_t weights = nullptr;
    ggml_gallocr_t        galloc  = nullptr;
    ggml_cgraph *         graph   = nullptr;
    ggml_tensor *         x = nullptr, *pos = nullptr, *mask = nullptr, *out = nullptr;

    ~Block() {
        ggml_gallocr_free(galloc);
        ggml_backend_buffer_free(weights);
        ggml_free(gctx);
        ggml_free(wctx);
    }
};

ggml_tensor * weight(ggml_context * ctx, const char * name, int64_t ne0, int64_t ne1) {
    ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1) : ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne0);
    ggml_set_name(t, name);
    return t;
}

void fill_weights(ggml_context * ctx) {
    std::mt19937 rng(42);
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        const bool                            norm = std::strstr(t->name, "norm") != nullptr;
        std::uniform_real_distribution<float> u(norm ? 0.9f : -0.05f, norm ? 1.1f : 0.05f);
        std::vector<float>                    v(static_cast<size_t>(ggml_nelements(t)));
        for (float & f : v) {
            f = u(rng);
        }
        ggml_backend_tensor_set(t, v.data(), 0, ggml_nbytes(t));
    }
}

ggml_tensor * attention(ggml_context * ctx, const Dims & m, ggml_tensor * qkv, ggml_tensor * pos, ggml_tensor * mask) {
    const int64_t hd = m.head_dim, E = m.embd, Ekv = hd * m.n_head_kv, T = m.tokens;
    const size_t  es = sizeof(float);
    ggml_tensor * q = ggml_view_3d(ctx, qkv, hd, m.n_head, T, hd * es, qkv->nb[1], 0);
    ggml_tensor * k = ggml_view_3d(ctx, qkv, hd, m.n_head_kv, T, hd * es, qkv->nb[1], static_cast<size_t>(E) * es);
    ggml_tensor * v = ggml_view_3d(ctx, qkv, hd, m.n_head_kv, T, hd * es, qkv->nb[1], static_cast<size_t>(E + Ekv) * es);
    q = ggml_rope_ext(ctx, q, pos, nullptr, static_cast<int>(hd), GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    k = ggml_rope_ext(ctx, k, pos, nullptr, static_cast<int>(hd), GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    q = ggml_permute(ctx, q, 0, 2, 1, 3);
    k = ggml_permute(ctx, k, 0, 2, 1, 3);
    v = ggml_permute(ctx, v, 0, 2, 1, 3);
    ggml_tensor * fa = ggml_flash_attn_ext(ctx, q, k, v, mask, 1.0f / std::sqrt(static_cast<float>(hd)), 0.0f, 0.0f);
    return ggml_reshape_2d(ctx, fa, E, T);
}

// Builds the block with its weights in buffers of weights_buft and allocates the graph for backend.
bool build(Block & b, const Dims & m, ggml_backend_t backend) {
    ggml_init_params wp{16 * ggml_tensor_overhead(), nullptr, true};
    b.wctx                = ggml_init(wp);
    ggml_tensor * an      = weight(b.wctx, "attn_norm", m.embd, 0);
    ggml_tensor * wqkv    = weight(b.wctx, "wqkv", m.embd, m.embd + 2 * m.head_dim * m.n_head_kv);
    ggml_tensor * wo      = weight(b.wctx, "wo", m.embd, m.embd);
    ggml_tensor * fn      = weight(b.wctx, "ffn_norm", m.embd, 0);
    ggml_tensor * w_gate  = weight(b.wctx, "w_gate", m.embd, m.ff);
    ggml_tensor * w_up    = weight(b.wctx, "w_up", m.embd, m.ff);
    ggml_tensor * w_down  = weight(b.wctx, "w_down", m.ff, m.embd);
    b.weights             = ggml_backend_alloc_ctx_tensors_from_buft(b.wctx, ggml_backend_get_default_buffer_type(backend));
    if (b.weights == nullptr) {
        return false;
    }
    ggml_backend_buffer_set_usage(b.weights, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    fill_weights(b.wctx);

    ggml_init_params gp{256 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    b.gctx            = ggml_init(gp);
    b.x               = ggml_new_tensor_2d(b.gctx, GGML_TYPE_F32, m.embd, m.tokens);
    b.pos             = ggml_new_tensor_1d(b.gctx, GGML_TYPE_I32, m.tokens);
    b.mask            = ggml_new_tensor_2d(b.gctx, GGML_TYPE_F16, m.tokens, m.tokens);
    ggml_tensor * cur = ggml_mul(b.gctx, ggml_rms_norm(b.gctx, b.x, 1e-5f), an);
    ggml_tensor * att = ggml_mul_mat(b.gctx, wo, attention(b.gctx, m, ggml_mul_mat(b.gctx, wqkv, cur), b.pos, b.mask));
    ggml_tensor * x2  = ggml_add(b.gctx, b.x, att);
    cur               = ggml_mul(b.gctx, ggml_rms_norm(b.gctx, x2, 1e-5f), fn);
    ggml_tensor * ff  = ggml_swiglu_split(b.gctx, ggml_mul_mat(b.gctx, w_gate, cur), ggml_mul_mat(b.gctx, w_up, cur));
    b.out             = ggml_add(b.gctx, x2, ggml_mul_mat(b.gctx, w_down, ff));
    b.graph           = ggml_new_graph(b.gctx);
    ggml_build_forward_expand(b.graph, b.out);
    b.galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
    return ggml_gallocr_alloc_graph(b.galloc, b.graph);
}

void set_inputs(Block & b, const Dims & m) {
    std::mt19937                          rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    x(static_cast<size_t>(m.embd * m.tokens));
    for (float & f : x) {
        f = u(rng);
    }
    std::vector<int32_t>     pos(static_cast<size_t>(m.tokens));
    std::vector<ggml_fp16_t> mask(static_cast<size_t>(m.tokens * m.tokens));
    for (int64_t i = 0; i < m.tokens; ++i) {
        pos[static_cast<size_t>(i)] = static_cast<int32_t>(i);
        for (int64_t j = 0; j < m.tokens; ++j) {
            mask[static_cast<size_t>(i * m.tokens + j)] = ggml_fp32_to_fp16(j <= i ? 0.0f : -INFINITY);
        }
    }
    ggml_backend_tensor_set(b.x, x.data(), 0, ggml_nbytes(b.x));
    ggml_backend_tensor_set(b.pos, pos.data(), 0, ggml_nbytes(b.pos));
    ggml_backend_tensor_set(b.mask, mask.data(), 0, ggml_nbytes(b.mask));
}

// Median milliseconds per block over `iterations` runs (after two warm-up runs); fills `out` with the result.
double time_block(ggml_backend_t backend, const Dims & m, int iterations, std::vector<float> & out) {
    Block b;
    if (!build(b, m, backend)) {
        std::fprintf(stderr, "meta_block: cannot build the block on %s\n", ggml_backend_name(backend));
        return -1.0;
    }
    std::vector<double> ms;
    for (int i = 0; i < iterations + 2; ++i) {
        set_inputs(b, m); // the graph allocator reuses the inputs' memory once they are consumed
        const auto t0 = std::chrono::steady_clock::now();
        if (ggml_backend_graph_compute(backend, b.graph) != GGML_STATUS_SUCCESS) {
            std::fprintf(stderr, "meta_block: compute failed on %s\n", ggml_backend_name(backend));
            return -1.0;
        }
        const auto t1 = std::chrono::steady_clock::now();
        if (i >= 2) {
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
    }
    out.resize(static_cast<size_t>(ggml_nelements(b.out)));
    ggml_backend_tensor_get(b.out, out.data(), 0, ggml_nbytes(b.out));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

float max_abs_diff(const std::vector<float> & a, const std::vector<float> & b) {
    float d = a.size() == b.size() ? 0.0f : INFINITY;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const float e = std::fabs(a[i] - b[i]);
        d             = std::isnan(e) || e > d ? e : d; // NaN is a difference, not a match
    }
    return d;
}

} // namespace

int main(int argc, char ** argv) {
    const int64_t embd       = argc > 1 ? std::atoll(argv[1]) : 1024;
    const int     iterations = argc > 2 ? std::atoi(argv[2]) : 20;
    if (embd < 256 || embd % 256 != 0 || iterations < 1) { // at least one kv head per device
        std::fprintf(stderr, "usage: %s [embd: multiple of 256] [iterations >= 1]\n", argv[0]);
        return 1;
    }
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, 2);
    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_dev_t devs[2] = {cpu_dev, cpu_dev};

    std::printf("transformer block, embd %lld, head size 64, %lld heads (%lld kv), ffn %lld; median of %d runs\n",
                static_cast<long long>(embd), static_cast<long long>(embd / 64), static_cast<long long>(embd / 128),
                static_cast<long long>(4 * embd), iterations);
    std::printf("%8s %16s %22s %8s %10s\n", "tokens", "cpu 2 thr [ms]", "meta 2x1 thr [ms]", "ratio", "max diff");
    int failures = 0;
    for (int64_t tokens : {1, 8, 32, 128}) {
        const Dims m{embd, 64, embd / 64, embd / 128, 4 * embd, tokens};
        Splits     splits(m);
        ggml_backend_t meta = ggml_backend_dev_init(ggml_backend_meta_device(devs, 2, Splits::callback, &splits), nullptr);
        for (size_t i = 0; meta != nullptr && i < ggml_backend_meta_n_backends(meta); ++i) {
            ggml_backend_cpu_set_n_threads(ggml_backend_meta_simple_backend(meta, i), 1);
        }
        std::vector<float> ref, got;
        const double       t_cpu  = time_block(cpu, m, iterations, ref);
        const double       t_meta = meta != nullptr ? time_block(meta, m, iterations, got) : -1.0;
        const float        diff   = max_abs_diff(ref, got);
        failures += t_cpu < 0 || t_meta < 0 || !(diff < 1e-3f) ? 1 : 0;
        std::printf("%8lld %16.3f %22.3f %8.2f %10.2g\n", static_cast<long long>(tokens), t_cpu, t_meta, t_meta / t_cpu,
                    static_cast<double>(diff));
        ggml_backend_free(meta);
    }
    ggml_backend_free(cpu);
    return failures == 0 ? 0 : 1;
}
