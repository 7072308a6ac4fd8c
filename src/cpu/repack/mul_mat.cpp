// MUL_MAT from repacked weights (mul_mat.h).
#include "cpu/repack/mul_mat.h"

#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/expert_pairs.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/repack/format.h"

#include <algorithm>
#include <cstring>

namespace switchyard::cpu::repack {

namespace {

using quants::kGemmMaxCols;

size_t line(size_t n) { return (n + 63) / 64 * 64; }

quants::GemmFormat format_of(const ggml_tensor * dst) { return quants::gemm_format(dst->src[0]->type); }

// Chunks of `cols` columns per slice (i12, i13) of src1.
int64_t chunks_per_slice(const ggml_tensor * src1, int64_t cols = kGemmMaxCols) { return (src1->ne[1] + cols - 1) / cols; }

// The columns a chunk interleaves: as many as a slice of src1 has when they are fewer than 8 (a narrow chunk, gemm.h:
// decoding, or a few tokens at once, whose tiles then read no activation bytes of absent columns), else the GEMM's 8.
int chunk_cols(const ggml_tensor * src1) {
    return src1->ne[1] < kGemmMaxCols ? static_cast<int>(src1->ne[1]) : kGemmMaxCols;
}

size_t columns_bytes(const quants::GemmFormat & f, const ggml_tensor * src1) {
    return line(quants::gemm_chunk_bytes(f, src1->ne[0], chunk_cols(src1)) *
                static_cast<size_t>(chunks_per_slice(src1) * src1->ne[2] * src1->ne[3]));
}

size_t act_bytes(const quants::GemmFormat & f, int64_t k) { return line(ggml_row_size(f.act_type, k)); }

// Passes are expanded into the GEMM's panels and run with its tile (mul_mat.h).
bool expands(const ggml_tensor * dst) {
    return dst->src[1]->ne[1] > kMulMatExpandAbove && quants::gemm_tile_fast() != nullptr;
}

// Panels a thread keeps at once: about 512 KiB of stored panels, or half the L2 of expanded ones (`wide`, as the
// plain GEMM, src/cpu/kernels/mul_mat/gemm.cpp), 1..16 and no more than src0 (an expert) has.
int64_t panels_per_pass(const ggml_tensor * src0, bool wide) {
    const size_t  bytes = wide ? quants::gemm_panel_bytes(quants::gemm_format(src0->type), src0->ne[0])
                               : panel_bytes(src0->type, src0->ne[0]);
    const size_t  pass  = wide ? quants::gemm_pass_bytes() : size_t{512} << 10;
    const int64_t fit   = static_cast<int64_t>(pass / std::max<size_t>(bytes, 1));
    return std::min(std::clamp<int64_t>(fit, 1, 16), (src0->ne[1] + kPanelRows - 1) / kPanelRows);
}

int64_t panels_per_pass(const ggml_tensor * dst) { return panels_per_pass(dst->src[0], expands(dst)); }

// Bytes of one expert's panels (a 3-D src0's slice i02 starts at i02 times this, buffer_type.h).
size_t expert_bytes(const ggml_tensor * src0) {
    return static_cast<size_t>((src0->ne[1] + kPanelRows - 1) / kPanelRows) * panel_bytes(src0->type, src0->ne[0]);
}

// Per thread: the activation bytes of one row, then (expanding) one pass of expanded panels.
struct Slot {
    size_t act, panels;
    size_t total() const { return act + panels; }
};

Slot slot_layout(const ggml_tensor * dst) {
    const quants::GemmFormat f = format_of(dst);
    const int64_t            k = dst->src[0]->ne[0];
    const size_t             panels = static_cast<size_t>(panels_per_pass(dst)) * quants::gemm_panel_bytes(f, k);
    return {act_bytes(f, k), expands(dst) ? panels : 0};
}

int64_t thread_begin(const ComputeParams & p, int64_t n) {
    const int64_t per = (n + p.nth - 1) / p.nth;
    return std::min<int64_t>(per * p.ith, n);
}

int64_t thread_end(const ComputeParams & p, int64_t n) {
    const int64_t per = (n + p.nth - 1) / p.nth;
    return std::min<int64_t>(thread_begin(p, n) + per, n);
}

// Phase 1: src1 row (i11, i12, i13) becomes column i11 % cols of chunk i11 / cols of slice (i12, i13) (chunks of cb
// bytes): convert(row, chunk, column) for this thread's rows; then the barrier.
template <class Convert>
void convert_columns(const ComputeParams & p, const ggml_tensor * src1, int64_t cols, size_t cb, Convert convert) {
    const int64_t ne11 = src1->ne[1], ne12 = src1->ne[2];
    const int64_t per = chunks_per_slice(src1, cols), nrows = ggml_nrows(src1);
    for (int64_t r = thread_begin(p, nrows); r < thread_end(p, nrows); ++r) {
        const int64_t i11 = r % ne11, i12 = (r / ne11) % ne12, i13 = r / (ne11 * ne12);
        const auto *  x   = reinterpret_cast<const float *>(static_cast<const char *>(src1->data) + i11 * src1->nb[1] +
                                                         i12 * src1->nb[2] + i13 * src1->nb[3]);
        convert(x, static_cast<char *>(p.wdata) + static_cast<size_t>((r / ne11) * per + i11 / cols) * cb,
                static_cast<int>(i11 % cols));
    }
    barrier(p);
}

// Phase 2's work: items are (slice (i12, i13), panel of 16 src0 rows), a thread takes a contiguous run of them;
// visit(slice, first panel, count) for each pass of at most per_pass panels of one slice.
template <class Visit>
void each_pass(const ComputeParams & p, const ggml_tensor * dst, int64_t per_pass, Visit visit) {
    const ggml_tensor * src1     = dst->src[1];
    const int64_t       n_panels = (dst->src[0]->ne[1] + kPanelRows - 1) / kPanelRows;
    const int64_t       n_items  = src1->ne[2] * src1->ne[3] * n_panels;
    const int64_t       end      = thread_end(p, n_items);
    for (int64_t it = thread_begin(p, n_items); it < end;) {
        const int64_t slice = it / n_panels, first = it % n_panels;
        const int64_t count = std::min({per_pass, n_panels - first, end - it});
        visit(slice, first, count);
        it += count;
    }
}

// The src0 slice (expert) that dst's slice (i12, i13) multiplies: i12 / (ne12 / ne02) (repacked src0 has ne03 = 1).
int64_t src0_slice(const ggml_tensor * dst, int64_t slice) {
    const int64_t ne12 = dst->src[1]->ne[2];
    return (slice % ne12) / (ne12 / dst->src[0]->ne[2]);
}

// dst's slice (i12, i13) = slice % ne12, slice / ne12 of src1.
float * out_slice(ggml_tensor * dst, int64_t slice) {
    const int64_t ne12 = dst->src[1]->ne[2];
    return reinterpret_cast<float *>(static_cast<char *>(dst->data) + (slice % ne12) * dst->nb[2] +
                                     (slice / ne12) * dst->nb[3]);
}

// One pass: panels [first, first + count) of src0 times every chunk of a slice, eight columns per tile call (two
// panels per call where `two`: the GEMM's tile on expanded panels, gemm.h's GemmTileArgs::panel2).
struct Pass {
    const char * panels;      // the first panel: stored (tile) or expanded (gemm_tile)
    size_t       panel_bytes; // between panels
    int64_t      first, count;
    const char * chunks;      // the slice's chunks
    size_t       chunk_bytes; // between chunks
    int          chunk_cols;  // columns a chunk interleaves (chunk_cols)
    float *      out;         // the slice's dst
    bool         two = false; // two panels per tile call
};

template <class Tile>
void run_pass(const ggml_tensor * dst, const Pass & ps, Tile tile) {
    const int64_t k = dst->src[0]->ne[0], m = dst->src[0]->ne[1], n = dst->src[1]->ne[1];
    const int64_t out_col = static_cast<int64_t>(dst->nb[1] / sizeof(float));
    const int64_t step    = ps.two ? 2 : 1;
    for (int64_t c0 = 0; c0 < n; c0 += kGemmMaxCols) {
        for (int64_t j = 0; j < ps.count; j += step) {
            const int64_t        r0 = (ps.first + j) * kPanelRows;
            quants::GemmTileArgs a;
            a.panel   = ps.panels + static_cast<size_t>(j) * ps.panel_bytes;
            a.k       = k;
            a.chunk   = ps.chunks + static_cast<size_t>(c0 / kGemmMaxCols) * ps.chunk_bytes;
            a.n_cols  = static_cast<int>(std::min<int64_t>(kGemmMaxCols, n - c0));
            a.rows    = static_cast<int>(std::min<int64_t>(kPanelRows, m - r0));
            a.out     = ps.out + r0 + c0 * out_col;
            a.out_col    = out_col;
            a.chunk_cols = ps.chunk_cols;
            if (ps.two && j + 1 < ps.count) {
                quants::gemm_set_second_panel(a, ps.panels + static_cast<size_t>(j + 1) * ps.panel_bytes,
                                              m - r0 - kPanelRows);
            }
            tile(a);
        }
    }
}

// ---- the float form: the float GEMM's chunks and the float tile for every column count ----------------------------

bool float_form(const ggml_tensor * dst) { return repack_form(dst->src[0]->type) == RepackForm::kFloats; }

int64_t float_chunks_per_slice(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    return chunks_per_slice(dst->src[1], quants::gemm_float_cols(src0->type, src0->ne[0]));
}

size_t float_columns_bytes(const ggml_tensor * dst) {
    const ggml_tensor * src1 = dst->src[1];
    return line(quants::gemm_float_chunk_bytes(dst->src[0]->type, src1->ne[0]) *
                static_cast<size_t>(float_chunks_per_slice(dst) * src1->ne[2] * src1->ne[3]));
}

void float_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_type     type = src0->type;
    const int64_t       k = src0->ne[0], m = src0->ne[1], n = dst->src[1]->ne[1];
    const int           cols = quants::gemm_float_cols(type, k);
    const size_t        cb   = quants::gemm_float_chunk_bytes(type, k);
    const int64_t       per  = float_chunks_per_slice(dst);
    convert_columns(p, dst->src[1], cols, cb, [&](const float * x, char * chunk, int col) {
        quants::gemm_float_activation(type, x, k, chunk, col);
    });

    // passes of about 512 KiB of panels times every chunk of the slice (one chunk: 16 panels, as many as a tile
    // call takes for independent sums)
    const FloatTileFn tile     = float_tile(type);
    const size_t      pb       = panel_bytes(type, k);
    const int64_t     n_panels = (m + kPanelRows - 1) / kPanelRows;
    const int64_t     fit      = per == 1 ? 16 : static_cast<int64_t>((size_t{512} << 10) / pb);
    const int64_t     per_pass = std::min<int64_t>(std::clamp<int64_t>(fit, 1, 16), n_panels);
    FloatTileArgs     a;
    a.type         = type;
    a.panel_stride = pb;
    a.k            = k;
    a.out_col      = static_cast<int64_t>(dst->nb[1] / sizeof(float));
    each_pass(p, dst, per_pass, [&](int64_t slice, int64_t first, int64_t count) {
        a.panel     = static_cast<const char *>(src0->data) + static_cast<size_t>(first) * pb;
        a.n_panels  = static_cast<int>(count);
        a.last_rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - (first + count - 1) * kPanelRows));
        for (int64_t c0 = 0; c0 < n; c0 += cols) {
            a.chunk  = static_cast<const char *>(p.wdata) + static_cast<size_t>(slice * per + c0 / cols) * cb;
            a.n_cols = static_cast<int>(std::min<int64_t>(cols, n - c0));
            a.out    = out_slice(dst, slice) + first * kPanelRows + c0 * a.out_col;
            tile(a);
        }
    });
}

} // namespace

bool mul_mat_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    return src1 != nullptr && src1->type == GGML_TYPE_F32 && src1->nb[0] == sizeof(float) &&
           src1->ne[0] == src0->ne[0] && dst->type == GGML_TYPE_F32 && dst->nb[0] == sizeof(float) &&
           dst->nb[1] % sizeof(float) == 0 && dst->nb[2] % sizeof(float) == 0 && dst->nb[3] % sizeof(float) == 0;
}

size_t mul_mat_work_size(const ggml_tensor * dst, int n_threads) {
    if (float_form(dst)) {
        return float_columns_bytes(dst);
    }
    return columns_bytes(format_of(dst), dst->src[1]) + static_cast<size_t>(n_threads) * slot_layout(dst).total();
}

// Work items are (slice (i12, i13), panel of 16 src0 rows).
void mul_mat_compute(const ComputeParams & p, ggml_tensor * dst) {
    if (float_form(dst)) {
        float_compute(p, dst);
        return;
    }
    const ggml_tensor *      src0 = dst->src[0];
    const ggml_tensor *      src1 = dst->src[1];
    const quants::GemmFormat f    = format_of(dst);
    const int64_t            k    = src0->ne[0], m = src0->ne[1];
    const Slot               s    = slot_layout(dst);
    const int                cc   = chunk_cols(src1);
    const size_t             cb   = quants::gemm_chunk_bytes(f, k, cc);
    char * slot = static_cast<char *>(p.wdata) + columns_bytes(f, src1) + static_cast<size_t>(p.ith) * s.total();
    convert_columns(p, src1, kGemmMaxCols, cb, [&](const float * x, char * chunk, int col) {
        quants::gemm_activation(f, x, k, slot, chunk, col, cc);
    });

    const bool    wide   = expands(dst);
    const TileFn  tile   = tile_fast() != nullptr ? tile_fast() : tile_scalar;
    const size_t  pb     = panel_bytes(src0->type, k);
    const size_t  gpb    = quants::gemm_panel_bytes(f, k);
    const int64_t per_sl = chunks_per_slice(src1);
    each_pass(p, dst, panels_per_pass(dst), [&](int64_t slice, int64_t first, int64_t count) {
        Pass ps;
        ps.panels      = static_cast<const char *>(src0->data) + static_cast<size_t>(first) * pb +
                         static_cast<size_t>(src0_slice(dst, slice)) * expert_bytes(src0);
        ps.panel_bytes = pb;
        ps.first       = first;
        ps.count       = count;
        ps.chunks      = static_cast<const char *>(p.wdata) + static_cast<size_t>(slice * per_sl) * cb;
        ps.chunk_bytes = cb;
        ps.chunk_cols  = cc;
        ps.out         = out_slice(dst, slice);
        if (wide) {
            char * expanded = slot + s.act;
            for (int64_t j = 0; j < count; ++j) {
                const int rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - (first + j) * kPanelRows));
                expand_panel(src0->type, ps.panels + static_cast<size_t>(j) * pb, rows, k,
                             expanded + static_cast<size_t>(j) * gpb);
            }
            ps.panels      = expanded;
            ps.panel_bytes = gpb;
            ps.two         = true;
            const quants::GemmTileFn gemm_tile = quants::gemm_tile_fast();
            run_pass(dst, ps, [&](const quants::GemmTileArgs & a) { gemm_tile(f, a); });
        } else {
            run_pass(dst, ps, [&](const quants::GemmTileArgs & a) { tile(src0->type, a); });
        }
    });
}

// ---- MUL_MAT_ID of repacked experts ------------------------------------------------------------------------------

namespace {

using kernels::expert_groups_bytes;
using kernels::group_expert_pairs;

int64_t n_pairs_of(const ggml_tensor * dst) { return dst->src[2]->ne[0] * dst->src[2]->ne[1]; }

// Chunks the experts' pairs fill: ceil(pairs / 8) per expert with pairs, so at most n_pairs / 8 plus one per expert
// with pairs (no more than min(n_pairs, n_expert)).
int64_t id_chunks_max(const ggml_tensor * dst) {
    const int64_t n_pairs = n_pairs_of(dst);
    return n_pairs / kGemmMaxCols + std::min(n_pairs, dst->src[0]->ne[2]);
}

// An expert with more pairs than kMulMatExpandAbove has its passes expanded (as MUL_MAT's columns, mul_mat.h).
bool id_expands(int64_t pairs) { return pairs > kMulMatExpandAbove && quants::gemm_tile_fast() != nullptr; }

// A thread's slot: the pairs grouped by expert, each expert's first chunk (n_expert + 1), the activation bytes of one
// row (the conversion's scratch), one pass of expanded panels where an expert may expand, and the output block of a
// pass (its rows x 8 columns).
struct IdSlot {
    size_t  groups, starts, act, panels, out;
    int64_t out_col; // rows of the output block
    size_t  total() const { return groups + starts + act + panels + out; }
};

IdSlot id_slot(const ggml_tensor * dst) {
    const ggml_tensor *      as  = dst->src[0];
    const quants::GemmFormat f   = format_of(dst);
    const bool               may = id_expands(n_pairs_of(dst));
    IdSlot                   s;
    s.groups  = expert_groups_bytes(dst);
    s.starts  = line(static_cast<size_t>(as->ne[2] + 1) * sizeof(int32_t));
    s.act     = act_bytes(f, as->ne[0]);
    s.panels  = may ? static_cast<size_t>(panels_per_pass(as, true)) * quants::gemm_panel_bytes(f, as->ne[0]) : 0;
    s.out_col = std::max(panels_per_pass(as, false), may ? panels_per_pass(as, true) : 0) * kPanelRows;
    s.out     = line(static_cast<size_t>(s.out_col * kGemmMaxCols) * sizeof(float));
    return s;
}

// The work of one thread: its slot's areas and the experts' groups.
struct IdWork {
    ggml_tensor *       dst;
    const int32_t *     offset; // expert x's pairs: pairs[offset[x] .. offset[x + 1])
    const int32_t *     pairs;
    const int32_t *     start;  // expert x's chunks: start[x] .. start[x + 1]
    const char *        chunks; // all experts' chunks (the shared work memory)
    size_t              chunk_bytes;
    int                 chunk_cols; // 1 (narrow chunks) when no expert has more than one pair (decoding), else 8
    char *              expanded;
    float *             out;
    int64_t             out_col;
};

// Panels [first, first + count) of expert x times every chunk of its pairs, into the output block, each column then
// copied to its pair's place in dst.
void id_pass(const IdWork & w, int64_t x, int64_t first, int64_t count) {
    const ggml_tensor *      as = w.dst->src[0];
    const quants::GemmFormat f  = format_of(w.dst);
    const int64_t            k = as->ne[0], m = as->ne[1];
    const int32_t            pairs = w.offset[x + 1] - w.offset[x];
    const size_t             pb = panel_bytes(as->type, k), cb = w.chunk_bytes;
    const char * panels = static_cast<const char *>(as->data) + static_cast<size_t>(x) * expert_bytes(as) +
                          static_cast<size_t>(first) * pb;
    size_t       stride = pb;
    const bool   wide   = id_expands(pairs);
    if (wide) {
        const size_t gpb = quants::gemm_panel_bytes(f, k);
        for (int64_t j = 0; j < count; ++j) {
            const int rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - (first + j) * kPanelRows));
            expand_panel(as->type, panels + static_cast<size_t>(j) * pb, rows, k,
                         w.expanded + static_cast<size_t>(j) * gpb);
        }
        panels = w.expanded;
        stride = gpb;
    }
    const TileFn             tile      = tile_fast() != nullptr ? tile_fast() : tile_scalar;
    const quants::GemmTileFn gemm_tile = quants::gemm_tile_fast();
    const int64_t            r0        = first * kPanelRows;
    const int64_t            rows      = std::min(count * kPanelRows, m - r0);
    for (int32_t q = w.start[x]; q < w.start[x + 1]; ++q) {
        const int32_t c0 = (q - w.start[x]) * static_cast<int32_t>(kGemmMaxCols);
        const int     n  = static_cast<int>(std::min<int32_t>(static_cast<int32_t>(kGemmMaxCols), pairs - c0));
        for (int64_t j = 0; j < count; j += wide ? 2 : 1) { // expanded: two panels per GEMM tile call
            quants::GemmTileArgs a;
            a.panel   = panels + static_cast<size_t>(j) * stride;
            a.k       = k;
            a.chunk   = w.chunks + static_cast<size_t>(q) * cb;
            a.n_cols  = n;
            a.rows    = static_cast<int>(std::min<int64_t>(kPanelRows, m - r0 - j * kPanelRows));
            a.out        = w.out + j * kPanelRows;
            a.out_col    = w.out_col;
            a.chunk_cols = w.chunk_cols;
            if (wide && j + 1 < count) {
                quants::gemm_set_second_panel(a, panels + static_cast<size_t>(j + 1) * stride,
                                              m - r0 - (j + 1) * kPanelRows);
            }
            if (wide) {
                gemm_tile(f, a);
            } else {
                tile(as->type, a);
            }
        }
        for (int c = 0; c < n; ++c) {
            std::memcpy(kernels::pair_output(w.dst, w.pairs[w.offset[x] + c0 + c]) + r0, w.out + c * w.out_col,
                        static_cast<size_t>(rows) * sizeof(float));
        }
    }
}

} // namespace

bool mul_mat_id_supports(const ggml_tensor * dst) {
    const ggml_tensor * ids = dst->src[2];
    return !float_form(dst) && mul_mat_supports(dst) && ids != nullptr && ids->type == GGML_TYPE_I32;
}

size_t mul_mat_id_work_size(const ggml_tensor * dst, int n_threads) {
    const size_t cb = quants::gemm_chunk_bytes(format_of(dst), dst->src[0]->ne[0]);
    return line(cb * static_cast<size_t>(id_chunks_max(dst))) + static_cast<size_t>(n_threads) * id_slot(dst).total();
}

// Phase 1: every thread groups the pairs by expert (the same groups in each slot), then converts its share of them,
// in grouped order, into the experts' chunks (expert x's c-th pair: column c % 8 of chunk start[x] + c / 8; narrow
// chunks of one column when no expert has two pairs); barrier.
// Phase 2: work items are (expert with pairs, panel of 16 rows), a thread takes a contiguous run of them of about
// equal cost and multiplies each pass of an expert's panels with the expert's chunks (id_pass). Each output is the
// tile's sum over one column, as in MUL_MAT (mul_mat.h): the same bits whatever other pairs share the node.
void mul_mat_id_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *      as  = dst->src[0];
    const ggml_tensor *      b   = dst->src[1];
    const ggml_tensor *      ids = dst->src[2];
    const quants::GemmFormat f   = format_of(dst);
    const int64_t            k = as->ne[0], n_expert = as->ne[2], n_pairs = n_pairs_of(dst);
    const IdSlot             lay = id_slot(dst);
    const size_t             cb  = quants::gemm_chunk_bytes(f, k);
    char *    slot   = static_cast<char *>(p.wdata) + line(cb * static_cast<size_t>(id_chunks_max(dst))) +
                       static_cast<size_t>(p.ith) * lay.total();
    int32_t * offset = reinterpret_cast<int32_t *>(slot);
    int32_t * pairs  = offset + n_expert + 2;
    int32_t * start  = reinterpret_cast<int32_t *>(slot + lay.groups);
    char *    act    = slot + lay.groups + lay.starts;
    if (!group_expert_pairs(p, as, ids, offset, pairs)) {
        return; // every thread returns here, before the barrier
    }
    start[0] = 0;
    for (int64_t x = 0; x < n_expert; ++x) {
        start[x + 1] = start[x] + (offset[x + 1] - offset[x] + static_cast<int32_t>(kGemmMaxCols) - 1) /
                                      static_cast<int32_t>(kGemmMaxCols);
    }
    // one token (decoding): every expert has one pair at most, and its chunk is a narrow one (gemm.h), as MUL_MAT's
    bool narrow = true;
    for (int64_t x = 0; x < n_expert; ++x) {
        narrow = narrow && offset[x + 1] - offset[x] <= 1;
    }
    const int            cc     = narrow ? 1 : kGemmMaxCols;
    const size_t         ccb    = quants::gemm_chunk_bytes(f, k, cc); // at most cb
    char *               chunks = static_cast<char *>(p.wdata);
    const kernels::Range mine   = kernels::thread_range(p, n_pairs);
    for (int64_t g = mine.begin, x = 0; g < mine.end; ++g) {
        while (offset[x + 1] <= g) {
            ++x;
        }
        const kernels::PairRow in  = kernels::pair_input(dst, pairs[g]);
        const int64_t          c   = g - offset[x];
        const auto *           row = reinterpret_cast<const float *>(static_cast<const char *>(b->data) +
                                                                     in.i11 * b->nb[1] + in.i12 * b->nb[2]);
        quants::gemm_activation(f, row, k, act, chunks + static_cast<size_t>(start[x] + c / kGemmMaxCols) * ccb,
                                static_cast<int>(c % kGemmMaxCols), cc);
    }
    barrier(p);

    IdWork w{dst, offset, pairs, start, chunks, ccb, cc, act + lay.act,
             reinterpret_cast<float *>(act + lay.act + lay.panels), lay.out_col};
    // the panels of the experts with pairs, split by cost: a panel of expert x costs its chunks' tile calls plus one
    // for reading it, so that a thread taking popular experts takes fewer of them
    const int64_t n_panels = (as->ne[1] + kPanelRows - 1) / kPanelRows;
    auto          cost     = [&](int64_t x) { return offset[x + 1] > offset[x] ? start[x + 1] - start[x] + 1 : 0; };
    int64_t       total    = 0;
    for (int64_t x = 0; x < n_expert; ++x) {
        total += n_panels * cost(x);
    }
    const int64_t lo = total * p.ith / p.nth, hi = total * (p.ith + 1) / p.nth;
    for (int64_t x = 0, at = 0; x < n_expert && at < hi; at += n_panels * cost(x), ++x) {
        const int64_t c = cost(x);
        if (c == 0 || at + n_panels * c <= lo) {
            continue;
        }
        // panel j (cost from at + j * c) is this thread's when that start lies in [lo, hi)
        const int64_t first    = std::max<int64_t>(0, (lo - at + c - 1) / c);
        const int64_t last     = std::min(n_panels, (hi - at + c - 1) / c);
        const int64_t per_pass = panels_per_pass(as, id_expands(offset[x + 1] - offset[x]));
        for (int64_t j = first; j < last; j += per_pass) {
            id_pass(w, x, j, std::min(per_pass, last - j));
        }
    }
}

} // namespace switchyard::cpu::repack
