#include "cpu/kernels/mul_mat/gemm.h"

#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/vec.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/format.h"

#include <algorithm>
#include <climits>

namespace switchyard::cpu::kernels {

namespace {

using quants::GemmFormat;
using quants::kGemmMaxCols;
using quants::kGemmRows;

// One weight type's GEMM: the integer one (quantized weights) or the float one (f32, f16, bf16).
struct Path {
    ggml_type  weight;
    GemmFormat format; // act_type GGML_TYPE_COUNT for the float path

    bool integer() const { return format.act_type != GGML_TYPE_COUNT; }

    // activation columns per chunk (gemm.h, gemm_float.h)
    int64_t k; // src0's row length

    // the integer GEMM on AMX (gemm.h: chunks of 32 columns, two panels per tile call)
    bool amx() const { return integer() && quants::gemm_int_amx(); }

    int64_t cols() const {
        if (integer()) {
            return amx() ? quants::kGemmAmxIntCols : kGemmMaxCols;
        }
        return quants::gemm_float_cols(weight, k);
    }
    // panels per tile call (GemmTileArgs::panel2)
    int64_t panels_per_tile() const {
        if (integer()) {
            return 2;
        }
        return quants::gemm_float_panels_per_tile(weight, k);
    }

    size_t panel_bytes(int64_t k) const {
        if (!integer()) {
            return quants::gemm_float_panel_bytes(weight, k);
        }
        return amx() ? quants::gemm_amx_panel_bytes(format, k) : quants::gemm_panel_bytes(format, k);
    }
    size_t chunk_bytes(int64_t k) const {
        if (integer()) {
            return amx() ? quants::gemm_amx_chunk_bytes(format, k) : quants::gemm_chunk_bytes(format, k);
        }
        return quants::gemm_float_chunk_bytes(weight, k);
    }
    // scratch of the activation conversion (the act_type bytes of a row)
    size_t act_bytes(int64_t k) const { return integer() ? ggml_row_size(format.act_type, k) : 0; }

    void pack(const void * w, size_t w_row, int rows, int64_t k, void * panel) const {
        if (!integer()) {
            quants::gemm_float_pack(weight, w, w_row, rows, k, panel);
        } else if (amx()) {
            quants::gemm_pack_amx(weight, w, w_row, rows, k, panel);
        } else {
            quants::gemm_pack(weight, w, w_row, rows, k, panel);
        }
    }
    void activation(const float * x, int64_t k, void * scratch, void * chunk, int col) const {
        if (!integer()) {
            quants::gemm_float_activation(weight, x, k, chunk, col);
        } else if (amx()) {
            quants::gemm_activation_amx(format, x, k, scratch, chunk, col);
        } else {
            quants::gemm_activation(format, x, k, scratch, chunk, col);
        }
    }
    void tile(const quants::GemmTileArgs & a) const {
        if (!integer()) {
            quants::gemm_float_tile(weight, a);
            return;
        }
        if (amx()) {
            quants::gemm_tile_amx()(format, a);
            return;
        }
        quants::gemm_tile_fast()(format, a);
    }
};

Path path_for(const ggml_tensor * src0) { return {src0->type, quants::gemm_format(src0->type), src0->ne[0]}; }

// The path exists on this CPU for src0's type and row length.
bool path_applies(const ggml_tensor * src0) {
    const Path p = path_for(src0);
    if (p.integer()) {
        return quants::gemm_tile_fast() != nullptr && src0->ne[0] % ggml_blck_size(p.format.act_type) == 0;
    }
    // float panels gather rows at 32-bit byte offsets; f16 / bf16 pack element pairs
    return quants::gemm_float_available(p.weight) && src0->nb[1] % ggml_type_size(p.weight) == 0 &&
           src0->nb[1] <= static_cast<size_t>(INT_MAX / kGemmRows) && (p.weight == GGML_TYPE_F32 || src0->ne[0] % 2 == 0);
}

// Packed panels a thread keeps at once: as many as fit in half its L2 (quants::gemm_pass_bytes; the float tiles'
// panels in 1 MiB), 1..16, and no more than src0 has (m rows).
int64_t panels_per_pass(const Path & path, int64_t k, int64_t m) {
    const size_t  bytes = std::max<size_t>(path.panel_bytes(k), 1);
    const size_t  pass  = path.integer() ? quants::gemm_pass_bytes() : size_t{1} << 20;
    const int64_t fit   = std::clamp<int64_t>(static_cast<int64_t>(pass / bytes), 1, 16);
    return std::min(fit, std::max<int64_t>((m + kGemmRows - 1) / kGemmRows, 1));
}

// Chunks of path.cols() columns per (i12, i13) slice of src1.
int64_t chunks_per_slice(const Path & path, const ggml_tensor * src1) { return (src1->ne[1] + path.cols() - 1) / path.cols(); }

size_t columns_bytes(const Path & path, const ggml_tensor * src1) {
    return path.chunk_bytes(src1->ne[0]) * static_cast<size_t>(chunks_per_slice(path, src1) * src1->ne[2] * src1->ne[3]);
}

// Per thread: a float row, its activation bytes, the panels; each part on a cache line.
struct Slot {
    size_t floats, act, panels, rows; // rows: a panel's rows unpacked from a repacked src0 (else 0)
    size_t total() const { return floats + act + panels + rows; }
};

size_t line(size_t n) { return (n + 63) / 64 * 64; }

Slot slot_layout(const Path & path, const ggml_tensor * src0) {
    const int64_t k = src0->ne[0];
    return {line(static_cast<size_t>(k) * sizeof(float)), line(path.act_bytes(k)),
            static_cast<size_t>(panels_per_pass(path, k, src0->ne[1])) * path.panel_bytes(k),
            repack::is_repacked(src0) ? line(kGemmRows * src0->nb[1]) : 0};
}

// Phase 1: src1 rows to GEMM columns, split by rows; then the barrier. Row (i11, slice) is column i11 % cols of
// chunk i11 / cols of the slice (the slices' chunks back to back; cols = path.cols()).
void prepare_columns(const ComputeParams & p, const Path & path, const ggml_tensor * src1, size_t act_at, char * slot) {
    const int64_t k     = src1->ne[0];
    const size_t  cb    = path.chunk_bytes(k);
    const int64_t per   = chunks_per_slice(path, src1), cols = path.cols();
    auto *        buf   = reinterpret_cast<float *>(slot);
    const Range   items = thread_range(p, ggml_nrows(src1));
    for (int64_t r = items.begin; r < items.end; ++r) {
        const char *  row = row_ptr(src1, row_coords(src1, r));
        const float * x   = buf;
        if (is_f32_rows(src1)) {
            x = reinterpret_cast<const float *>(row);
        } else {
            for (int64_t i0 = 0; i0 < k; i0 += kChunk) {
                read_chunk(src1, row, i0, std::min(kChunk, k - i0), buf + i0);
            }
        }
        const int64_t i11 = r % src1->ne[1], slice = r / src1->ne[1];
        char *        chunk = static_cast<char *>(p.wdata) + static_cast<size_t>(slice * per + i11 / cols) * cb;
        path.activation(x, k, slot + act_at, chunk, static_cast<int>(i11 % cols));
    }
    barrier(p);
}

} // namespace

bool mul_mat_gemm_applies(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    // repacked weights (2-D) only where the integer GEMM runs on AMX: their panels are unpacked for it
    if (repack::is_repacked(src0) && !(path_for(src0).amx() && src0->ne[2] == 1 && src0->ne[3] == 1)) {
        return false;
    }
    return src1->ne[1] > kMatVecMaxCols && path_applies(src0) && can_read_floats(src1) &&
           dst->nb[1] % sizeof(float) == 0 && dst->nb[2] % sizeof(float) == 0 && dst->nb[3] % sizeof(float) == 0;
}

size_t mul_mat_gemm_work_size(const ggml_tensor * dst, int n_threads) {
    const Path path = path_for(dst->src[0]);
    return line(columns_bytes(path, dst->src[1])) + static_cast<size_t>(n_threads) * slot_layout(path, dst->src[0]).total();
}

// Work items are (slice (i12, i13), panel of 16 src0 rows), split in contiguous runs.
void mul_mat_gemm_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const Path          path = path_for(src0);
    const int64_t       k    = src0->ne[0];
    const Slot          s    = slot_layout(path, src0);
    char *              slot = thread_slot(p, line(columns_bytes(path, src1)), s.total());
    prepare_columns(p, path, src1, s.floats, slot);

    const size_t  cb       = path.chunk_bytes(k);
    const int64_t per_sl   = chunks_per_slice(path, src1), cols = path.cols();
    const size_t  pb       = path.panel_bytes(k);
    char *        panels   = slot + s.floats + s.act;
    char *        unpacked = s.rows != 0 ? panels + s.panels : nullptr;
    const size_t  repacked_pb = s.rows != 0 ? repack::panel_bytes(src0->type, k) : 0;
    const int64_t per_pass = panels_per_pass(path, k, src0->ne[1]);
    const int64_t m = src0->ne[1], n = src1->ne[1];
    const int64_t n_panels = (m + kGemmRows - 1) / kGemmRows;
    const int64_t r2 = src1->ne[2] / src0->ne[2], r3 = src1->ne[3] / src0->ne[3];
    const int64_t out_col  = static_cast<int64_t>(dst->nb[1] / sizeof(float));
    const Range   items    = thread_range(p, src1->ne[2] * src1->ne[3] * n_panels);
    for (int64_t it = items.begin; it < items.end;) {
        const int64_t slice = it / n_panels, first = it % n_panels;
        const int64_t count = std::min({per_pass, n_panels - first, items.end - it});
        const int64_t i12 = slice % src1->ne[2], i13 = slice / src1->ne[2];
        const char *  w   = static_cast<const char *>(src0->data) + (i12 / r2) * src0->nb[2] + (i13 / r3) * src0->nb[3];
        for (int64_t j = 0; j < count; ++j) {
            const int64_t r0   = (first + j) * kGemmRows;
            const int     rows = static_cast<int>(std::min<int64_t>(kGemmRows, m - r0));
            if (unpacked != nullptr) { // a repacked src0: the panel's rows as they were stored, then packed for the tile
                repack::unpack_panel(src0->type, w + static_cast<size_t>(first + j) * repacked_pb, rows, k, unpacked,
                                     src0->nb[1]);
                path.pack(unpacked, src0->nb[1], rows, k, panels + j * pb);
            } else {
                path.pack(w + static_cast<size_t>(r0) * src0->nb[1], src0->nb[1], rows, k, panels + j * pb);
            }
        }
        const char * chunks = static_cast<const char *>(p.wdata) + static_cast<size_t>(slice * per_sl) * cb;
        auto *       out    = reinterpret_cast<float *>(static_cast<char *>(dst->data) + i12 * dst->nb[2] + i13 * dst->nb[3]);
        // tiles take two panels per pass where there are two (gemm.h: GemmTileArgs::panel2)
        const int64_t step = path.panels_per_tile();
        for (int64_t c0 = 0; c0 < n; c0 += cols) {
            for (int64_t j = 0; j < count; j += step) {
                const int64_t        r0 = (first + j) * kGemmRows;
                quants::GemmTileArgs a;
                a.panel   = panels + j * pb;
                a.k       = k;
                a.chunk   = chunks + static_cast<size_t>(c0 / cols) * cb;
                a.n_cols  = static_cast<int>(std::min(cols, n - c0));
                a.rows    = static_cast<int>(std::min<int64_t>(kGemmRows, m - r0));
                a.out     = out + r0 + c0 * out_col;
                a.out_col = out_col;
                if (step == 2 && j + 1 < count) {
                    quants::gemm_set_second_panel(a, panels + (j + 1) * pb, m - r0 - kGemmRows);
                }
                path.tile(a);
            }
        }
        it += count;
    }
}

} // namespace switchyard::cpu::kernels
