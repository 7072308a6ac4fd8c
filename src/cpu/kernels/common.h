// Small helpers shared by the CPU kernels (src/cpu/kernels/*.cpp): tensor addressing, splitting work between the
// threads of a node, and per-element / per-row conversions between the storage types and float.
//
// Everything here is header-only, stateless and thread-safe; nothing allocates. Kernels compute in float on short
// contiguous chunks (kChunk elements, on the stack) so that any storage type and any stride goes through one code
// path, and F32 rows with unit stride are used in place without copies.
//
// The element-wise row functions (RowKernels, written once over the Vec types of src/cpu/simd/) are in
// row_kernels.h, included at the end for the kernel files that use both.
//
// Contents: addressing (row_coords, row_ptr, elem_ptr, Cursor, index_in_range), work split (thread_range,
// row_spans, single_task), scratch (scratch_floats, thread_slot), element types and conversions (load_value /
// store_value, load_row / store_row, read_chunk / write_chunk, can_read_floats / can_write_floats, copy_units /
// zero_units), op parameters (op_i32 / op_f32), strided views of SET / ACC (ViewParams, make_view,
// view_in_bounds).
#pragma once

#include "ggml.h"

#include "base/fp16.h"
#include "quant/formats.h"
#include "cpu/kernel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace switchyard::cpu::kernels {

// Elements processed per step by the chunked kernels. A multiple of every block size (32, 64, 128, 256), so a
// chunk that starts on a chunk boundary of a row covers whole blocks.
constexpr int64_t kChunk = 256;

// ---- addressing ------------------------------------------------------------------------------------------------

// Coordinates of row r (0 <= r < ggml_nrows(t)) of t: i1 fastest, then i2, then i3.
struct RowCoords {
    int64_t i1, i2, i3;
};

// i % n for 0 <= i and n >= 1, without a division where i < n (64-bit divisions cost nanoseconds each, and the
// small ops of a decode step pay them per row).
inline int64_t wrap_index(int64_t i, int64_t n) {
    return i < n ? i : i % n;
}

inline RowCoords row_coords(const ggml_tensor * t, int64_t r) {
    if (r < t->ne[1]) {
        return {r, 0, 0};
    }
    const int64_t i1 = r % t->ne[1];
    const int64_t q  = r / t->ne[1];
    return {i1, wrap_index(q, t->ne[2]), q / t->ne[2]};
}

// Address of row (i1, i2, i3) of t (its element i0 = 0).
inline char * row_ptr(const ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return static_cast<char *>(t->data) + i1 * static_cast<int64_t>(t->nb[1]) +
           i2 * static_cast<int64_t>(t->nb[2]) + i3 * static_cast<int64_t>(t->nb[3]);
}

inline char * row_ptr(const ggml_tensor * t, const RowCoords & c) {
    return row_ptr(t, c.i1, c.i2, c.i3);
}

// Address of element (i0, i1, i2, i3); for block formats i0 counts blocks.
inline char * elem_ptr(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return row_ptr(t, i1, i2, i3) + i0 * static_cast<int64_t>(t->nb[0]);
}

// A position in t's logical order (dim 0 fastest), counting n0 units per row: elements for plain types, blocks for
// block formats. Walks a tensor sequentially, e.g. to copy between tensors of different shapes. t must not be empty.
struct Cursor {
    const ggml_tensor * t;
    int64_t             n0;
    int64_t             i0 = 0, i1 = 0, i2 = 0, i3 = 0;

    Cursor(const ggml_tensor * tensor, int64_t units_per_row, int64_t start) : t(tensor), n0(units_per_row) {
        i0               = start % n0;
        const int64_t r  = start / n0;
        i1               = r % t->ne[1];
        i2               = (r / t->ne[1]) % t->ne[2];
        i3               = r / (t->ne[1] * t->ne[2]);
    }

    char *  ptr() const { return elem_ptr(t, i0, i1, i2, i3); }
    int64_t left_in_row() const { return n0 - i0; }

    // Moves k units forward (k <= left_in_row()).
    void advance(int64_t k) {
        i0 += k;
        if (i0 < n0) {
            return;
        }
        i0 = 0;
        if (++i1 == t->ne[1]) {
            i1 = 0;
            if (++i2 == t->ne[2]) {
                i2 = 0;
                ++i3;
            }
        }
    }
};

// true when 0 <= i < n: the check of an index read from tensor data, in one compare (a negative i becomes huge).
inline bool index_in_range(int64_t i, int64_t n) {
    return static_cast<uint64_t>(i) < static_cast<uint64_t>(n);
}

// ---- work split ------------------------------------------------------------------------------------------------

// [begin, end) of n items for thread p.ith of p.nth: contiguous chunks of ceil(n / nth) items (the last threads
// may get fewer or none).
struct Range {
    int64_t begin, end;
};

inline Range thread_range(const ComputeParams & p, int64_t n) {
    const int64_t per = (n + p.nth - 1) / p.nth;
    const int64_t b   = std::min<int64_t>(per * p.ith, n);
    return {b, std::min<int64_t>(b + per, n)};
}

// Work split of element-wise kernels over (row, span) items: when there are fewer rows than threads, rows are cut
// into spans of whole chunks (multiples of kChunk elements, so block formats stay on block bounds) and a single
// long row still keeps every thread busy. The result does not depend on the split.
struct RowSpans {
    int64_t span;    // elements per span
    int64_t n_spans; // spans per row
    Range   items;   // this thread's items; item = row * n_spans + span index

    int64_t row(int64_t item) const { return n_spans == 1 ? item : item / n_spans; }
    int64_t begin(int64_t item) const { return n_spans == 1 ? 0 : (item % n_spans) * span; }
    int64_t end(int64_t item, int64_t ne0) const { return std::min(begin(item) + span, ne0); }
};

inline RowSpans row_spans(const ComputeParams & p, int64_t nrows, int64_t ne0) {
    int64_t n_spans = 1;
    int64_t span    = std::max<int64_t>(ne0, 1);
    if (nrows < p.nth && ne0 > kChunk) {
        const int64_t want = (p.nth + nrows - 1) / std::max<int64_t>(nrows, 1);
        span               = ((ne0 + want - 1) / want + kChunk - 1) / kChunk * kChunk;
        n_spans            = (ne0 + span - 1) / span;
    }
    return {span, n_spans, thread_range(p, nrows * n_spans)};
}

// n_tasks for kernels that run on one thread only.
inline int single_task(const ggml_tensor *, int) {
    return 1;
}

// ---- scratch -------------------------------------------------------------------------------------------------
//
// Kernels that need memory beyond their tensors take it from the node's scratch (ComputeParams::wdata, sized by
// their KernelInfo::work_size from the same shapes and thread count), never from the heap: the kernels run on the
// thread pool's workers, where an allocation failure could not be reported. Areas start on 64-byte bounds so the
// threads' slots never share a cache line.

constexpr size_t kScratchAlign = 64;

inline size_t scratch_align(size_t bytes) {
    return (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

// Bytes of an area of n floats.
inline size_t scratch_floats(int64_t n) {
    return scratch_align(static_cast<size_t>(std::max<int64_t>(n, 0)) * sizeof(float));
}

// This thread's slot: `slot_bytes` (aligned) per thread after `shared_bytes` (aligned) used by all threads.
// nullptr when the slot is empty.
inline char * thread_slot(const ComputeParams & p, size_t shared_bytes, size_t slot_bytes) {
    if (slot_bytes == 0) {
        return nullptr;
    }
    return static_cast<char *>(p.wdata) + shared_bytes + static_cast<size_t>(p.ith) * slot_bytes;
}

// ---- element types ---------------------------------------------------------------------------------------------

inline bool is_float_type(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

// Types load_value / store_value convert: the float types and I32.
inline bool is_scalar_convertible(ggml_type t) {
    return is_float_type(t) || t == GGML_TYPE_I32;
}

// One element of type t at p as float (t: is_scalar_convertible).
inline float load_value(ggml_type t, const void * p) {
    switch (t) {
        case GGML_TYPE_F16: {
            uint16_t h;
            std::memcpy(&h, p, sizeof(h));
            return fp16_to_fp32(h);
        }
        case GGML_TYPE_BF16: {
            uint16_t b;
            std::memcpy(&b, p, sizeof(b));
            return bf16_to_fp32(b);
        }
        case GGML_TYPE_I32: {
            int32_t i;
            std::memcpy(&i, p, sizeof(i));
            return static_cast<float>(i);
        }
        default: {
            float f;
            std::memcpy(&f, p, sizeof(f));
            return f;
        }
    }
}

// Stores v as one element of type t at p (I32: truncated toward zero, as a C cast).
inline void store_value(ggml_type t, void * p, float v) {
    switch (t) {
        case GGML_TYPE_F16: {
            const uint16_t h = fp32_to_fp16(v);
            std::memcpy(p, &h, sizeof(h));
            return;
        }
        case GGML_TYPE_BF16: {
            const uint16_t b = fp32_to_bf16(v);
            std::memcpy(p, &b, sizeof(b));
            return;
        }
        case GGML_TYPE_I32: {
            const auto i = static_cast<int32_t>(v);
            std::memcpy(p, &i, sizeof(i));
            return;
        }
        default: std::memcpy(p, &v, sizeof(v)); return;
    }
}

// Reads n elements of type t, `stride` bytes apart, as floats into out (contiguous).
inline void load_row(ggml_type t, const char * src, size_t stride, float * out, int64_t n) {
    if (stride == ggml_type_size(t)) {
        switch (t) {
            case GGML_TYPE_F32: std::memcpy(out, src, static_cast<size_t>(n) * sizeof(float)); return;
            case GGML_TYPE_F16: fp16_to_fp32_row(reinterpret_cast<const uint16_t *>(src), out, n); return;
            case GGML_TYPE_BF16: bf16_to_fp32_row(reinterpret_cast<const uint16_t *>(src), out, n); return;
            default: break;
        }
    }
    for (int64_t i = 0; i < n; ++i) {
        out[i] = load_value(t, src + i * static_cast<int64_t>(stride));
    }
}

// Writes n floats from in as elements of type t, `stride` bytes apart. dst may hold the same memory the values
// were loaded from (in-place kernels).
inline void store_row(ggml_type t, const float * in, char * dst, size_t stride, int64_t n) {
    if (stride == ggml_type_size(t)) {
        switch (t) {
            case GGML_TYPE_F32: std::memmove(dst, in, static_cast<size_t>(n) * sizeof(float)); return;
            case GGML_TYPE_F16: fp32_to_fp16_row(in, reinterpret_cast<uint16_t *>(dst), n); return;
            case GGML_TYPE_BF16: fp32_to_bf16_row(in, reinterpret_cast<uint16_t *>(dst), n); return;
            default: break;
        }
    }
    for (int64_t i = 0; i < n; ++i) {
        store_value(t, dst + i * static_cast<int64_t>(stride), in[i]);
    }
}

// true when the elements of each row of t are adjacent (nb[0] is the element / block size).
// true when t's rows are made of whole blocks lying next to each other (every non-block type qualifies when its
// elements are adjacent). A transposed view of one-block rows has nb[0] == the block's size too, but rows that
// end inside a block: it does not qualify.
inline bool has_unit_stride(const ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) && t->ne[0] % ggml_blck_size(t->type) == 0;
}

// true when t is F32 with adjacent elements in each row: kernels then work on its rows in place.
inline bool is_f32_rows(const ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float);
}

// A block format that can be decoded (to_float) / encoded (from_float_ref) by the reference converters.
inline bool can_decode(ggml_type t) { return ggml_is_quantized(t) && quant::to_float_fn(t) != nullptr; }

inline bool can_encode(ggml_type t) { return ggml_is_quantized(t) && quant::from_float_ref_fn(t) != nullptr; }

// t's elements can be read as floats by read_chunk / written by write_chunk: the scalar-convertible types at any
// stride, block formats with the needed converter and adjacent blocks.
inline bool can_read_floats(const ggml_tensor * t) {
    return is_scalar_convertible(t->type) || (can_decode(t->type) && has_unit_stride(t));
}

inline bool can_write_floats(const ggml_tensor * t) {
    return is_scalar_convertible(t->type) || (can_encode(t->type) && has_unit_stride(t));
}

// Reads elements [i0, i0 + n) of the row at `row` of t as floats (t: is_scalar_convertible, or a block format with
// adjacent blocks and i0, n on block bounds).
inline void read_chunk(const ggml_tensor * t, const char * row, int64_t i0, int64_t n, float * out) {
    if (ggml_is_quantized(t->type)) {
        const int64_t bs = ggml_blck_size(t->type);
        quant::to_float_fn(t->type)(row + (i0 / bs) * static_cast<int64_t>(t->nb[0]), out, n);
        return;
    }
    load_row(t->type, row + i0 * static_cast<int64_t>(t->nb[0]), t->nb[0], out, n);
}

// Writes n floats as elements [i0, i0 + n) of the row at `row` of t (same conditions; block formats are encoded
// with from_float_ref).
inline void write_chunk(const ggml_tensor * t, char * row, int64_t i0, int64_t n, const float * in) {
    if (ggml_is_quantized(t->type)) {
        const int64_t bs = ggml_blck_size(t->type);
        quant::from_float_ref_fn(t->type)(in, row + (i0 / bs) * static_cast<int64_t>(t->nb[0]), n);
        return;
    }
    store_row(t->type, in, row + i0 * static_cast<int64_t>(t->nb[0]), t->nb[0], n);
}

// Copies n units (elements, or blocks of a block format) of `size` bytes from s (stride sn) to d (stride dn).
inline void copy_units(char * d, size_t dn, const char * s, size_t sn, int64_t n, size_t size) {
    if (dn == size && sn == size) {
        std::memcpy(d, s, static_cast<size_t>(n) * size);
        return;
    }
    for (int64_t k = 0; k < n; ++k) {
        std::memcpy(d + k * static_cast<int64_t>(dn), s + k * static_cast<int64_t>(sn), size);
    }
}

// Sets n units of `size` bytes at d (stride dn) to zero bytes (0.0 for the float types).
inline void zero_units(char * d, size_t dn, int64_t n, size_t size) {
    if (dn == size) {
        std::memset(d, 0, static_cast<size_t>(n) * size);
        return;
    }
    for (int64_t k = 0; k < n; ++k) {
        std::memset(d + k * static_cast<int64_t>(dn), 0, size);
    }
}

// ---- op parameters ---------------------------------------------------------------------------------------------

inline int32_t op_i32(const ggml_tensor * t, int i) {
    return t->op_params[i];
}

inline float op_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

// ---- strided views (SET, ACC) -------------------------------------------------------------------------------

// op_params (i32) {nb1, nb2, nb3, offset, ...}: a view of dst with byte strides nb1..nb3 and a byte offset.
struct ViewParams {
    size_t nb1, nb2, nb3, offset;
};

inline ViewParams view_params(const ggml_tensor * dst) {
    return {static_cast<size_t>(op_i32(dst, 0)), static_cast<size_t>(op_i32(dst, 1)),
            static_cast<size_t>(op_i32(dst, 2)), static_cast<size_t>(op_i32(dst, 3))};
}

// dst seen through the view with the shape of `like` (a copy of dst's header, data moved by the offset).
inline ggml_tensor make_view(const ggml_tensor * dst, const ViewParams & v, const ggml_tensor * like) {
    ggml_tensor view = *dst;
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        view.ne[i] = like->ne[i];
    }
    view.nb[1] = v.nb1;
    view.nb[2] = v.nb2;
    view.nb[3] = v.nb3;
    view.data  = static_cast<char *>(dst->data) + v.offset;
    return view;
}

// true when the view (shape of `like`) stays inside dst's bytes.
inline bool view_in_bounds(const ggml_tensor * dst, const ViewParams & v, const ggml_tensor * like) {
    if (ggml_is_empty(like)) {
        return true;
    }
    const size_t elem = dst->nb[0];
    const size_t end  = v.offset + static_cast<size_t>(like->ne[0] - 1) * elem +
                       static_cast<size_t>(like->ne[1] - 1) * v.nb1 + static_cast<size_t>(like->ne[2] - 1) * v.nb2 +
                       static_cast<size_t>(like->ne[3] - 1) * v.nb3 + elem;
    return end <= ggml_nbytes(dst);
}

} // namespace switchyard::cpu::kernels

#include "cpu/kernels/row_kernels.h"
