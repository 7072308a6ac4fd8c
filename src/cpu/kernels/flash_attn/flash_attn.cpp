// FLASH_ATTN_EXT: softmax(q k^T * scale + slope*mask) v per head, with online softmax (one pass over the keys).
// q: [D, n_q, n_head, ne3] F32; k: [D, n_kv, n_head_kv, ne3]; v: [Dv, n_kv, n_head_kv, ne3] (F32/F16/BF16 or a
// block format); mask: [n_kv, >= n_q, ne32, ne33] F16/F32 (optional); sinks (src[4]): F32 [n_head] (optional).
// dst: F32 [Dv, n_head, n_q, ne3]. op_params: scale, max_bias, logit_softcap (f32), prec.
//
// Work items: up to kRows query rows (queries x heads) of one GQA group, i.e. sharing one K/V head. An item walks
// the keys in tiles of kTile: the tile's K and V rows are converted to float once and used by all of its rows
// (scores = Q K^T and O += P V are small GEMMs, tile.h), with a running maximum and sum per row. Tiles
// where the mask hides every key from every row are skipped without reading K or V. The keys are cut into chunks
// of kChunk: each chunk starts from a fresh state, and its partial (max, sum, O) is folded into the row's result in
// chunk order (fold_chunk). When the node has few items (decoding: one query), the chunks of an item are computed
// by different threads and folded after a barrier; otherwise one thread computes an item's chunks one after the
// other, folding as it goes.
//
// Scores are dot products along the head dimension, reduced by one tree (tile.h: the same operations for one
// query row as for 64, K rows read as f32 or straight from f16). Items of few rows (decoding) read V rows of f16 in
// place, converted inside the tile kernel (they stream from memory once); the results are the same.
//
// Batch invariance and determinism: the items, tiles and chunks follow from the shapes alone, and a row's
// arithmetic -- its scores, its online softmax over the tiles of each chunk, the folding of its chunks -- is the
// same whatever rows share its item, however many queries the node has and whichever thread computes it. So a
// query's output is the same bits whether it comes alone (decoding) or in a batch of 512, and on any thread count.
// (A tile that the mask hides from this row but not from others in its item changes nothing: its scores are -inf,
// its weights 0.)
//
// Scratch (work_size): per thread the item's Q rows, the K and V tiles, scores and mask values, O, maxima and sums,
// and the folded state of the item's rows; when the chunks of an item are computed by different threads, one
// partial (max, sum, O) per item and chunk, shared by the threads.
#include "cpu/kernels/flash_attn/tile.h"
#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/dequant.h"
#include "cpu/kernels/families.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace switchyard::cpu::kernels {

namespace {

constexpr int64_t kRows     = 64; // query rows per item (the K / V tile's conversion is shared by them)
constexpr int64_t kTile     = 64; // keys per tile
// Keys per chunk: a constant, so that a row's arithmetic depends on no other row. Measured decoding against 4,096
// and 32,768 f16 keys (2 threads): 256 and 512 lose 4-9 % to the merges, 1,024 is even with 2,048.
constexpr int64_t kChunk    = 1024;
constexpr int64_t kMinUnits = 16; // below this many items, the chunks of an item go to different threads
// Items of fewer rows read V rows of f16 in place (each is used by few rows: converting it into scratch first
// would cost more than the accumulation).
constexpr int64_t kStreamRows = 8;

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

// How the node is cut into items and chunks, and where its scratch lies; from the shapes alone.
struct Plan {
    int64_t D, Dv, n_q, n_kv;
    int64_t group;              // query heads per K/V head
    int64_t nh, nq;             // heads and queries per item
    int64_t h_blocks, q_blocks; // items per K/V head and batch: h_blocks x q_blocks
    int64_t n_items;
    int64_t n_chunks;           // key chunks of kChunk per item
    bool    parallel_chunks;    // an item's chunks are computed by different threads (few items, several chunks)
    size_t  slot_bytes;         // per thread
    size_t  partial_bytes;      // per (item, chunk) when parallel_chunks
    size_t  shared_bytes;       // all partials
};

Plan make_plan(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2];
    Plan                pl{};
    pl.D        = q->ne[0];
    pl.Dv       = v->ne[0];
    pl.n_q      = q->ne[1];
    pl.n_kv     = k->ne[1];
    pl.group    = q->ne[2] / k->ne[2];
    pl.nh       = std::min(pl.group, kRows);
    pl.nq       = std::max<int64_t>(1, kRows / pl.nh);
    pl.h_blocks = (pl.group + pl.nh - 1) / pl.nh;
    pl.q_blocks = (pl.n_q + pl.nq - 1) / pl.nq;
    pl.n_items  = q->ne[3] * k->ne[2] * pl.h_blocks * pl.q_blocks;
    pl.n_chunks        = std::max<int64_t>(1, (pl.n_kv + kChunk - 1) / kChunk);
    pl.parallel_chunks = pl.n_chunks > 1 && pl.n_items < kMinUnits;
    pl.slot_bytes      = scratch_floats(kRows * pl.D) + scratch_floats(kTile * pl.D) + scratch_floats(kTile * pl.Dv) +
                    2 * scratch_floats(kRows * kTile) + 2 * scratch_floats(kRows * pl.Dv) + 4 * scratch_floats(kRows);
    pl.partial_bytes = scratch_floats(kRows * (pl.Dv + 2));
    pl.shared_bytes  = pl.parallel_chunks ? static_cast<size_t>(pl.n_items * pl.n_chunks) * pl.partial_bytes : 0;
    return pl;
}

// One thread's scratch slot.
struct Slot {
    float * q, *k, *v, *s, *mv, *o, *m, *l;
    float * fo, *fm, *fl; // the folded state of an item's rows (chunks folded so far)
};

Slot thread_slot_of(const ComputeParams & p, const Plan & pl) {
    char *     at   = thread_slot(p, pl.shared_bytes, pl.slot_bytes);
    const auto take = [&at](int64_t n) {
        auto * f = reinterpret_cast<float *>(at);
        at += scratch_floats(n);
        return f;
    };
    Slot s{};
    s.q  = take(kRows * pl.D);
    s.k  = take(kTile * pl.D);
    s.v  = take(kTile * pl.Dv);
    s.s  = take(kRows * kTile);
    s.mv = take(kRows * kTile);
    s.o  = take(kRows * pl.Dv);
    s.m  = take(kRows);
    s.l  = take(kRows);
    s.fo = take(kRows * pl.Dv);
    s.fm = take(kRows);
    s.fl = take(kRows);
    return s;
}

// The node's tensors and parameters, and one item's rows: row r is query q0 + r % nq of head h0 + r / nq.
struct Problem {
    const ggml_tensor *     q, *k, *v, *mask, *sinks, *dst;
    float                   scale, max_bias, softcap;
    const AttnTileKernels * tk;
};

struct Item {
    int64_t iq3, ik2, ik3, h0, nh, q0, nq;
    int64_t rows() const { return nh * nq; }
    int64_t head(int64_t r) const { return h0 + r / nq; }
    int64_t query(int64_t r) const { return q0 + r % nq; }
};

Item item_at(const Problem & pb, const Plan & pl, int64_t it) {
    const int64_t qb = it % pl.q_blocks, hb = (it / pl.q_blocks) % pl.h_blocks;
    const int64_t ik2 = (it / (pl.q_blocks * pl.h_blocks)) % pb.k->ne[2], iq3 = it / (pl.q_blocks * pl.h_blocks * pb.k->ne[2]);
    Item          item{};
    item.iq3 = iq3;
    item.ik2 = ik2;
    item.ik3 = iq3 / (pb.q->ne[3] / pb.k->ne[3]);
    item.h0  = ik2 * pl.group + hb * pl.nh;
    item.nh  = std::min(pl.nh, pl.group - hb * pl.nh);
    item.q0  = qb * pl.nq;
    item.nq  = std::min(pl.nq, pl.n_q - item.q0);
    return item;
}

// The item's Q rows as floats, times scale (divided by softcap when capping: tanh then takes the scaled score).
void load_q(const Problem & pb, const Plan & pl, const Item & item, const Slot & s) {
    const float f = pb.softcap != 0.0f ? pb.scale / pb.softcap : pb.scale;
    for (int64_t r = 0; r < item.rows(); ++r) {
        float * dst = s.q + r * pl.D;
        row_to_float(pb.q->type, row_ptr(pb.q, item.query(r), item.head(r), item.iq3), dst, pl.D);
        pb.tk->scale_row(dst, pl.D, f);
    }
}

// Whether the rows of one query see the same mask values in every head (no ALiBi slope, one mask for all heads):
// s.mv then holds one row per query of the item.
bool mask_per_query(const Problem & pb) {
    return pb.max_bias <= 0.0f && pb.mask->ne[2] == 1;
}

// The row of s.mv that row r of the item reads.
int64_t mask_row(const Problem & pb, const Item & item, int64_t r) {
    return mask_per_query(pb) ? r % item.nq : r;
}

// slope * mask of the item's rows for keys [j0, j0 + nt) into s.mv (stride kTile, rows as mask_row); live[j]: some
// row sees key j. Returns whether any row sees any key.
bool load_mask(const Problem & pb, const Item & item, int64_t j0, int64_t nt, const Slot & s, bool * live) {
    const ggml_tensor * m = pb.mask;
    std::fill(live, live + nt, false);
    const int64_t n_rows = mask_per_query(pb) ? item.nq : item.rows();
    for (int64_t r = 0; r < n_rows; ++r) {
        const int64_t h    = item.head(r);
        const char *  mrow = static_cast<const char *>(m->data) + item.query(r) * m->nb[1] + (h % m->ne[2]) * m->nb[2] +
                            (item.iq3 % m->ne[3]) * m->nb[3] + j0 * m->nb[0];
        float * mv = s.mv + r * kTile;
        if (m->nb[0] == ggml_type_size(m->type)) {
            load_row(m->type, mrow, m->nb[0], mv, nt);
        } else {
            for (int64_t j = 0; j < nt; ++j) mv[j] = load_value(m->type, mrow + j * m->nb[0]);
        }
        const float slope = alibi_slope(pb.max_bias, h, pb.q->ne[2]);
        if (slope != 1.0f) {
            for (int64_t j = 0; j < nt; ++j) mv[j] *= slope;
        }
        for (int64_t j = 0; j < nt; ++j) live[j] |= mv[j] != -INFINITY;
    }
    return std::any_of(live, live + nt, [](bool b) { return b; });
}

bool all_live(const bool * live, int64_t nt) {
    return live == nullptr || std::all_of(live, live + nt, [](bool b) { return b; });
}

// Rows [j0, j0 + nt) of t (head ik2, ik3) as f16 elements when t is F16 with rows on element bounds, else nullptr;
// ld: elements between rows.
const uint16_t * f16_rows(const ggml_tensor * t, const Item & item, int64_t j0, int64_t & ld) {
    if (t->type != GGML_TYPE_F16 || t->nb[1] % sizeof(uint16_t) != 0) {
        return nullptr;
    }
    ld = static_cast<int64_t>(t->nb[1] / sizeof(uint16_t));
    return reinterpret_cast<const uint16_t *>(row_ptr(t, j0, item.ik2, item.ik3));
}

// Rows [j0, j0 + nt) of K or V (head ik2, ik3) as floats: in place for F32 rows on float bounds, else converted
// into buf. Keys no row sees are zeroed (their V rows then add 0 even when the cache holds NaN there).
const float * kv_tile(const Problem & pb, const ggml_tensor * t, const Item & item, int64_t j0, int64_t nt, int64_t n, float * buf,
                      const bool * live, int64_t & ld) {
    const bool all = all_live(live, nt);
    if (t->type == GGML_TYPE_F32 && t->nb[1] % sizeof(float) == 0 && all) {
        ld = static_cast<int64_t>(t->nb[1] / sizeof(float));
        return reinterpret_cast<const float *>(row_ptr(t, j0, item.ik2, item.ik3));
    }
    ld                 = n;
    int64_t          ld16 = 0;
    const uint16_t * h    = f16_rows(t, item, j0, ld16);
    if (h != nullptr && all) {
        pb.tk->convert_f16(h, ld16, nt, n, buf, n);
        return buf;
    }
    const size_t  row_size = ggml_row_size(t->type, n);
    const int64_t ahead    = std::min(nt, t->ne[1] - j0 - kTile); // rows of the next tile, fetched while converting
    for (int64_t j = 0; j < nt; ++j) {
        if (j < ahead) {
            const char * next = row_ptr(t, j0 + kTile + j, item.ik2, item.ik3);
            for (size_t o = 0; o < row_size; o += 64) __builtin_prefetch(next + o, 0, 2);
        }
        if (all || live[j]) {
            row_to_float(t->type, row_ptr(t, j0 + j, item.ik2, item.ik3), buf + j * n, n);
        } else {
            std::fill(buf + j * n, buf + (j + 1) * n, 0.0f);
        }
    }
    return buf;
}

// Raw scores of the item's rows against keys [j0, j0 + nt) into s.s. K rows of f16 are read in place: keys the
// mask hides may then score anything (NaN included), which finish_row replaces by -inf.
void tile_scores(const Problem & pb, const Plan & pl, const Item & item, int64_t j0, int64_t nt, const Slot & s, const bool * live) {
    const AttnTileKernels & tk  = *pb.tk;
    int64_t                 ldk = 0;
    const uint16_t *        k16 = item.rows() < kStreamRows ? f16_rows(pb.k, item, j0, ldk) : nullptr;
    if (k16 != nullptr) {
        tk.scores_f16(s.q, pl.D, item.rows(), k16, ldk, nt, pl.D, s.s, kTile);
    } else {
        const float * kr = kv_tile(pb, pb.k, item, j0, nt, pl.D, s.k, live, ldk);
        tk.scores(s.q, pl.D, item.rows(), kr, ldk, nt, pl.D, s.s, kTile);
    }
}

// One tile of keys [j0, j0 + nt) for the item's rows: scores, the online-softmax update, O += P V.
void attend_tile(const Problem & pb, const Plan & pl, const Item & item, int64_t j0, int64_t nt, const Slot & s) {
    bool live_buf[kTile];
    const bool * live = nullptr;
    if (pb.mask) {
        if (!load_mask(pb, item, j0, nt, s, live_buf)) {
            return;
        }
        live = live_buf;
    }
    const AttnTileKernels & tk = *pb.tk;
    const int64_t           R  = item.rows();
    tile_scores(pb, pl, item, j0, nt, s, live);
    for (int64_t r = 0; r < R; ++r) {
        float *       sr    = s.s + r * kTile;
        const float * mv    = live ? s.mv + mask_row(pb, item, r) * kTile : nullptr;
        const float   m_old = s.m[r];
        const float   m_new = std::max(m_old, tk.finish_row(sr, mv, nt, pb.softcap));
        if (m_new == -INFINITY) { // nothing seen yet: the row adds nothing
            std::fill(sr, sr + nt, 0.0f);
            continue;
        }
        const float sum = tk.exp_row(sr, nt, m_new);
        if (m_old == -INFINITY) {
            s.l[r] = sum;
        } else if (m_old != m_new) {
            const float corr = std::exp(m_old - m_new);
            s.l[r]           = s.l[r] * corr + sum;
            tk.scale_row(s.o + r * pl.Dv, pl.Dv, corr);
        } else {
            s.l[r] += sum;
        }
        s.m[r] = m_new;
    }
    int64_t          ldv = 0;
    const uint16_t * v16 = R >= kStreamRows || !all_live(live, nt) ? nullptr : f16_rows(pb.v, item, j0, ldv);
    if (v16 != nullptr) {
        tk.accumulate_f16(s.o, pl.Dv, R, s.s, kTile, v16, ldv, nt, pl.Dv);
    } else {
        const float * vt = kv_tile(pb, pb.v, item, j0, nt, pl.Dv, s.v, live, ldv);
        tk.accumulate(s.o, pl.Dv, R, s.s, kTile, vt, ldv, nt, pl.Dv);
    }
}

// Keys [c0, c1) for the item's rows, from a fresh state.
void attend_keys(const Problem & pb, const Plan & pl, const Item & item, int64_t c0, int64_t c1, const Slot & s) {
    load_q(pb, pl, item, s);
    std::fill(s.o, s.o + item.rows() * pl.Dv, 0.0f);
    std::fill(s.m, s.m + item.rows(), -INFINITY);
    std::fill(s.l, s.l + item.rows(), 0.0f);
    for (int64_t j0 = c0; j0 < c1; j0 += kTile) {
        attend_tile(pb, pl, item, j0, std::min(kTile, c1 - j0), s);
    }
}

// Sinks, normalisation and the output row of row r (o: its Dv accumulated values, changed).
void write_row(const Problem & pb, const Plan & pl, const Item & item, int64_t r, float m, float l, float * o) {
    const int64_t h = item.head(r);
    if (pb.sinks) {
        const float sink  = *reinterpret_cast<const float *>(static_cast<const char *>(pb.sinks->data) + h * pb.sinks->nb[0]);
        const float m_new = std::max(m, sink);
        const float corr  = m == -INFINITY ? 0.0f : std::exp(m - m_new);
        pb.tk->scale_row(o, pl.Dv, corr);
        l = l * corr + std::exp(sink - m_new);
    }
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    char *      out = static_cast<char *>(pb.dst->data) + h * pb.dst->nb[1] + item.query(r) * pb.dst->nb[2] + item.iq3 * pb.dst->nb[3];
    if (pb.dst->nb[0] == sizeof(float)) {
        pb.tk->scale_row(o, pl.Dv, inv);
        std::memcpy(out, o, static_cast<size_t>(pl.Dv) * sizeof(float));
        return;
    }
    for (int64_t d = 0; d < pl.Dv; ++d) {
        *reinterpret_cast<float *>(out + d * pb.dst->nb[0]) = o[d] * inv;
    }
}

// Partial of (item, chunk) in the shared scratch: maxima, sums, O (kRows rows each).
struct Partial {
    float * m, *l, *o;
};

Partial partial_at(const ComputeParams & p, const Plan & pl, int64_t unit) {
    auto * base = reinterpret_cast<float *>(static_cast<char *>(p.wdata) + static_cast<size_t>(unit) * pl.partial_bytes);
    return {base, base + kRows, base + 2 * kRows};
}

// Folds the partial (m_c, l_c, o_c) of a row's chunk into the row's state (m, l, o). Both ways of computing an
// item's chunks (flash_attn_compute) fold with this function, in chunk order, so a row's result does not depend on
// which is taken. The first chunk becomes the state as it is, bit for bit (a row no key reaches keeps its zero O);
// a later chunk that showed the row no key changes nothing.
void fold_chunk(bool first, float & m, float & l, float * o, float m_c, float l_c, const float * o_c, int64_t dv) {
    if (!first && m_c == -INFINITY) {
        return;
    }
    if (first || m == -INFINITY) {
        m = m_c;
        l = l_c;
        std::copy(o_c, o_c + dv, o);
        return;
    }
    const float m_new = std::max(m, m_c);
    const float f = std::exp(m - m_new), f_c = std::exp(m_c - m_new);
    l = l * f + l_c * f_c;
    for (int64_t d = 0; d < dv; ++d) {
        o[d] = o[d] * f + o_c[d] * f_c;
    }
    m = m_new;
}

// The item's rows over chunk c folded into its state (s.fm, s.fl, s.fo; the first chunk starts it).
void fold_item_chunk(const Plan & pl, const Item & item, int64_t c, const Slot & s) {
    for (int64_t r = 0; r < item.rows(); ++r) {
        fold_chunk(c == 0, s.fm[r], s.fl[r], s.fo + r * pl.Dv, s.m[r], s.l[r], s.o + r * pl.Dv, pl.Dv);
    }
}

// Folds the chunks of one item, computed by several threads, in chunk order and writes its rows.
void merge_item(const ComputeParams & p, const Problem & pb, const Plan & pl, int64_t it, const Slot & s) {
    const Item item = item_at(pb, pl, it);
    for (int64_t r = 0; r < item.rows(); ++r) {
        float   m = -INFINITY, l = 0.0f;
        float * o = s.fo;
        for (int64_t c = 0; c < pl.n_chunks; ++c) {
            const Partial part = partial_at(p, pl, it * pl.n_chunks + c);
            fold_chunk(c == 0, m, l, o, part.m[r], part.l[r], part.o + r * pl.Dv, pl.Dv);
        }
        write_row(pb, pl, item, r, m, l, o);
    }
}

size_t flash_attn_work_size(const ggml_tensor * dst, int n_threads) {
    const Plan pl = make_plan(dst);
    return pl.shared_bytes + static_cast<size_t>(n_threads) * pl.slot_bytes;
}

void flash_attn_compute(const ComputeParams & p, ggml_tensor * dst) {
    const Plan    pl = make_plan(dst);
    const Problem pb{dst->src[0], dst->src[1], dst->src[2], dst->src[3], dst->src[4], dst,
                     get_op_param_f32(dst, 0), get_op_param_f32(dst, 1), get_op_param_f32(dst, 2), &attn_tile_kernels()};
    const Slot s = thread_slot_of(p, pl);
    if (pl.parallel_chunks) {
        // a contiguous run of units per thread: consecutive chunks of an item stream consecutive K / V rows
        const Range units = thread_range(p, pl.n_items * pl.n_chunks);
        for (int64_t u = units.begin; u < units.end; ++u) {
            const int64_t it = u / pl.n_chunks, c0 = (u % pl.n_chunks) * kChunk;
            const Item    item = item_at(pb, pl, it);
            attend_keys(pb, pl, item, c0, std::min(pl.n_kv, c0 + kChunk), s);
            const Partial part = partial_at(p, pl, u);
            std::copy(s.m, s.m + item.rows(), part.m);
            std::copy(s.l, s.l + item.rows(), part.l);
            std::copy(s.o, s.o + item.rows() * pl.Dv, part.o);
        }
        barrier(p);
        for (int64_t it = p.ith; it < pl.n_items; it += p.nth) merge_item(p, pb, pl, it, s);
        return;
    }
    for (int64_t it = p.ith; it < pl.n_items; it += p.nth) {
        const Item item = item_at(pb, pl, it);
        for (int64_t c = 0; c < pl.n_chunks; ++c) {
            attend_keys(pb, pl, item, c * kChunk, std::min(pl.n_kv, (c + 1) * kChunk), s);
            fold_item_chunk(pl, item, c, s);
        }
        for (int64_t r = 0; r < item.rows(); ++r) {
            write_row(pb, pl, item, r, s.fm[r], s.fl[r], s.fo + r * pl.Dv);
        }
    }
}

bool flash_attn_supports(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3], *sinks = dst->src[4];
    return q && k && v && dst->type == GGML_TYPE_F32 && row_convertible(q->type) && row_convertible(k->type) && row_convertible(v->type) &&
           k->ne[0] == q->ne[0] && q->ne[2] % k->ne[2] == 0 && q->ne[3] % k->ne[3] == 0 &&
           (!mask || mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && (!sinks || sinks->type == GGML_TYPE_F32) &&
           q->nb[0] == ggml_type_size(q->type) && k->nb[0] == ggml_type_size(k->type) && v->nb[0] == ggml_type_size(v->type);
}

} // namespace

KernelInfo flash_attn(ggml_op op) {
    if (op == GGML_OP_FLASH_ATTN_EXT) {
        return KernelInfo{flash_attn_compute, nullptr, flash_attn_work_size, flash_attn_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
