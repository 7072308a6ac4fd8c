// Copies: DUP, CPY and CONT write the elements of src0 into dst in logical order (dim 0 fastest); the two may
// have different shapes, only the element counts match. The other ops of the family live in layout.cpp
// (SET, REPEAT, CONCAT, PAD) and arange.cpp (ARANGE, TIMESTEP_EMBEDDING).
//
// Types: the same type on both sides (any type, block formats copied block by block: their rows must hold
// adjacent blocks); otherwise src F32/F16/BF16/I32 or a block format with to_float, and dst F32/F16/BF16/I32 or
// a block format with from_float_ref (values go through float; I32 is truncated toward zero). Any strides.
// Threads split the rows of dst; each thread reads src sequentially from the matching position.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

// The other parts of the family (layout.cpp, arange.cpp); same contract as copy().
KernelInfo copy_layout(ggml_op op);
KernelInfo copy_fill(ggml_op op);

namespace {

// Reads t's elements in logical order as floats, from a starting element on.
class FloatReader {
public:
    FloatReader(const ggml_tensor * t, int64_t start)
        : t_(t), bs_(ggml_blck_size(t->type)), cur_(t, t->ne[0] / bs_, start / bs_), within_(start % bs_) {}

    void read(float * out, int64_t n) {
        while (n > 0) {
            const int64_t got = bs_ == 1 ? read_plain(out, n) : read_blocks(out, n);
            out += got;
            n -= got;
        }
    }

private:
    int64_t read_plain(float * out, int64_t n) {
        const int64_t run = std::min(n, cur_.left_in_row());
        load_row(t_->type, cur_.ptr(), t_->nb[0], out, run);
        cur_.advance(run);
        return run;
    }

    // Whole blocks go straight to out; a partial block is decoded once into block_ and served from there.
    int64_t read_blocks(float * out, int64_t n) {
        const ggml_to_float_t to_float = quant::to_float_fn(t_->type);
        if (within_ == 0 && n >= bs_) {
            const int64_t k = std::min(n / bs_, cur_.left_in_row());
            to_float(cur_.ptr(), out, k * bs_);
            cur_.advance(k);
            return k * bs_;
        }
        if (!cached_) {
            to_float(cur_.ptr(), block_, bs_);
            cached_ = true;
        }
        const int64_t take = std::min(n, bs_ - within_);
        std::memcpy(out, block_ + within_, static_cast<size_t>(take) * sizeof(float));
        within_ += take;
        if (within_ == bs_) {
            within_ = 0;
            cached_ = false;
            cur_.advance(1);
        }
        return take;
    }

    const ggml_tensor * t_;
    int64_t             bs_;
    Cursor              cur_;
    int64_t             within_;
    bool                cached_ = false;
    float               block_[kChunk];
};

// Rows of the same length with one side F32 with adjacent elements: each row is converted straight from src to
// dst by the row converters (no float buffer). Returns false, doing nothing, for other pairs.
bool direct_rows_copy(const Range & rows, const ggml_tensor * src, ggml_tensor * dst) {
    const bool from_f32 = is_f32_rows(src);
    if (src->ne[0] != dst->ne[0] || !(from_f32 || is_f32_rows(dst))) {
        return false;
    }
    const int64_t ne0 = dst->ne[0];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const char * s = row_ptr(src, row_coords(src, r));
        char *       d = row_ptr(dst, row_coords(dst, r));
        if (from_f32) {
            write_chunk(dst, d, 0, ne0, reinterpret_cast<const float *>(s));
        } else {
            read_chunk(src, s, 0, ne0, reinterpret_cast<float *>(d));
        }
    }
    return true;
}

// Different types: dst rows are filled chunk by chunk from a sequential reader of src (or straight from the src
// rows, see direct_rows_copy).
void convert_copy(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    if (rows.begin >= rows.end || direct_rows_copy(rows, src, dst)) {
        return;
    }
    FloatReader reader(src, rows.begin * dst->ne[0]);
    float       buf[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        char * d = row_ptr(dst, row_coords(dst, r));
        for (int64_t i = 0; i < dst->ne[0]; i += kChunk) {
            const int64_t m = std::min(kChunk, dst->ne[0] - i);
            reader.read(buf, m);
            write_chunk(dst, d, i, m, buf);
        }
    }
}

// Same type: units (elements or blocks) are copied as bytes, in runs where both sides are adjacent.
void bytes_copy(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const size_t        unit = ggml_type_size(dst->type);
    const int64_t       bs   = ggml_blck_size(dst->type);
    if (ggml_is_contiguous(src) && ggml_is_contiguous(dst)) {
        const Range units = thread_range(p, ggml_nelements(dst) / bs);
        std::memcpy(static_cast<char *>(dst->data) + units.begin * static_cast<int64_t>(unit),
                    static_cast<const char *>(src->data) + units.begin * static_cast<int64_t>(unit),
                    static_cast<size_t>(units.end - units.begin) * unit);
        return;
    }
    const Range rows = thread_range(p, ggml_nrows(dst));
    if (rows.begin >= rows.end) {
        return;
    }
    const int64_t n0 = dst->ne[0] / bs;
    Cursor        in(src, src->ne[0] / bs, rows.begin * n0);
    Cursor        out(dst, n0, rows.begin * n0);
    const bool    runs = src->nb[0] == unit && dst->nb[0] == unit;
    for (int64_t left = (rows.end - rows.begin) * n0; left > 0;) {
        const int64_t run = runs ? std::min(in.left_in_row(), out.left_in_row()) : 1;
        std::memcpy(out.ptr(), in.ptr(), static_cast<size_t>(run) * unit);
        in.advance(run);
        out.advance(run);
        left -= run;
    }
}

// dst is src itself (ggml_dup_inplace): nothing to move.
bool is_same_memory(const ggml_tensor * src, const ggml_tensor * dst) {
    if (src->data != dst->data || src->type != dst->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (src->ne[i] != dst->ne[i] || src->nb[i] != dst->nb[i]) {
            return false;
        }
    }
    return true;
}

void copy_compute(const ComputeParams & p, ggml_tensor * dst) {
    if (ggml_nelements(dst) == 0 || is_same_memory(dst->src[0], dst)) {
        return;
    }
    if (dst->src[0]->type == dst->type) {
        bytes_copy(p, dst);
    } else {
        convert_copy(p, dst);
    }
}

bool copy_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || ggml_nelements(src) != ggml_nelements(dst)) {
        return false;
    }
    if (src->type == dst->type) {
        return !ggml_is_quantized(src->type) || (has_unit_stride(src) && has_unit_stride(dst));
    }
    return can_read_floats(src) && can_write_floats(dst);
}

} // namespace

KernelInfo copy(ggml_op op) {
    switch (op) {
        case GGML_OP_DUP:
        case GGML_OP_CPY:
        case GGML_OP_CONT: return KernelInfo{copy_compute, nullptr, nullptr, copy_supports};
        default:           break;
    }
    const KernelInfo layout = copy_layout(op);
    return layout.supports ? layout : copy_fill(op);
}

} // namespace switchyard::cpu::kernels
