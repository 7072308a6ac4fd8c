// FLASH_ATTN_EXT: softmax(q k^T * scale + slope*mask) v per head, with online softmax (one pass over the keys).
// q: [D, n_q, n_head, ne3] F32; k: [D, n_kv, n_head_kv, ne3]; v: [Dv, n_kv, n_head_kv, ne3] (F32/F16/BF16 or a
// block format); mask: [n_kv, >= n_q, ne32, ne33] F16/F32 (optional); sinks (src[4]): F32 [n_head] (optional).
// dst: F32 [Dv, n_head, n_q, ne3]. op_params: scale, max_bias, logit_softcap (f32), prec.
// A work item is a block of queries of all heads of one GQA group; K and V are converted to float once per tile
// of kTileKv keys and shared by the item's rows; the vector steps are the SoftmaxRowKernels (softmax_rows.h).
#include "cpu/kernels/families.h"
#include "cpu/kernels/softmax_rows.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace switchyard::cpu::kernels {

namespace {

bool row_type_ok(ggml_type t) {
    if (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) {
        return true;
    }
    const ggml_type_traits * tt = ggml_get_type_traits(t);
    return tt && tt->is_quantized && tt->to_float;
}

void row_to_float(ggml_type type, const void * src, float * dst, int64_t n) {
    switch (type) {
        case GGML_TYPE_F32:  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float)); return;
        case GGML_TYPE_F16:  fp16_to_fp32_row(static_cast<const uint16_t *>(src), dst, n); return;
        case GGML_TYPE_BF16: bf16_to_fp32_row(static_cast<const uint16_t *>(src), dst, n); return;
        default:             ggml_get_type_traits(type)->to_float(src, dst, n); return;
    }
}

float load_mask(const ggml_tensor * m, const char * p) {
    return m->type == GGML_TYPE_F16 ? fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p)) : *reinterpret_cast<const float *>(p);
}

float alibi_slope(float max_bias, int64_t head, int64_t n_head) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const int64_t n_head_log2 = int64_t(1) << static_cast<int>(std::floor(std::log2(static_cast<double>(n_head))));
    const float   m0          = std::pow(2.0f, -max_bias / static_cast<float>(n_head_log2));
    const float   m1          = std::pow(2.0f, -(max_bias / 2.0f) / static_cast<float>(n_head_log2));
    return head < n_head_log2 ? std::pow(m0, static_cast<float>(head + 1))
                              : std::pow(m1, static_cast<float>(2 * (head - n_head_log2) + 1));
}

// Rows (query, head) processed together: they share each converted K/V tile. The heads of a GQA group share
// their K/V head, so a work item takes all heads of a group and kRows / group queries of each.
constexpr int64_t kRows   = 64;
constexpr int64_t kTileKv = 64;

// Per-thread buffers for one work item: its query rows and their accumulators and online-softmax state, the mask
// values and scores of the current tile per row (stride kTileKv), and the converted K and V tile.
struct Scratch {
    std::vector<float>   q, acc, mv, sc, k, v;
    std::vector<float>   m;
    std::vector<double>  sum;
    std::vector<char>    live;
    std::vector<int64_t> iq1, iq2;
};

// The part of one FLASH_ATTN_EXT node that all work items share.
struct Problem {
    const ggml_tensor * q, *k, *v, *mask, *sinks, *dst;
    float               scale, max_bias, softcap;
    int64_t             D, Dv, n_kv;
};

// Mask values (slope * mask) of the item's nr rows for keys [j0, j0 + nt) into s.mv; s.live[r] says whether row
// r has any key left unmasked there. Returns whether any row has.
bool load_mask_tile(const Problem & pb, int64_t nr, int64_t iq3, int64_t j0, int64_t nt, Scratch & s) {
    const ggml_tensor * mask = pb.mask;
    bool                any  = false;
    for (int64_t r = 0; r < nr; ++r) {
        float * mv = s.mv.data() + r * kTileKv;
        if (!mask) {
            std::fill(mv, mv + nt, 0.0f);
            s.live[static_cast<size_t>(r)] = 1;
            any                            = true;
            continue;
        }
        const int64_t iq1 = s.iq1[static_cast<size_t>(r)], iq2 = s.iq2[static_cast<size_t>(r)];
        const char *  mrow = static_cast<const char *>(mask->data) + iq1 * mask->nb[1] + (iq2 % mask->ne[2]) * mask->nb[2] +
                            (iq3 % mask->ne[3]) * mask->nb[3] + j0 * mask->nb[0];
        if (mask->type == GGML_TYPE_F16 && mask->nb[0] == sizeof(uint16_t)) {
            fp16_to_fp32_row(reinterpret_cast<const uint16_t *>(mrow), mv, nt);
        } else {
            for (int64_t j = 0; j < nt; ++j) mv[j] = load_mask(mask, mrow + j * mask->nb[0]);
        }
        const float slope = alibi_slope(pb.max_bias, iq2, pb.q->ne[2]);
        bool        live  = false;
        if (slope != 1.0f) {
            for (int64_t j = 0; j < nt; ++j) mv[j] = slope * mv[j];
        }
        for (int64_t j = 0; j < nt; ++j) live |= mv[j] != -INFINITY;
        s.live[static_cast<size_t>(r)] = live ? 1 : 0;
        any                            = any || live;
    }
    return any;
}

// Final scores of a row from its raw dot products: * scale, soft-capped, plus the mask value (-inf where the mask
// is -inf). Returns their maximum.
float finish_scores(const Problem & pb, const SoftmaxRowKernels & rk, float * sc, const float * mv, int64_t nt) {
    if (pb.softcap == 0.0f) {
        return rk.mask_scores(sc, mv, sc, nt, pb.scale);
    }
    for (int64_t j = 0; j < nt; ++j) {
        const float score = pb.softcap * std::tanh(sc[j] * pb.scale / pb.softcap);
        sc[j]             = mv[j] == -INFINITY ? -INFINITY : score + mv[j];
    }
    return rk.max(sc, nt);
}

// One tile of keys [j0, j0 + nt) for the item's nr rows (K and V of the tile already in s.k, s.v).
void attend_tile(const Problem & pb, int64_t nr, int64_t nt, Scratch & s) {
    const SoftmaxRowKernels & rk = softmax_row_kernels();
    rk.dot_rows(s.q.data(), nr, pb.D, s.k.data(), nt, pb.D, pb.D, s.sc.data(), kTileKv);
    for (int64_t r = 0; r < nr; ++r) {
        if (!s.live[static_cast<size_t>(r)]) {
            continue;
        }
        float * sc = s.sc.data() + r * kTileKv;
        float &     M     = s.m[static_cast<size_t>(r)];
        const float m_new = std::max(M, finish_scores(pb, rk, sc, s.mv.data() + r * kTileKv, nt));
        if (m_new == -INFINITY) {
            continue;
        }
        const float  corr = std::exp(M - m_new); // 0 when M was -inf
        const double part = rk.exp_sum(sc, sc, nt, m_new);
        rk.acc_rows(s.acc.data() + r * pb.Dv, pb.Dv, corr, sc, s.v.data(), nt, pb.Dv);
        s.sum[static_cast<size_t>(r)] = s.sum[static_cast<size_t>(r)] * corr + part;
        M                             = m_new;
    }
}

// Sinks, normalisation and the output rows of the item's nr rows.
void write_rows(const Problem & pb, int64_t nr, int64_t iq3, Scratch & s) {
    const SoftmaxRowKernels & rk = softmax_row_kernels();
    for (int64_t r = 0; r < nr; ++r) {
        const int64_t iq1 = s.iq1[static_cast<size_t>(r)], iq2 = s.iq2[static_cast<size_t>(r)];
        float *       acc = s.acc.data() + r * pb.Dv;
        double &      sum = s.sum[static_cast<size_t>(r)];
        if (pb.sinks) {
            const float M     = s.m[static_cast<size_t>(r)];
            const float sink  = *reinterpret_cast<const float *>(static_cast<const char *>(pb.sinks->data) + iq2 * pb.sinks->nb[0]);
            const float m_new = std::max(M, sink);
            const float corr  = std::exp(M - m_new);
            rk.scale(acc, pb.Dv, corr);
            sum = sum * corr + std::exp(sink - m_new);
        }
        const float inv = sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f;
        char *      out = static_cast<char *>(pb.dst->data) + iq2 * pb.dst->nb[1] + iq1 * pb.dst->nb[2] + iq3 * pb.dst->nb[3];
        for (int64_t d = 0; d < pb.Dv; ++d) {
            *reinterpret_cast<float *>(out + d * pb.dst->nb[0]) = acc[d] * inv;
        }
    }
}

// One work item: queries [iq1, iq1 + nq) of the heads [h0, h0 + nh) (one GQA group, K/V head ik2), batch iq3.
void attend_item(const Problem & pb, int64_t iq1, int64_t nq, int64_t h0, int64_t nh, int64_t iq3, Scratch & s) {
    const ggml_tensor * q = pb.q, *k = pb.k, *v = pb.v;
    const int64_t       ik2 = h0 / (q->ne[2] / k->ne[2]), ik3 = iq3 / (q->ne[3] / k->ne[3]);
    const int64_t       nr  = nq * nh;
    for (int64_t r = 0; r < nr; ++r) {
        const int64_t i1 = iq1 + r % nq, i2 = h0 + r / nq;
        s.iq1[static_cast<size_t>(r)] = i1;
        s.iq2[static_cast<size_t>(r)] = i2;
        row_to_float(q->type, static_cast<const char *>(q->data) + i1 * q->nb[1] + i2 * q->nb[2] + iq3 * q->nb[3], s.q.data() + r * pb.D,
                     pb.D);
    }
    std::fill(s.acc.begin(), s.acc.end(), 0.0f);
    std::fill(s.m.begin(), s.m.end(), -INFINITY);
    std::fill(s.sum.begin(), s.sum.end(), 0.0);
    for (int64_t j0 = 0; j0 < pb.n_kv; j0 += kTileKv) {
        const int64_t nt = std::min(kTileKv, pb.n_kv - j0);
        if (!load_mask_tile(pb, nr, iq3, j0, nt, s)) {
            continue;
        }
        for (int64_t j = 0; j < nt; ++j) {
            row_to_float(k->type, static_cast<const char *>(k->data) + (j0 + j) * k->nb[1] + ik2 * k->nb[2] + ik3 * k->nb[3],
                         s.k.data() + j * pb.D, pb.D);
            row_to_float(v->type, static_cast<const char *>(v->data) + (j0 + j) * v->nb[1] + ik2 * v->nb[2] + ik3 * v->nb[3],
                         s.v.data() + j * pb.Dv, pb.Dv);
        }
        attend_tile(pb, nr, nt, s);
    }
    write_rows(pb, nr, iq3, s);
}

void flash_attn_compute(const ComputeParams & p, ggml_tensor * dst) {
    Problem pb{dst->src[0], dst->src[1], dst->src[2], dst->src[3], dst->src[4], dst, get_op_param_f32(dst, 0),
               get_op_param_f32(dst, 1), get_op_param_f32(dst, 2), 0, 0, 0};
    pb.D    = pb.q->ne[0];
    pb.Dv   = pb.v->ne[0];
    pb.n_kv = pb.k->ne[1];
    // heads per item: the GQA group, split when it alone exceeds kRows
    const int64_t group = pb.q->ne[2] / pb.k->ne[2];
    int64_t       nh    = std::min(group, kRows);
    while (group % nh != 0) --nh;
    const int64_t bq = std::max<int64_t>(1, kRows / nh), n_hblocks = pb.q->ne[2] / nh;
    const size_t  rows = static_cast<size_t>(bq * nh);
    Scratch       s;
    s.q.resize(rows * static_cast<size_t>(pb.D));
    s.acc.resize(rows * static_cast<size_t>(pb.Dv));
    s.mv.resize(rows * static_cast<size_t>(kTileKv));
    s.sc.resize(rows * static_cast<size_t>(kTileKv));
    s.k.resize(static_cast<size_t>(kTileKv * pb.D));
    s.v.resize(static_cast<size_t>(kTileKv * pb.Dv));
    s.m.resize(rows);
    s.sum.resize(rows);
    s.live.resize(rows);
    s.iq1.resize(rows);
    s.iq2.resize(rows);
    const int64_t n_q = pb.q->ne[1], n_qblocks = (n_q + bq - 1) / bq;
    const int64_t n_items = n_qblocks * n_hblocks * pb.q->ne[3];
    for (int64_t it = p.ith; it < n_items; it += p.nth) {
        const int64_t ib = it % n_qblocks, ih = (it / n_qblocks) % n_hblocks, iq3 = it / (n_qblocks * n_hblocks);
        const int64_t iq1 = ib * bq;
        attend_item(pb, iq1, std::min(bq, n_q - iq1), ih * nh, nh, iq3, s);
    }
}

bool flash_attn_supports(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3], *sinks = dst->src[4];
    return q && k && v && dst->type == GGML_TYPE_F32 && row_type_ok(q->type) && row_type_ok(k->type) && row_type_ok(v->type) &&
           k->ne[0] == q->ne[0] && q->ne[2] % k->ne[2] == 0 && q->ne[3] % k->ne[3] == 0 &&
           (!mask || mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && (!sinks || sinks->type == GGML_TYPE_F32) &&
           q->nb[0] == ggml_type_size(q->type) && k->nb[0] == ggml_type_size(k->type) && v->nb[0] == ggml_type_size(v->type);
}

} // namespace

KernelInfo attention(ggml_op op) {
    if (op == GGML_OP_FLASH_ATTN_EXT) {
        return KernelInfo{flash_attn_compute, nullptr, nullptr, flash_attn_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
