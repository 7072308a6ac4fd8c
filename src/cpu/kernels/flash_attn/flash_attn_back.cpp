// FLASH_ATTN_BACK: the gradients of the legacy attention out = softmax(mask(k^T q * scale)) applied to v, with
// scale = 1/sqrt(D). Shapes and op_params as the constructor (core/ops/flash_attn.cpp): q [D, N, n_head, ne3],
// k [D, M, n_head_kv, ne3], v [M, D, n_head_kv, ne3] (v transposed: element (j, c) is value c of key j),
// d [D, N, n_head, ne3] the gradient of out; head h of q uses head h % n_head_kv of k and v; op_params[0] masked
// (query i sees keys 0 .. M - N + i). All F32 with adjacent elements in each row (rows may be strided).
//
// dst packs the gradients of q, k and v, each contiguous with its tensor's shape, at byte offsets 0,
// GGML_PAD(4*|q|, GGML_MEM_ALIGN) and that plus GGML_PAD(4*|k|, GGML_MEM_ALIGN); the padding is zero.
//
// Per query row i of head h (kv head g = h % n_head_kv), with the softmax recomputed from q and k:
//   s_j  = scale * k_j . q_i for the visible keys j (the others are masked out)
//   p    = softmax(s)
//   dp_j = v_j . d_i   (v_j: column j of v's [M, D] layout, i.e. the D values of key j)
//   ds_j = scale * p_j * (dp_j - p . dp)
//   grad q_i += sum_j ds_j k_j,   grad k_j += ds_j q_i,   grad v(j, :) += p_j d_i
// Threads split the (kv head, ne3) pairs: a pair's thread owns the gradient of its k and v head and of every q head
// that reads it, so no sum crosses threads and the result does not depend on the thread count. Scratch: p and
// ds, M floats each, per thread.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include <cmath>

namespace switchyard::cpu::kernels {

namespace {

struct Layout {
    int64_t D, N, M, n_head, n_head_kv, ne3;
    size_t  bytes_q, bytes_k;  // of the q gradient and of the k (and v) gradient
    size_t  offs_k, offs_v;    // byte offsets of the k and v gradients in dst
};

Layout layout_of(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1];
    Layout              l{q->ne[0], q->ne[1], k->ne[1], q->ne[2], k->ne[2], q->ne[3], 0, 0, 0, 0};
    l.bytes_q = static_cast<size_t>(ggml_nelements(q)) * sizeof(float);
    l.bytes_k = static_cast<size_t>(ggml_nelements(k)) * sizeof(float); // v has as many elements as k
    l.offs_k  = GGML_PAD(l.bytes_q, GGML_MEM_ALIGN);
    l.offs_v  = l.offs_k + GGML_PAD(l.bytes_k, GGML_MEM_ALIGN);
    return l;
}

const float * frow(const ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return reinterpret_cast<const float *>(row_ptr(t, i1, i2, i3));
}

float dot(const float * a, const float * b, int64_t n) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        acc += static_cast<double>(a[i]) * b[i];
    }
    return static_cast<float>(acc);
}

// The packed gradients of one (kv head g, i3) pair and the scratch of its thread.
struct PairGrads {
    float * gq; // q's gradient, all heads of this i3: [D, N, n_head]
    float * gk; // k's gradient of head g: [D, M]
    float * gv; // v's gradient of head g: [M, D]
    float * p;  // scratch: softmax row
    float * ds; // scratch: gradient of the scores
};

// Softmax of the scaled scores of query row i of head h over the first n_keys keys into p.
void softmax_row(const ggml_tensor * q, const ggml_tensor * k, const Layout & l, int64_t i, int64_t h, int64_t g,
                 int64_t i3, int64_t n_keys, float scale, float * p) {
    const float * qi = frow(q, i, h, i3);
    float         mx = -INFINITY;
    for (int64_t j = 0; j < n_keys; ++j) {
        p[j] = scale * dot(frow(k, j, g, i3), qi, l.D);
        mx   = std::max(mx, p[j]);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n_keys; ++j) {
        p[j] = std::exp(p[j] - mx);
        sum += p[j];
    }
    const auto inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < n_keys; ++j) {
        p[j] *= inv;
    }
}

// Adds the contributions of query row i of head h to the gradients of its pair.
void query_row(const ggml_tensor * dst, const Layout & l, bool masked, int64_t i, int64_t h, int64_t g, int64_t i3,
               const PairGrads & pg) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *d = dst->src[3];
    const float         scale  = 1.0f / std::sqrt(static_cast<float>(l.D));
    const int64_t       n_keys = masked ? std::min(l.M, l.M - l.N + i + 1) : l.M;
    if (n_keys <= 0) {
        return;
    }
    softmax_row(q, k, l, i, h, g, i3, n_keys, scale, pg.p);
    const float * di = frow(d, i, h, i3);
    std::fill(pg.ds, pg.ds + n_keys, 0.0f);
    for (int64_t c = 0; c < l.D; ++c) { // row c of v holds value c of every key
        const float * vc = frow(v, c, g, i3);
        for (int64_t j = 0; j < n_keys; ++j) {
            pg.ds[j] += vc[j] * di[c];
        }
    }
    const float p_dp = dot(pg.p, pg.ds, n_keys);
    for (int64_t j = 0; j < n_keys; ++j) {
        pg.ds[j] = scale * pg.p[j] * (pg.ds[j] - p_dp);
    }
    const float * qi  = frow(q, i, h, i3);
    float *       gqi = pg.gq + (h * l.N + i) * l.D;
    for (int64_t j = 0; j < n_keys; ++j) {
        const float * kj  = frow(k, j, g, i3);
        float *       gkj = pg.gk + j * l.D;
        for (int64_t c = 0; c < l.D; ++c) {
            gqi[c] += pg.ds[j] * kj[c];
            gkj[c] += pg.ds[j] * qi[c];
        }
    }
    for (int64_t c = 0; c < l.D; ++c) {
        float * gvc = pg.gv + c * l.M; // row c of v's [M, D] layout
        for (int64_t j = 0; j < n_keys; ++j) {
            gvc[j] += pg.p[j] * di[c];
        }
    }
}

size_t attn_back_slot_bytes(const Layout & l) {
    return 2 * scratch_floats(l.M);
}

size_t attn_back_work_size(const ggml_tensor * dst, int n_threads) {
    return static_cast<size_t>(n_threads) * attn_back_slot_bytes(layout_of(dst));
}

void attn_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const Layout l      = layout_of(dst);
    const bool   masked = op_i32(dst, 0) != 0;
    char *       base   = static_cast<char *>(dst->data);
    if (p.ith == 0) { // the padding after each gradient
        std::memset(base + l.bytes_q, 0, l.offs_k - l.bytes_q);
        std::memset(base + l.offs_k + l.bytes_k, 0, l.offs_v - l.offs_k - l.bytes_k);
        std::memset(base + l.offs_v + l.bytes_k, 0, ggml_nbytes(dst) - l.offs_v - l.bytes_k);
    }
    char *        slot  = thread_slot(p, 0, attn_back_slot_bytes(l));
    const Range   pairs = thread_range(p, l.n_head_kv * l.ne3);
    const int64_t per_q = l.D * l.N; // floats of one q head's gradient
    const int64_t per_k = l.D * l.M; // floats of one k (or v) head's gradient
    for (int64_t pair = pairs.begin; pair < pairs.end; ++pair) {
        const int64_t g = pair % l.n_head_kv, i3 = pair / l.n_head_kv;
        PairGrads     pg{reinterpret_cast<float *>(base) + i3 * l.n_head * per_q,
                     reinterpret_cast<float *>(base + l.offs_k) + pair * per_k,
                     reinterpret_cast<float *>(base + l.offs_v) + pair * per_k, reinterpret_cast<float *>(slot),
                     reinterpret_cast<float *>(slot + scratch_floats(l.M))};
        std::fill(pg.gk, pg.gk + per_k, 0.0f);
        std::fill(pg.gv, pg.gv + per_k, 0.0f);
        for (int64_t h = g; h < l.n_head; h += l.n_head_kv) {
            std::fill(pg.gq + h * per_q, pg.gq + (h + 1) * per_q, 0.0f);
            for (int64_t i = 0; i < l.N; ++i) {
                query_row(dst, l, masked, i, h, g, i3, pg);
            }
        }
    }
}

bool attn_back_supports(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *d = dst->src[3];
    if (!q || !k || !v || !d || dst->type != GGML_TYPE_F32 || !ggml_is_contiguous(dst)) {
        return false;
    }
    for (const ggml_tensor * t : {q, k, v, d}) {
        if (!is_f32_rows(t)) {
            return false;
        }
    }
    const bool shapes = k->ne[0] == q->ne[0] && v->ne[0] == k->ne[1] && v->ne[1] == q->ne[0] && v->ne[2] == k->ne[2] &&
                        k->ne[2] > 0 && q->ne[2] % k->ne[2] == 0 && k->ne[3] == q->ne[3] && v->ne[3] == q->ne[3] &&
                        ggml_are_same_shape(d, q);
    const Layout l = layout_of(dst);
    return shapes && ggml_nbytes(dst) >= l.offs_v + l.bytes_k;
}

} // namespace

KernelInfo flash_attn_back(ggml_op op) {
    if (op == GGML_OP_FLASH_ATTN_BACK) {
        return KernelInfo{attn_back_compute, nullptr, attn_back_work_size, attn_back_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
