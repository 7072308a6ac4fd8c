// Memory planning benchmark: how large a compute buffer the graph allocator plans for realistic graphs,
// against the lower bound (the most bytes alive at one time) and against a greedy allocator that decides each
// tensor's place when it is created (a small re-implementation of upstream ggml's strategy, below). Also times
// planning a graph of more than 10,000 nodes.
//
// The bound and the greedy column use the lifetimes the allocator's semantics impose: INPUT tensors are live
// from before the first node (the caller sets them) to their last reader, as upstream frees them there, and
// OUTPUT tensors to the end of the graph. The bound is what any allocator with these semantics must use at least.
//
// Graphs are built in no_alloc contexts; weights and KV caches are marked as living elsewhere (a placeholder
// data pointer, never dereferenced, in a small CPU buffer), as they would in a weight buffer, so only activations are planned. The
// buffer type is the CPU one; nothing is allocated (ggml_gallocr_reserve_n_size).
//
// Then the per-step cost of planning and scheduling: engines rebuild the graph for every token, so the graph
// allocator's reserve (a first plan), its alloc_graph (replaying the plan) and the scheduler's alloc_graph (split,
// then replay) run once per token. A LLaMA-style decoder graph (1 token, CPU backend only) is rebuilt for each of
// 20 steps, once in place (as llama.cpp builds into one kept buffer) and once at new addresses; the table gives
// the median milliseconds of each call at three sizes.
//
// Usage: alloc_plan            (prints the tables; exit status 1 if a graph exceeds 1.05 x its lower bound)
//        alloc_plan --per-step (only the per-step table, e.g. to profile the per-token calls)
//        alloc_plan --side-by-side N_LAYERS (one line for bench/alloc_vs_upstream.sh)
//        alloc_plan --moved N_LAYERS STEPS (only sched alloc_graph on graphs at new addresses, all built first:
//                   for a profiler, which then sees little else)
// SWITCHYARD_GALLOC_PLAN=quick selects the allocator's quick plan (creation order into a free list, as
// upstream): the table then shows its memory (the greedy column's, 1.00-1.30 x the bound) and planning time.
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------------------
// Graph builders

// Memory kept between builds: a graph built into the same arena as the previous one puts every tensor where the
// previous build had it, as llama.cpp builds each step's graph into one kept buffer (its weights persist too).
struct Arena {
    std::vector<char> weights, tensors;
};

struct Built {
    ggml_context * wctx  = nullptr; // weights (external memory)
    ggml_context * ctx   = nullptr; // activations and the graph
    ggml_cgraph *  gf    = nullptr;
    Arena *        arena = nullptr; // where to build; nullptr: memory of the contexts' own
    Built() = default;
    explicit Built(Arena * a) : arena(a) {}
    ~Built() {
        ggml_free(ctx);
        ggml_free(wctx);
    }
};

constexpr size_t kGraphSize = 65536;

void init_built(Built & b, size_t n_weights, size_t n_tensors) {
    const size_t weight_bytes = ggml_tensor_overhead() * n_weights;
    const size_t tensor_bytes = ggml_tensor_overhead() * n_tensors + ggml_graph_overhead_custom(kGraphSize, false);
    void *       weight_mem   = nullptr;
    void *       tensor_mem   = nullptr;
    if (b.arena) {
        b.arena->weights.resize(std::max(b.arena->weights.size(), weight_bytes));
        b.arena->tensors.resize(std::max(b.arena->tensors.size(), tensor_bytes));
        weight_mem = b.arena->weights.data();
        tensor_mem = b.arena->tensors.data();
    }
    b.wctx = ggml_init({weight_bytes, weight_mem, true});
    b.ctx  = ggml_init({tensor_bytes, tensor_mem, true});
    b.gf   = ggml_new_graph_custom(b.ctx, kGraphSize, false);
}

// Marks t as living outside the planned buffer (weights, KV cache): a placeholder data pointer, never read, in
// a small CPU buffer shared by all of them (the scheduler places a tensor by its buffer: upstream's needs one).
void make_external(ggml_tensor * t) {
    struct Holder {
        ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
        ~Holder() { ggml_backend_buffer_free(buffer); }
    };
    static Holder holder;
    t->data   = reinterpret_cast<void *>(uintptr_t{1} << 32);
    t->buffer = holder.buffer;
}

// A tensor whose memory lives outside the planned buffer (weights, KV cache).
ggml_tensor * external(ggml_context * wctx, ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1) {
    ggml_tensor * t = ggml_new_tensor_3d(wctx, type, ne0, ne1, ne2);
    make_external(t);
    return t;
}

ggml_tensor * input(ggml_context * ctx, ggml_type type, int64_t ne0, int64_t ne1 = 1) {
    ggml_tensor * t = ggml_new_tensor_2d(ctx, type, ne0, ne1);
    ggml_set_input(t);
    return t;
}

// GPT-2 small (ggml's gpt-2 example): n_embd 768, 12 heads, 4 layers, vocab 50257, KV cache of n_past + N.
void build_gpt2(Built & b, int n_tokens, int n_past) {
    const int n_embd = 768, n_head = 12, n_layer = 4, n_vocab = 50257, d = n_embd / n_head;
    const int n_kv   = n_past + n_tokens;
    init_built(b, 64 + 16 * n_layer, 64 * n_layer + 64);
    ggml_context * w   = b.wctx;
    ggml_context * ctx = b.ctx;
    ggml_tensor *  embd = input(ctx, GGML_TYPE_I32, n_tokens);
    ggml_tensor *  pos  = input(ctx, GGML_TYPE_I32, n_tokens);
    ggml_tensor *  inpL = ggml_add(ctx, ggml_get_rows(ctx, external(w, GGML_TYPE_F16, n_embd, n_vocab), embd),
                                   ggml_get_rows(ctx, external(w, GGML_TYPE_F32, n_embd, 1024), pos));
    for (int il = 0; il < n_layer; ++il) {
        ggml_tensor * mk  = external(w, GGML_TYPE_F16, n_embd * n_kv);
        ggml_tensor * mv  = external(w, GGML_TYPE_F16, n_embd * n_kv);
        ggml_tensor * cur = ggml_norm(ctx, inpL, 1e-5f);
        cur = ggml_add(ctx, ggml_mul(ctx, cur, external(w, GGML_TYPE_F32, n_embd)), external(w, GGML_TYPE_F32, n_embd));
        cur = ggml_add(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, n_embd, 3 * n_embd), cur),
                       external(w, GGML_TYPE_F32, 3 * n_embd));
        ggml_tensor * q  = ggml_view_2d(ctx, cur, n_embd, n_tokens, cur->nb[1], 0);
        ggml_tensor * kc = ggml_view_2d(ctx, cur, n_embd, n_tokens, cur->nb[1], n_embd * sizeof(float));
        ggml_tensor * vc = ggml_view_2d(ctx, cur, n_embd, n_tokens, cur->nb[1], 2 * n_embd * sizeof(float));
        size_t        es = ggml_element_size(mk);
        ggml_build_forward_expand(b.gf, ggml_cpy(ctx, kc, ggml_view_1d(ctx, mk, n_tokens * n_embd, es * n_embd * n_past)));
        ggml_build_forward_expand(b.gf, ggml_cpy(ctx, vc, ggml_view_1d(ctx, mv, n_tokens * n_embd, es * n_embd * n_past)));
        ggml_tensor * Q = ggml_permute(ctx, ggml_cpy(ctx, q, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d, n_head, n_tokens)), 0, 2, 1, 3);
        ggml_tensor * K = ggml_permute(ctx, ggml_reshape_3d(ctx, ggml_view_1d(ctx, mk, n_kv * n_embd, 0), d, n_head, n_kv), 0, 2, 1, 3);
        ggml_tensor * kq = ggml_soft_max(ctx, ggml_diag_mask_inf(ctx, ggml_scale(ctx, ggml_mul_mat(ctx, K, Q), 1.0f / std::sqrt(float(d))), n_past));
        ggml_tensor * V = ggml_cont_3d(ctx, ggml_permute(ctx, ggml_reshape_3d(ctx, ggml_view_1d(ctx, mv, n_kv * n_embd, 0), d, n_head, n_kv), 1, 2, 0, 3), n_kv, d, n_head);
        ggml_tensor * kqv = ggml_permute(ctx, ggml_mul_mat(ctx, V, kq), 0, 2, 1, 3);
        cur = ggml_cpy(ctx, kqv, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n_embd, n_tokens));
        cur = ggml_add(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, n_embd, n_embd), cur), external(w, GGML_TYPE_F32, n_embd));
        ggml_tensor * ff = ggml_add(ctx, cur, inpL);
        cur = ggml_norm(ctx, ff, 1e-5f);
        cur = ggml_add(ctx, ggml_mul(ctx, cur, external(w, GGML_TYPE_F32, n_embd)), external(w, GGML_TYPE_F32, n_embd));
        cur = ggml_add(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, n_embd, 4 * n_embd), cur), external(w, GGML_TYPE_F32, 4 * n_embd));
        cur = ggml_gelu(ctx, cur);
        cur = ggml_add(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, 4 * n_embd, n_embd), cur), external(w, GGML_TYPE_F32, n_embd));
        inpL = ggml_add(ctx, cur, ff);
    }
    ggml_tensor * cur = ggml_norm(ctx, inpL, 1e-5f);
    cur = ggml_add(ctx, ggml_mul(ctx, cur, external(w, GGML_TYPE_F32, n_embd)), external(w, GGML_TYPE_F32, n_embd));
    ggml_tensor * logits = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, n_embd, n_vocab), cur);
    ggml_set_output(logits);
    ggml_build_forward_expand(b.gf, logits);
}

struct LlamaShape {
    int n_embd = 4096, n_head = 32, n_head_kv = 32, n_ff = 11008, n_vocab = 32000, n_layer = 4;
};

// LLaMA-2 7B shapes (4 layers by default): RMS norm, RoPE, soft_max_ext with a mask, SwiGLU MLP, KV cache,
// logits for the last token.
// With many_inputs, every layer has inputs of its own, as graphs with per-layer masks and positions (sliding
// windows, several sequences) and the scheduler's split inputs have: positions, a mask and a residual
// correction (an activation-sized input added at the start of the layer).
void build_llama(Built & b, const LlamaShape & s, int n_tokens, int n_past, bool many_inputs = false) {
    const int d = s.n_embd / s.n_head, n_kv = n_past + n_tokens, n_embd_kv = d * s.n_head_kv;
    init_built(b, 16 + 12 * static_cast<size_t>(s.n_layer), 32 + 52 * static_cast<size_t>(s.n_layer));
    ggml_context * w   = b.wctx;
    ggml_context * ctx = b.ctx;
    ggml_tensor *  pos  = input(ctx, GGML_TYPE_I32, n_tokens);
    ggml_tensor *  mask = input(ctx, GGML_TYPE_F16, n_kv, GGML_PAD(n_tokens, 64));
    ggml_tensor *  inpL = ggml_get_rows(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_vocab), input(ctx, GGML_TYPE_I32, n_tokens));
    for (int il = 0; il < s.n_layer; ++il) {
        if (many_inputs) {
            pos  = input(ctx, GGML_TYPE_I32, n_tokens);
            mask = input(ctx, GGML_TYPE_F16, n_kv, GGML_PAD(n_tokens, 64));
            inpL = ggml_add(ctx, inpL, input(ctx, GGML_TYPE_F32, s.n_embd, n_tokens));
        }
        ggml_tensor * kc  = external(w, GGML_TYPE_F16, n_embd_kv, n_kv);
        ggml_tensor * vc  = external(w, GGML_TYPE_F16, n_embd_kv, n_kv);
        ggml_tensor * cur = ggml_mul(ctx, ggml_rms_norm(ctx, inpL, 1e-5f), external(w, GGML_TYPE_F32, s.n_embd));
        ggml_tensor * q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_embd), cur), d, s.n_head, n_tokens);
        ggml_tensor * k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, n_embd_kv), cur), d, s.n_head_kv, n_tokens);
        ggml_tensor * v = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, n_embd_kv), cur);
        q = ggml_rope_ext(ctx, q, pos, nullptr, d, GGML_ROPE_TYPE_NORMAL, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
        k = ggml_rope_ext(ctx, k, pos, nullptr, d, GGML_ROPE_TYPE_NORMAL, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
        size_t row = ggml_row_size(GGML_TYPE_F16, n_embd_kv);
        ggml_build_forward_expand(b.gf, ggml_cpy(ctx, k, ggml_view_1d(ctx, kc, n_tokens * n_embd_kv, row * n_past)));
        ggml_build_forward_expand(b.gf, ggml_cpy(ctx, v, ggml_view_1d(ctx, vc, n_tokens * n_embd_kv, row * n_past)));
        ggml_tensor * K  = ggml_view_3d(ctx, kc, d, n_kv, s.n_head_kv, row, ggml_row_size(GGML_TYPE_F16, d), 0);
        ggml_tensor * kq = ggml_mul_mat(ctx, K, ggml_permute(ctx, q, 0, 2, 1, 3));
        kq = ggml_soft_max_ext(ctx, kq, mask, 1.0f / std::sqrt(float(d)), 0.0f);
        ggml_tensor * V = ggml_cont_3d(ctx, ggml_permute(ctx, ggml_view_3d(ctx, vc, d, s.n_head_kv, n_kv, ggml_row_size(GGML_TYPE_F16, d), row, 0), 1, 2, 0, 3), n_kv, d, s.n_head_kv);
        ggml_tensor * kqv = ggml_permute(ctx, ggml_mul_mat(ctx, V, kq), 0, 2, 1, 3);
        cur = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_embd), ggml_cont_2d(ctx, kqv, s.n_embd, n_tokens));
        ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpL);
        cur = ggml_mul(ctx, ggml_rms_norm(ctx, ffn_inp, 1e-5f), external(w, GGML_TYPE_F32, s.n_embd));
        ggml_tensor * up   = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_ff), cur);
        ggml_tensor * gate = ggml_silu(ctx, ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_ff), cur));
        cur  = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_ff, s.n_embd), ggml_mul(ctx, gate, up));
        inpL = ggml_add(ctx, cur, ffn_inp);
    }
    // logits of the last token only, as llama.cpp computes them unless asked for all
    inpL                 = ggml_get_rows(ctx, inpL, input(ctx, GGML_TYPE_I32, 1));
    ggml_tensor * cur    = ggml_mul(ctx, ggml_rms_norm(ctx, inpL, 1e-5f), external(w, GGML_TYPE_F32, s.n_embd));
    ggml_tensor * logits = ggml_mul_mat(ctx, external(w, GGML_TYPE_F16, s.n_embd, s.n_vocab), cur);
    ggml_set_output(logits);
    ggml_build_forward_expand(b.gf, logits);
}

// An MLP classifier: 784 -> 4 x 2048 (GELU) -> 10, soft max, batch 256.
void build_mlp(Built & b, int batch) {
    init_built(b, 32, 64);
    ggml_tensor * cur = input(b.ctx, GGML_TYPE_F32, 784, batch);
    int           in  = 784;
    for (int width : {2048, 2048, 2048, 2048, 10}) {
        cur = ggml_add(b.ctx, ggml_mul_mat(b.ctx, external(b.wctx, GGML_TYPE_F32, in, width), cur), external(b.wctx, GGML_TYPE_F32, width));
        cur = width == 10 ? ggml_soft_max(b.ctx, cur) : ggml_gelu(b.ctx, cur);
        in  = width;
    }
    ggml_set_output(cur);
    ggml_build_forward_expand(b.gf, cur);
}

ggml_tensor * conv_relu(Built & b, ggml_tensor * x, int out, int k = 3) {
    ggml_tensor * kernel = ggml_new_tensor_4d(b.wctx, GGML_TYPE_F16, k, k, x->ne[2], out);
    ggml_tensor * bias   = ggml_new_tensor_4d(b.wctx, GGML_TYPE_F32, 1, 1, out, 1);
    make_external(kernel);
    make_external(bias);
    return ggml_relu(b.ctx, ggml_add(b.ctx, ggml_conv_2d(b.ctx, kernel, x, 1, 1, k / 2, k / 2, 1, 1), bias));
}

// A VGG-like CNN on 112x112 RGB images: conv 3x3 (im2col + matmul) + bias + ReLU, max pool, 4 stages, FC.
void build_cnn(Built & b, int batch) {
    init_built(b, 32, 128);
    ggml_tensor * cur = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, 112, 112, 3, batch);
    ggml_set_input(cur);
    for (int out : {32, 64, 128, 256}) {
        cur = conv_relu(b, conv_relu(b, cur, out), out);
        cur = ggml_pool_2d(b.ctx, cur, GGML_OP_POOL_MAX, 2, 2, 2, 2, 0, 0);
    }
    cur = ggml_reshape_2d(b.ctx, cur, cur->ne[0] * cur->ne[1] * cur->ne[2], batch);
    cur = ggml_mul_mat(b.ctx, external(b.wctx, GGML_TYPE_F16, cur->ne[0], 1000), cur);
    cur = ggml_soft_max(b.ctx, cur);
    ggml_set_output(cur);
    ggml_build_forward_expand(b.gf, cur);
}

// Nearest-neighbour 2x upsampling of [W, H, C, N] with two repeats.
ggml_tensor * upsample2x(ggml_context * ctx, ggml_tensor * x) {
    const int64_t w = x->ne[0], h = x->ne[1], c = x->ne[2] * x->ne[3];
    ggml_tensor * t = ggml_repeat_4d(ctx, ggml_reshape_3d(ctx, x, 1, w, h * c), 2, w, h * c, 1);
    t = ggml_repeat_4d(ctx, ggml_reshape_4d(ctx, t, 2 * w, 1, h, c), 2 * w, 2, h, c);
    return ggml_reshape_4d(ctx, t, 2 * w, 2 * h, x->ne[2], x->ne[3]);
}

// A U-Net on 128x128 images: 3 down stages with skip connections kept alive until the matching up stage
// (the shape of diffusion models' UNets, where creation-time placement fragments most).
void build_unet(Built & b, int batch) {
    init_built(b, 64, 256);
    ggml_tensor * cur = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, 128, 128, 3, batch);
    ggml_set_input(cur);
    std::vector<ggml_tensor *> skips;
    for (int out : {32, 64, 128}) {
        cur = conv_relu(b, conv_relu(b, cur, out), out);
        skips.push_back(cur);
        cur = ggml_pool_2d(b.ctx, cur, GGML_OP_POOL_MAX, 2, 2, 2, 2, 0, 0);
    }
    cur = conv_relu(b, conv_relu(b, cur, 256), 256);
    for (int out : {128, 64, 32}) {
        cur = ggml_concat(b.ctx, upsample2x(b.ctx, cur), skips.back(), 2);
        skips.pop_back();
        cur = conv_relu(b, conv_relu(b, cur, out), out);
    }
    cur = conv_relu(b, cur, 3, 1);
    ggml_set_output(cur);
    ggml_build_forward_expand(b.gf, cur);
}

// Worst cases for planning time: 10,000 small tensors of which many stay alive. mode 0: every node is an
// output (all survive the graph); mode 1: a forward chain whose activations the mirrored "backward" half reads
// again (how training graphs keep activations alive).
void build_long_lived(Built & b, int mode) {
    const int n = 10000;
    init_built(b, 4, 2 * n + 16);
    ggml_tensor *              cur = input(b.ctx, GGML_TYPE_F32, 64, 4);
    std::vector<ggml_tensor *> forward;
    for (int i = 0; i < n; ++i) {
        if (mode == 1 && i >= n / 2) {
            cur = ggml_add(b.ctx, ggml_cont(b.ctx, cur), forward[n - 1 - i]);
        } else {
            cur = ggml_cont(b.ctx, cur);
            forward.push_back(cur);
        }
        if (mode == 0) {
            ggml_set_output(cur);
        }
    }
    ggml_build_forward_expand(b.gf, cur);
}

// ---------------------------------------------------------------------------------------------------------
// The bench's own lifetime model (independent of the library): memory blocks with [first, last] use times

struct ModelBlock {
    int    start = 0, end = 0;
    size_t size = 0;
};

ggml_tensor * root_of(ggml_tensor * t) {
    while (t->view_src != nullptr) {
        t = t->view_src;
    }
    return t;
}

bool inplace_op(ggml_op op) {
    static const std::set<ggml_op> ops = {GGML_OP_FILL, GGML_OP_SCALE, GGML_OP_DIAG_MASK_ZERO, GGML_OP_DIAG_MASK_INF,
        GGML_OP_ADD, GGML_OP_ADD_ID, GGML_OP_ADD1, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV, GGML_OP_SQR, GGML_OP_SQRT,
        GGML_OP_LOG, GGML_OP_UNARY, GGML_OP_ROPE, GGML_OP_ROPE_BACK, GGML_OP_SILU_BACK, GGML_OP_RMS_NORM,
        GGML_OP_RMS_NORM_BACK, GGML_OP_SOFT_MAX, GGML_OP_SOFT_MAX_BACK};
    return ops.count(op) != 0;
}

bool same_layout(const ggml_tensor * a, const ggml_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

// Tensors needing memory: not views, no data. A tensor's memory is used from its node (time i + 1; leafs from
// 0) to its last reader (through views too); outputs and unconsumed results to the end. INPUT tensors (or the
// tensor an INPUT view aliases) are live from 0, since the caller sets them before the compute, to their last
// reader; they are never taken over in place.
// A node of an in-place op takes over its dying src[0] (the tensor or an offset-0 view of it) when layouts match.
class LifetimeModel {
public:
    LifetimeModel(ggml_cgraph * gf, ggml_backend_buffer_type_t buft)
        : gf_(gf), buft_(buft), n_(ggml_graph_n_nodes(gf)) {
        for (int i = 0; i < n_; ++i) {
            for (ggml_tensor * s : ggml_graph_node(gf, i)->src) {
                if (s) {
                    consumed_.insert(s);
                }
            }
        }
        for (int i = 0; i < n_; ++i) {
            scan_node(i);
        }
        for (auto & [t, b] : owned_) {
            if ((t->flags & GGML_TENSOR_FLAG_OUTPUT) || keep_.count(t) || (!consumed_.count(t) && !viewed_.count(t))) {
                b.end = n_ + 1;
            }
            if ((t->flags & GGML_TENSOR_FLAG_INPUT) || input_.count(t)) {
                b.start = 0; // set before the compute; free after its last reader
            }
        }
    }

    // One block per tensor, except that in-place chains share one, in creation order.
    std::vector<ModelBlock> blocks() {
        std::vector<ModelBlock> blocks;
        for (int i = 0; i < n_; ++i) {
            ggml_tensor * node = ggml_graph_node(gf_, i);
            for (ggml_tensor * s : node->src) {
                ggml_tensor * r = s ? root_of(s) : nullptr;
                if (r && owned_.count(r) && !block_of_.count(r)) {
                    block_of_[r] = static_cast<int>(blocks.size());
                    blocks.push_back(owned_[r]);
                }
            }
            if (!owned_.count(node) || block_of_.count(node)) {
                continue;
            }
            if (takes_over(node, i, blocks)) {
                block_of_[node]             = block_of_[root_of(node->src[0])];
                blocks[block_of_[node]].end = owned_[node].end;
            } else {
                block_of_[node] = static_cast<int>(blocks.size());
                blocks.push_back(owned_[node]);
            }
        }
        return blocks;
    }

private:
    void note(ggml_tensor * t, int time) {
        ggml_tensor * r = root_of(t);
        if (r->data == nullptr && !owned_.count(r)) {
            const size_t align = ggml_backend_buft_get_alignment(buft_);
            owned_[r]          = {time, time, GGML_PAD(ggml_backend_buft_get_alloc_size(buft_, r), align)};
        }
        if (t != r) {
            viewed_.insert(r);
            if (t->flags & GGML_TENSOR_FLAG_INPUT) {
                input_.insert(r);
            }
            if ((t->flags & GGML_TENSOR_FLAG_OUTPUT) || (t->op != GGML_OP_NONE && !consumed_.count(t))) {
                keep_.insert(r);
            }
        }
    }

    void use(ggml_tensor * t, int time) {
        auto it = owned_.find(root_of(t));
        if (it != owned_.end()) {
            it->second.end = std::max(it->second.end, time);
        }
    }

    void scan_node(int i) {
        ggml_tensor * node = ggml_graph_node(gf_, i);
        for (ggml_tensor * s : node->src) {
            if (s) {
                note(s, 0);
            }
        }
        note(node, (node->flags & GGML_TENSOR_FLAG_INPUT) ? 0 : i + 1);
        for (ggml_tensor * s : node->src) {
            if (s) {
                use(s, i + 1);
            }
        }
        if (node->view_src) {
            use(node, i + 1);
        }
    }

    bool takes_over(ggml_tensor * node, int i, const std::vector<ModelBlock> & blocks) {
        const int     no_reuse = GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT;
        ggml_tensor * s        = node->src[0];
        ggml_tensor * p        = s ? root_of(s) : nullptr;
        if (!p || !owned_.count(p) || !inplace_op(node->op) || (node->flags & GGML_TENSOR_FLAG_INPUT) ||
            (p->flags & no_reuse) || (s->flags & no_reuse)) {
            return false;
        }
        int refs = 0;
        for (ggml_tensor * o : node->src) {
            refs += o && root_of(o) == p ? 1 : 0;
        }
        return refs == 1 && owned_[p].end == i + 1 && blocks[block_of_[p]].end == i + 1 &&
               (s == p || s->view_offs == 0) && same_layout(node, s) && owned_[p].size == owned_[node].size;
    }

    ggml_cgraph *                       gf_;
    ggml_backend_buffer_type_t          buft_;
    int                                 n_;
    std::map<ggml_tensor *, ModelBlock> owned_;
    std::map<ggml_tensor *, int>        block_of_; // tensor -> index into blocks (after in-place merging)
    std::set<ggml_tensor *>             consumed_, viewed_, keep_;
    std::set<ggml_tensor *>             input_; // tensors aliased by an INPUT view
};

size_t lower_bound(const std::vector<ModelBlock> & blocks) {
    std::map<int, long long> delta;
    for (const ModelBlock & b : blocks) {
        delta[b.start] += static_cast<long long>(b.size);
        delta[b.end + 1] -= static_cast<long long>(b.size);
    }
    long long live = 0, most = 0;
    for (const auto & [t, d] : delta) {
        live += d;
        most = std::max(most, live);
    }
    return static_cast<size_t>(most);
}

// For comparison: upstream ggml's strategy re-implemented. Tensors are placed when created, in graph order,
// into a free list (best fit among the inner free blocks, else the last block that extends to the end), and
// freed after their last reader; the buffer is the high-water mark.
class GreedyFreeList {
public:
    size_t alloc(size_t size) {
        auto best = free_.end();
        for (auto it = free_.begin(); std::next(it) != free_.end(); ++it) {
            if (it->second >= size && (best == free_.end() || it->second < best->second)) {
                best = it;
            }
        }
        if (best == free_.end()) {
            best = std::prev(free_.end());
        }
        size_t off = best->first, rest = best->second - size;
        free_.erase(best);
        if (rest > 0) {
            free_[off + size] = rest;
        }
        high_ = std::max(high_, off + size);
        return off;
    }

    void release(size_t off, size_t size) {
        auto next = free_.lower_bound(off);
        if (next != free_.end() && off + size == next->first) {
            size += next->second;
            next = free_.erase(next);
        }
        if (next != free_.begin() && std::prev(next)->first + std::prev(next)->second == off) {
            std::prev(next)->second += size;
        } else {
            free_[off] = size;
        }
    }

    size_t high_water() const { return high_; }

private:
    std::map<size_t, size_t> free_ = {{0, SIZE_MAX / 2}}; // offset -> size
    size_t                   high_ = 0;
};

size_t greedy_size(const std::vector<ModelBlock> & blocks) {
    int last_time = 0;
    for (const ModelBlock & b : blocks) {
        last_time = std::max(last_time, b.end);
    }
    std::vector<std::vector<int>> born(last_time + 1), dies(last_time + 1);
    for (size_t i = 0; i < blocks.size(); ++i) {
        born[blocks[i].start].push_back(static_cast<int>(i));
        dies[blocks[i].end].push_back(static_cast<int>(i));
    }
    GreedyFreeList      list;
    std::vector<size_t> offset(blocks.size());
    for (int t = 0; t <= last_time; ++t) {
        for (int i : born[t]) {
            if (blocks[i].size > 0) {
                offset[i] = list.alloc(blocks[i].size);
            }
        }
        for (int i : dies[t]) {
            if (blocks[i].size > 0 && t < last_time) {
                list.release(offset[i], blocks[i].size);
            }
        }
    }
    return list.high_water();
}

// ---------------------------------------------------------------------------------------------------------

double mib(size_t bytes) {
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Plans gf with a fresh graph allocator; returns the planned size and the best of `reps` planning times.
size_t plan(ggml_cgraph * gf, ggml_backend_buffer_type_t buft, int reps, double * ms) {
    size_t size = 0;
    *ms         = 1e30;
    for (int r = 0; r < reps; ++r) {
        ggml_gallocr_t galloc = ggml_gallocr_new(buft);
        auto           t0     = std::chrono::steady_clock::now();
        ggml_gallocr_reserve_n_size(galloc, gf, nullptr, nullptr, &size);
        auto t1 = std::chrono::steady_clock::now();
        *ms     = std::min(*ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
        ggml_gallocr_free(galloc);
    }
    return size;
}

struct Case {
    std::string name;
    void (*build)(Built &, int);
    int arg;
};

bool report(const std::string & name, ggml_cgraph * gf, ggml_backend_buffer_type_t buft) {
    double                  ms     = 0;
    size_t                  ours   = plan(gf, buft, 3, &ms);
    std::vector<ModelBlock> blocks = LifetimeModel(gf, buft).blocks();
    size_t                  bound  = lower_bound(blocks);
    size_t                  greedy = greedy_size(blocks);
    double                  ratio  = bound ? static_cast<double>(ours) / static_cast<double>(bound) : 1.0;
    double                  gratio = bound ? static_cast<double>(greedy) / static_cast<double>(bound) : 1.0;
    std::printf("| %-24s | %6d | %10.2f | %10.2f | %6.3f | %10.2f | %6.3f | %8.2f |\n", name.c_str(),
                ggml_graph_n_nodes(gf), mib(ours), mib(bound), ratio, mib(greedy), gratio, ms);
    return ratio <= 1.05;
}

struct StepTimes {
    int    nodes       = 0;
    double reserve     = 0; // ms, medians
    double alloc       = 0; // graph rebuilt in place (same addresses every step)
    double sched_alloc = 0;
    double alloc_moved       = 0; // graph rebuilt at new addresses every step
    double sched_alloc_moved = 0;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median milliseconds of the per-step calls on a decoder of shape s rebuilt for every step: a fresh allocator's
// reserve; gallocr alloc_graph and sched alloc_graph on a graph rebuilt in place, as llama.cpp does (its tensors
// where the previous step had them), and on one rebuilt at new addresses (the previous graph still alive while
// the next is built, as an engine allocating new contexts for each step would see it).
StepTimes per_step_times(ggml_backend_t cpu, const LlamaShape & s) {
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(cpu);
    // one allocator and one scheduler per way of rebuilding: each sees its own previous graph
    ggml_gallocr_t       galloc[2] = {ggml_gallocr_new(buft), ggml_gallocr_new(buft)};
    ggml_backend_sched_t sched[2]  = {ggml_backend_sched_new(&cpu, nullptr, 1, kGraphSize, false, true),
                                      ggml_backend_sched_new(&cpu, nullptr, 1, kGraphSize, false, true)};
    int                  nodes     = 0;
    {
        Built b;
        build_llama(b, s, 1, 96);
        nodes = ggml_graph_n_nodes(b.gf);
        for (int k = 0; k < 2; ++k) {
            ggml_gallocr_reserve(galloc[k], b.gf);
            ggml_backend_sched_reserve(sched[k], b.gf);
        }
    }
    auto time_alloc = [&](Built & b, int k) {
        build_llama(b, s, 1, 96);
        const auto t0 = std::chrono::steady_clock::now();
        ggml_gallocr_alloc_graph(galloc[k], b.gf);
        return ms_since(t0);
    };
    auto time_sched = [&](Built & b, int k) {
        build_llama(b, s, 1, 96);
        ggml_backend_sched_reset(sched[k]);
        const auto t0 = std::chrono::steady_clock::now();
        ggml_backend_sched_alloc_graph(sched[k], b.gf);
        return ms_since(t0);
    };
    Arena                  alloc_arena, sched_arena;
    std::unique_ptr<Built> alloc_prev, sched_prev; // the previous step's graphs at new addresses, kept alive
    std::vector<double>    reserve, alloc, sched_alloc, alloc_moved, sched_alloc_moved;
    for (int step = 0; step < 20; ++step) {
        {
            Built b;
            build_llama(b, s, 1, 96);
            ggml_gallocr_t fresh = ggml_gallocr_new(buft);
            const auto     t0    = std::chrono::steady_clock::now();
            ggml_gallocr_reserve(fresh, b.gf);
            reserve.push_back(ms_since(t0));
            ggml_gallocr_free(fresh);
        }
        {
            Built b(&alloc_arena);
            alloc.push_back(time_alloc(b, 0));
        }
        {
            Built b(&sched_arena);
            sched_alloc.push_back(time_sched(b, 0));
        }
        auto moved_alloc = std::make_unique<Built>();
        alloc_moved.push_back(time_alloc(*moved_alloc, 1));
        alloc_prev = std::move(moved_alloc);
        auto moved_sched = std::make_unique<Built>();
        sched_alloc_moved.push_back(time_sched(*moved_sched, 1));
        sched_prev = std::move(moved_sched);
    }
    for (int k = 0; k < 2; ++k) {
        ggml_backend_sched_free(sched[k]);
        ggml_gallocr_free(galloc[k]);
    }
    return {nodes, median(reserve), median(alloc), median(sched_alloc), median(alloc_moved), median(sched_alloc_moved)};
}

void per_step(ggml_backend_t cpu, int n_layer) {
    LlamaShape s;
    s.n_embd = 512, s.n_head = 8, s.n_head_kv = 8, s.n_ff = 1408, s.n_vocab = 1000, s.n_layer = n_layer;
    const StepTimes t = per_step_times(cpu, s);
    std::printf("| %6d | %15.3f | %19.3f | %17.3f | %20.3f | %18.3f |\n", t.nodes, t.reserve, t.alloc, t.sched_alloc,
                t.alloc_moved, t.sched_alloc_moved);
}

void quiet_log(ggml_log_level level, const char * text, void *) {
    if (level >= GGML_LOG_LEVEL_WARN) {
        std::fputs(text, stderr);
    }
}

// The per-step table: three sizes (about 900, 11,000 and 45,000 nodes) to show the cost grows linearly.
void per_step_table() {
    std::printf("\nper-step cost, decoder rebuilt for every token (1 token, CPU backend), median of 20 steps, ms;\n"
                "rebuilt in place (same addresses, as llama.cpp) and at new addresses\n\n");
    std::printf("| %6s | %15s | %19s | %17s | %20s | %18s |\n", "nodes", "gallocr reserve", "gallocr alloc_graph",
                "sched alloc_graph", "gallocr alloc, moved", "sched alloc, moved");
    std::printf("|--------|-----------------|---------------------|-------------------|----------------------|--------------------|\n");
    ggml_backend_t cpu = ggml_backend_cpu_init();
    per_step(cpu, 27);
    per_step(cpu, 339);
    per_step(cpu, 1380);
    ggml_backend_free(cpu);
}

// One round of the side-by-side comparison with upstream ggml (this file builds against either library: it
// uses only the public API). The first ggml_gallocr_reserve of the process (cold caches, nothing allocated
// before) on a decoder of n_layer layers, then the per-step medians as in per_step(). One line:
// "nodes first_reserve_ms reserve_ms gallocr_alloc_ms sched_alloc_ms gallocr_alloc_moved_ms sched_alloc_moved_ms".
// bench/alloc_vs_upstream.sh runs this mode alternately against both libraries and prints medians and ratios.
int side_by_side(int n_layer) {
    LlamaShape s;
    s.n_embd = 512, s.n_head = 8, s.n_head_kv = 8, s.n_ff = 1408, s.n_vocab = 1000, s.n_layer = n_layer;
    ggml_backend_t             cpu  = ggml_backend_cpu_init();
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(cpu);
    double                     first_ms = 0;
    int                        nodes    = 0;
    {
        Built b;
        build_llama(b, s, 1, 96);
        nodes                 = ggml_graph_n_nodes(b.gf);
        const auto     t0     = std::chrono::steady_clock::now();
        ggml_gallocr_t galloc = ggml_gallocr_new(buft);
        const bool     ok     = ggml_gallocr_reserve(galloc, b.gf);
        first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ggml_gallocr_free(galloc);
        if (!ok) {
            std::fprintf(stderr, "reserve failed\n");
            return 1;
        }
    }
    const StepTimes t = per_step_times(cpu, s);
    std::printf("%d %.3f %.3f %.3f %.3f %.3f %.3f\n", nodes, first_ms, t.reserve, t.alloc, t.sched_alloc,
                t.alloc_moved, t.sched_alloc_moved);
    ggml_backend_free(cpu);
    return 0;
}

// STEPS decoders of n_layer layers, each at new addresses, all built before the first is scheduled; then the
// scheduler's alloc_graph on each in turn. Prints the median milliseconds.
int moved_only(int n_layer, int steps) {
    LlamaShape s;
    s.n_embd = 512, s.n_head = 8, s.n_head_kv = 8, s.n_ff = 1408, s.n_vocab = 1000, s.n_layer = n_layer;
    ggml_backend_t       cpu   = ggml_backend_cpu_init();
    ggml_backend_sched_t sched = ggml_backend_sched_new(&cpu, nullptr, 1, kGraphSize, false, true);
    std::vector<std::unique_ptr<Built>> graphs;
    for (int i = 0; i < steps; ++i) {
        graphs.push_back(std::make_unique<Built>());
        build_llama(*graphs.back(), s, 1, 96);
    }
    ggml_backend_sched_reserve(sched, graphs[0]->gf);
    std::vector<double> ms;
    for (auto & b : graphs) {
        ggml_backend_sched_reset(sched);
        const auto t0 = std::chrono::steady_clock::now();
        ggml_backend_sched_alloc_graph(sched, b->gf);
        ms.push_back(ms_since(t0));
    }
    std::printf("%d nodes, sched alloc_graph on moved graphs: %.3f ms (median of %d)\n", ggml_graph_n_nodes(graphs[0]->gf),
                median(ms), steps);
    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
    return 0;
}

} // namespace

int main(int argc, char ** argv) {
    ggml_log_set(quiet_log, nullptr); // the planner's per-graph debug lines would interleave with the table
    if (argc > 1 && std::string(argv[1]) == "--per-step") {
        per_step_table();
        return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "--side-by-side") {
        return side_by_side(std::atoi(argv[2]));
    }
    if (argc > 3 && std::string(argv[1]) == "--moved") {
        return moved_only(std::atoi(argv[2]), std::atoi(argv[3]));
    }
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    std::printf("compute buffer planned by ggml_gallocr (CPU buffer type) vs the lower bound (most bytes alive at once)\n");
    std::printf("bound and greedy count INPUT tensors as live from the start to their last reader and OUTPUT tensors\n");
    std::printf("to the end of the graph, as the allocator's semantics require\n");
    std::printf("greedy = upstream-style placement at creation time (re-implemented in this benchmark)\n\n");
    std::printf("| %-24s | %6s | %10s | %10s | %6s | %10s | %6s | %8s |\n", "graph", "nodes", "ours MiB",
                "bound MiB", "ratio", "greedy MiB", "ratio", "plan ms");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(26, '-').c_str(), std::string(8, '-').c_str(),
                std::string(12, '-').c_str(), std::string(12, '-').c_str(), std::string(8, '-').c_str(),
                std::string(12, '-').c_str(), std::string(8, '-').c_str(), std::string(10, '-').c_str());
    bool ok = true;
    const std::vector<Case> cases = {
        {"gpt2-4L, 1 token", [](Built & b, int) { build_gpt2(b, 1, 511); }, 0},
        {"gpt2-4L, 512 tokens", [](Built & b, int) { build_gpt2(b, 512, 0); }, 0},
        {"llama-7B-4L, 1 token", [](Built & b, int) { build_llama(b, LlamaShape{}, 1, 511); }, 0},
        {"llama-7B-4L, 512 tokens", [](Built & b, int) { build_llama(b, LlamaShape{}, 512, 0); }, 0},
        {"llama7B-4L 1t, in/layer", [](Built & b, int) { build_llama(b, LlamaShape{}, 1, 511, true); }, 0},
        {"llama7B-4L 512t, in/layer", [](Built & b, int) { build_llama(b, LlamaShape{}, 512, 0, true); }, 0},
        {"llama1B-16L 32t, in/layer", [](Built & b, int) {
             LlamaShape s;
             s.n_embd = 2048, s.n_head = 32, s.n_head_kv = 8, s.n_ff = 8192, s.n_layer = 16;
             build_llama(b, s, 32, 224, true);
         }, 0},
        {"mlp 784-4x2048-10, b256", build_mlp, 256},
        {"cnn vgg-like 112px, b8", build_cnn, 8},
        {"unet 128px, b2", build_unet, 2},
    };
    for (const Case & c : cases) {
        Built b;
        c.build(b, c.arg);
        ok = report(c.name, b.gf, buft) && ok;
    }
    // planning time at scale: a deep LLaMA-style graph with more than 10,000 nodes, and worst cases
    LlamaShape deep;
    deep.n_embd = 512, deep.n_head = 8, deep.n_head_kv = 8, deep.n_ff = 1408, deep.n_vocab = 1000, deep.n_layer = 400;
    Built b;
    build_llama(b, deep, 32, 96);
    ok = report("llama-deep 400L, 32 tok", b.gf, buft) && ok;
    Built all_out, train;
    build_long_lived(all_out, 0);
    ok = report("chain 10k, all outputs", all_out.gf, buft) && ok;
    build_long_lived(train, 1);
    ok = report("fwd+bwd-like 15k", train.gf, buft) && ok;
    std::printf("\ntarget: ours <= 1.05 x bound for every graph: %s\n", ok ? "met" : "NOT met");

    per_step_table();
    return ok ? 0 : 1;
}
