// Small helpers shared by the CPU kernels (src/cpu/kernels/*.cpp): tensor addressing, splitting work between the
// threads of a node, and per-element / per-row conversions between the storage types and float.
//
// Everything here is header-only, stateless and thread-safe; nothing allocates. Kernels compute in float on short
// contiguous chunks (kChunk elements, on the stack) so that any storage type and any stride goes through one code
// path, and F32 rows with unit stride are used in place without copies.
//
// The second half is the SIMD abstraction for the element-wise kernels: Vec types (VecScalar always, VecAvx2 in
// translation units compiled with AVX2 + FMA), the op functors written once over them, and the tables of row
// functions built from them (RowKernels; row_kernels() picks one at run time by features()).
//
// Contents: addressing (row_coords, row_ptr, elem_ptr, Cursor, index_in_range), work split (thread_range,
// row_spans, single_task), scratch (scratch_floats, thread_slot), element types and conversions (load_value /
// store_value, load_row / store_row, read_chunk / write_chunk, can_read_floats / can_write_floats, copy_units /
// zero_units), op parameters (op_i32 / op_f32), strided views of SET / ACC (ViewParams, make_view,
// view_in_bounds), then Vec / MapOp / RowKernels.
//
// Length: over the usual 600 lines because the kernel directory has one shared header; the Vec half would move to
// src/cpu/simd/ as its own header without other changes.
#pragma once

#include "ggml.h"

#include "base/fp16.h"
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

inline RowCoords row_coords(const ggml_tensor * t, int64_t r) {
    const int64_t i1 = r % t->ne[1];
    const int64_t q  = r / t->ne[1];
    return {i1, q % t->ne[2], q / t->ne[2]};
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

    int64_t row(int64_t item) const { return item / n_spans; }
    int64_t begin(int64_t item) const { return (item % n_spans) * span; }
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
inline bool can_decode(ggml_type t) {
    const ggml_type_traits * tt = ggml_get_type_traits(t);
    return tt && tt->is_quantized && tt->to_float != nullptr;
}

inline bool can_encode(ggml_type t) {
    const ggml_type_traits * tt = ggml_get_type_traits(t);
    return tt && tt->is_quantized && tt->from_float_ref != nullptr;
}

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
        ggml_get_type_traits(t->type)->to_float(row + (i0 / bs) * static_cast<int64_t>(t->nb[0]), out, n);
        return;
    }
    load_row(t->type, row + i0 * static_cast<int64_t>(t->nb[0]), t->nb[0], out, n);
}

// Writes n floats as elements [i0, i0 + n) of the row at `row` of t (same conditions; block formats are encoded
// with from_float_ref).
inline void write_chunk(const ggml_tensor * t, char * row, int64_t i0, int64_t n, const float * in) {
    if (ggml_is_quantized(t->type)) {
        const int64_t bs = ggml_blck_size(t->type);
        ggml_get_type_traits(t->type)->from_float_ref(in, row + (i0 / bs) * static_cast<int64_t>(t->nb[0]), n);
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

// ---- Vec: packs of float lanes ---------------------------------------------------------------------------------
//
// Element-wise ops are written once as functors over a Vec type and instantiated per ISA: with VecScalar in the
// plain kernel files, with VecAvx2 in *_avx2.cpp files (compiled with -mavx2 -mfma and used only after checking
// features()). This section sits in an unnamed namespace so that every translation unit keeps its own copies: an
// inline function compiled with AVX2 must never be the one the linker picks for the scalar path.
//
// A Vec V provides: V::kLanes, V::load(const float *), V::splat(float), v.store(float *), the arithmetic
// operators, vmin/vmax/vabs/vsqrt, select_gt / select_lt (lane-wise a > b ? x : y), hsum, and the math functions
// used by the functors (vexp, vexpm1, vtanh, verf, vlog, vsin, vcos, vfloor, vceil, vround, vtrunc).

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define SWITCHYARD_KERNELS_HAVE_AVX2 1
#endif

namespace switchyard::cpu::kernels {
namespace {

struct VecScalar {
    static constexpr int kLanes = 1;
    float v;
    static VecScalar load(const float * p) { return {*p}; }
    static VecScalar splat(float x) { return {x}; }
    void store(float * p) const { *p = v; }
};

inline VecScalar operator+(VecScalar a, VecScalar b) { return {a.v + b.v}; }
inline VecScalar operator-(VecScalar a, VecScalar b) { return {a.v - b.v}; }
inline VecScalar operator*(VecScalar a, VecScalar b) { return {a.v * b.v}; }
inline VecScalar operator/(VecScalar a, VecScalar b) { return {a.v / b.v}; }
inline VecScalar operator-(VecScalar a) { return {-a.v}; }
inline VecScalar vmin(VecScalar a, VecScalar b) { return {a.v < b.v ? a.v : b.v}; }
inline VecScalar vmax(VecScalar a, VecScalar b) { return {a.v > b.v ? a.v : b.v}; }
inline VecScalar vabs(VecScalar a) { return {std::fabs(a.v)}; }
inline VecScalar vsqrt(VecScalar a) { return {std::sqrt(a.v)}; }
inline VecScalar select_gt(VecScalar a, VecScalar b, VecScalar x, VecScalar y) { return a.v > b.v ? x : y; }
inline VecScalar select_lt(VecScalar a, VecScalar b, VecScalar x, VecScalar y) { return a.v < b.v ? x : y; }
inline float     hsum(VecScalar a) { return a.v; }
inline VecScalar vexp(VecScalar a) { return {std::exp(a.v)}; }
inline VecScalar vexpm1(VecScalar a) { return {std::expm1(a.v)}; }
inline VecScalar vtanh(VecScalar a) { return {std::tanh(a.v)}; }
inline VecScalar verf(VecScalar a) { return {std::erf(a.v)}; }
inline VecScalar vlog(VecScalar a) { return {std::log(a.v)}; }
inline VecScalar vlog1p(VecScalar a) { return {std::log1p(a.v)}; }
inline VecScalar vsin(VecScalar a) { return {std::sin(a.v)}; }
inline VecScalar vcos(VecScalar a) { return {std::cos(a.v)}; }
inline VecScalar vfloor(VecScalar a) { return {std::floor(a.v)}; }
inline VecScalar vceil(VecScalar a) { return {std::ceil(a.v)}; }
inline VecScalar vround(VecScalar a) { return {std::round(a.v)}; }
inline VecScalar vtrunc(VecScalar a) { return {std::trunc(a.v)}; }

#if defined(SWITCHYARD_KERNELS_HAVE_AVX2)

struct VecAvx2 {
    static constexpr int kLanes = 8;
    __m256 v;
    static VecAvx2 load(const float * p) { return {_mm256_loadu_ps(p)}; }
    static VecAvx2 splat(float x) { return {_mm256_set1_ps(x)}; }
    void store(float * p) const { _mm256_storeu_ps(p, v); }
};

inline VecAvx2 operator+(VecAvx2 a, VecAvx2 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline VecAvx2 operator-(VecAvx2 a, VecAvx2 b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline VecAvx2 operator*(VecAvx2 a, VecAvx2 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline VecAvx2 operator/(VecAvx2 a, VecAvx2 b) { return {_mm256_div_ps(a.v, b.v)}; }
inline VecAvx2 operator-(VecAvx2 a) { return {_mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f))}; }
// a < b ? a : b lane-wise, as the scalar version (a NaN in a gives b)
inline VecAvx2 vmin(VecAvx2 a, VecAvx2 b) { return {_mm256_min_ps(a.v, b.v)}; }
inline VecAvx2 vmax(VecAvx2 a, VecAvx2 b) { return {_mm256_max_ps(a.v, b.v)}; }
inline VecAvx2 vabs(VecAvx2 a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline VecAvx2 vsqrt(VecAvx2 a) { return {_mm256_sqrt_ps(a.v)}; }
inline VecAvx2 select_gt(VecAvx2 a, VecAvx2 b, VecAvx2 x, VecAvx2 y) {
    return {_mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ))};
}
inline VecAvx2 select_lt(VecAvx2 a, VecAvx2 b, VecAvx2 x, VecAvx2 y) {
    return {_mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ))};
}
inline float hsum(VecAvx2 a) {
    const __m128 lo = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    const __m128 sh = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    return _mm_cvtss_f32(_mm_add_ss(sh, _mm_movehdup_ps(sh)));
}

// Applies a scalar function to each lane (for the functions without a vector version here).
template <class F>
VecAvx2 lanewise(VecAvx2 a, F f) {
    alignas(32) float t[8];
    _mm256_store_ps(t, a.v);
    for (float & x : t) {
        x = f(x);
    }
    return {_mm256_load_ps(t)};
}

// exp: x = n*ln2 + r with |r| <= ln2/2, exp(r) by a degree-6 polynomial (Cephes coefficients), times 2^n applied
// as two factors so that every step stays a normal float. Max relative error about 2 ulp; overflow gives +inf,
// underflow gives subnormals and then 0; NaN stays NaN.
inline VecAvx2 vexp(VecAvx2 a) {
    const __m256  x  = _mm256_min_ps(_mm256_max_ps(a.v, _mm256_set1_ps(-103.9f)), _mm256_set1_ps(88.7228391f));
    const __m256  n  = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256        r  = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r                = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p         = _mm256_set1_ps(1.9875691500e-4f);
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p                = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p                = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256  s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
    const __m256  s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
    __m256        y  = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
    y = _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(a.v, _mm256_set1_ps(88.7228391f), _CMP_GT_OQ));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(a.v, _mm256_set1_ps(-103.9f), _CMP_LT_OQ));
    return {_mm256_blendv_ps(y, a.v, _mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q))};
}

// tanh: odd Taylor polynomial for |x| < 0.3, 1 - 2 / (exp(2|x|) + 1) with the sign of x above.
inline VecAvx2 vtanh(VecAvx2 a) {
    const VecAvx2 ax  = vabs(a);
    const VecAvx2 one = VecAvx2::splat(1.0f);
    const VecAvx2 big = one - VecAvx2::splat(2.0f) / (vexp(ax + ax) + one);
    const VecAvx2 x2  = a * a;
    VecAvx2       p   = VecAvx2::splat(-1382.0f / 155925.0f);
    p                 = p * x2 + VecAvx2::splat(62.0f / 2835.0f);
    p                 = p * x2 + VecAvx2::splat(-17.0f / 315.0f);
    p                 = p * x2 + VecAvx2::splat(2.0f / 15.0f);
    p                 = p * x2 + VecAvx2::splat(-1.0f / 3.0f);
    const VecAvx2 small = a + a * x2 * p;
    const VecAvx2 signed_big{_mm256_or_ps(big.v, _mm256_and_ps(a.v, _mm256_set1_ps(-0.0f)))};
    return select_lt(ax, VecAvx2::splat(0.3f), small, signed_big);
}

inline VecAvx2 vexpm1(VecAvx2 a) { return lanewise(a, [](float x) { return std::expm1(x); }); }
inline VecAvx2 verf(VecAvx2 a) { return lanewise(a, [](float x) { return std::erf(x); }); }
inline VecAvx2 vlog(VecAvx2 a) { return lanewise(a, [](float x) { return std::log(x); }); }
inline VecAvx2 vlog1p(VecAvx2 a) { return lanewise(a, [](float x) { return std::log1p(x); }); }
inline VecAvx2 vsin(VecAvx2 a) { return lanewise(a, [](float x) { return std::sin(x); }); }
inline VecAvx2 vcos(VecAvx2 a) { return lanewise(a, [](float x) { return std::cos(x); }); }
inline VecAvx2 vround(VecAvx2 a) { return lanewise(a, [](float x) { return std::round(x); }); }
inline VecAvx2 vfloor(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vceil(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)}; }
inline VecAvx2 vtrunc(VecAvx2 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)}; }

#endif // SWITCHYARD_KERNELS_HAVE_AVX2

} // namespace
} // namespace switchyard::cpu::kernels

// ---- element-wise functors and row functions -------------------------------------------------------------------
//
// MapOp lists the one-input ops: the first GGML_UNARY_OP_COUNT values are ggml_unary_op in its order, then the
// ops with their own ggml_op. Each functor has `template <class V> static V apply(V x, const MapParams & p)`.

namespace switchyard::cpu::kernels {

enum class MapOp : int {
    // ggml_unary_op, same values
    kAbs, kSgn, kNeg, kStep, kTanh, kElu, kRelu, kSigmoid, kGelu, kGeluQuick, kSilu, kHardswish, kHardsigmoid,
    kExp, kExpm1, kSoftplus, kGeluErf, kXielu, kFloor, kCeil, kRound, kTrunc,
    // ops of their own
    kSqr, kSqrt, kLog, kSin, kCos, kLeakyRelu, kClamp, kScale,
    kCount
};
static_assert(static_cast<int>(MapOp::kTrunc) == GGML_UNARY_OP_TRUNC && static_cast<int>(MapOp::kSqr) ==
              GGML_UNARY_OP_COUNT, "MapOp must start with ggml_unary_op in its order");

constexpr int kMapOpCount = static_cast<int>(MapOp::kCount);

// Parameters of the parametrised ops: LEAKY_RELU {slope}, CLAMP {min, max}, SCALE {s, b}, XIELU {alpha_n, alpha_p,
// beta, eps}, SWIGLU_OAI {alpha, limit}.
struct MapParams {
    float p[4] = {0, 0, 0, 0};
};

using MapRowFn    = void (*)(const float * x, float * y, int64_t n, const MapParams & prm);
using BinaryRowFn = void (*)(const float * a, const float * b, float * y, int64_t n);
using GluRowFn    = void (*)(const float * x, const float * g, float * y, int64_t n, const MapParams & prm);

// The row functions of one ISA. y may equal x (or a) in every function: no restrict.
struct RowKernels {
    std::array<MapRowFn, kMapOpCount>          map{};
    std::array<BinaryRowFn, 4>                 binary{}; // add, sub, mul, div
    std::array<GluRowFn, GGML_GLU_OP_COUNT>    glu{};    // ggml_glu_op order
    double (*sum)(const float * x, int64_t n)                                         = nullptr;
    double (*sum_sq)(const float * x, int64_t n)                                      = nullptr;
    double (*sum_sq_dev)(const float * x, int64_t n, float mean)                      = nullptr; // sum (x-mean)^2
    void (*shift_scale)(const float * x, float * y, int64_t n, float shift, float s)  = nullptr; // (x-shift)*s
    const char * isa                                                                  = "";
};

// The table for this CPU (AVX2 + FMA when available and not capped by SWITCHYARD_CPU_ISA, else scalar).
const RowKernels & row_kernels();
// The scalar table (always available) and the AVX2 one (call only when features() has avx2 and fma).
const RowKernels & row_kernels_scalar();
const RowKernels & row_kernels_avx2();

namespace {

constexpr float kGeluCoefA     = 0.044715f;
constexpr float kGeluQuickCoef = 1.702f;
constexpr float kSqrt2OverPi   = 0.79788456080286535587989211986876f;
constexpr float kSqrt2Inv      = 0.70710678118654752440084436210484f;

template <class V> V vzero() { return V::splat(0.0f); }
template <class V> V vone() { return V::splat(1.0f); }
template <class V> V sigmoid(V x) { return vone<V>() / (vone<V>() + vexp(-x)); }
template <class V> V relu(V x) { return select_gt(x, vzero<V>(), x, vzero<V>()); }
template <class V> V silu(V x) { return x / (vone<V>() + vexp(-x)); }
// 0.5 x (1 + tanh(u)) written as x / (1 + exp(-2u)): the same function without the cancellation for x << 0
template <class V> V gelu(V x) {
    const V u = V::splat(kSqrt2OverPi) * x * (vone<V>() + V::splat(kGeluCoefA) * x * x);
    return x / (vone<V>() + vexp(V::splat(-2.0f) * u));
}
template <class V> V gelu_quick(V x) { return x / (vone<V>() + vexp(V::splat(-kGeluQuickCoef) * x)); }
template <class V> V gelu_erf(V x) {
    return V::splat(0.5f) * x * (vone<V>() + verf(x * V::splat(kSqrt2Inv)));
}
template <class V> V hardsigmoid(V x) {
    return vmin(vone<V>(), vmax(vzero<V>(), (x + V::splat(3.0f)) / V::splat(6.0f)));
}

struct OpAbs { template <class V> static V apply(V x, const MapParams &) { return vabs(x); } };
struct OpSgn {
    template <class V> static V apply(V x, const MapParams &) {
        const V z = vzero<V>();
        return select_gt(x, z, vone<V>(), select_lt(x, z, V::splat(-1.0f), z));
    }
};
struct OpNeg { template <class V> static V apply(V x, const MapParams &) { return -x; } };
struct OpStep {
    template <class V> static V apply(V x, const MapParams &) { return select_gt(x, vzero<V>(), vone<V>(), vzero<V>()); }
};
struct OpTanh { template <class V> static V apply(V x, const MapParams &) { return vtanh(x); } };
struct OpElu {
    template <class V> static V apply(V x, const MapParams &) { return select_gt(x, vzero<V>(), x, vexpm1(x)); }
};
struct OpRelu { template <class V> static V apply(V x, const MapParams &) { return relu(x); } };
struct OpSigmoid { template <class V> static V apply(V x, const MapParams &) { return sigmoid(x); } };
struct OpGelu { template <class V> static V apply(V x, const MapParams &) { return gelu(x); } };
struct OpGeluQuick { template <class V> static V apply(V x, const MapParams &) { return gelu_quick(x); } };
struct OpSilu { template <class V> static V apply(V x, const MapParams &) { return silu(x); } };
struct OpHardswish { template <class V> static V apply(V x, const MapParams &) { return x * hardsigmoid(x); } };
struct OpHardsigmoid { template <class V> static V apply(V x, const MapParams &) { return hardsigmoid(x); } };
struct OpExp { template <class V> static V apply(V x, const MapParams &) { return vexp(x); } };
struct OpExpm1 { template <class V> static V apply(V x, const MapParams &) { return vexpm1(x); } };
struct OpSoftplus {
    template <class V> static V apply(V x, const MapParams &) {
        return select_gt(x, V::splat(20.0f), x, vlog1p(vexp(x)));
    }
};
struct OpGeluErf { template <class V> static V apply(V x, const MapParams &) { return gelu_erf(x); } };
// p = {alpha_n, alpha_p, beta, eps}
struct OpXielu {
    template <class V> static V apply(V x, const MapParams & p) {
        const V beta = V::splat(p.p[2]);
        const V pos  = V::splat(p.p[1]) * x * x + beta * x;
        const V neg  = (vexpm1(vmin(x, V::splat(p.p[3]))) - x) * V::splat(p.p[0]) + beta * x;
        return select_gt(x, vzero<V>(), pos, neg);
    }
};
struct OpFloor { template <class V> static V apply(V x, const MapParams &) { return vfloor(x); } };
struct OpCeil { template <class V> static V apply(V x, const MapParams &) { return vceil(x); } };
struct OpRound { template <class V> static V apply(V x, const MapParams &) { return vround(x); } };
struct OpTrunc { template <class V> static V apply(V x, const MapParams &) { return vtrunc(x); } };
struct OpSqr { template <class V> static V apply(V x, const MapParams &) { return x * x; } };
struct OpSqrt { template <class V> static V apply(V x, const MapParams &) { return vsqrt(x); } };
struct OpLog { template <class V> static V apply(V x, const MapParams &) { return vlog(x); } };
struct OpSin { template <class V> static V apply(V x, const MapParams &) { return vsin(x); } };
struct OpCos { template <class V> static V apply(V x, const MapParams &) { return vcos(x); } };
// p = {slope}: max(x, 0) + slope * min(x, 0)
struct OpLeakyRelu {
    template <class V> static V apply(V x, const MapParams & p) {
        const V z = vzero<V>();
        return relu(x) + V::splat(p.p[0]) * select_lt(x, z, x, z);
    }
};
// p = {min, max}
struct OpClamp {
    template <class V> static V apply(V x, const MapParams & p) {
        return vmax(vmin(x, V::splat(p.p[1])), V::splat(p.p[0]));
    }
};
// p = {s, b}
struct OpScale {
    template <class V> static V apply(V x, const MapParams & p) { return x * V::splat(p.p[0]) + V::splat(p.p[1]); }
};

struct OpAdd { template <class V> static V apply(V a, V b) { return a + b; } };
struct OpSub { template <class V> static V apply(V a, V b) { return a - b; } };
struct OpMul { template <class V> static V apply(V a, V b) { return a * b; } };
struct OpDiv { template <class V> static V apply(V a, V b) { return a / b; } };

// GLU: activation of x times the gate g
struct GluReglu { template <class V> static V apply(V x, V g, const MapParams &) { return relu(x) * g; } };
struct GluGeglu { template <class V> static V apply(V x, V g, const MapParams &) { return gelu(x) * g; } };
struct GluSwiglu { template <class V> static V apply(V x, V g, const MapParams &) { return silu(x) * g; } };
struct GluGegluErf { template <class V> static V apply(V x, V g, const MapParams &) { return gelu_erf(x) * g; } };
struct GluGegluQuick {
    template <class V> static V apply(V x, V g, const MapParams &) { return gelu_quick(x) * g; }
};
// p = {alpha, limit}: x' = min(x, limit), g' = clamp(g, -limit, limit), x' * sigmoid(alpha x') * (g' + 1)
struct GluSwigluOai {
    template <class V> static V apply(V x, V g, const MapParams & p) {
        const V limit = V::splat(p.p[1]);
        const V xc    = vmin(x, limit);
        const V gc    = vmax(vmin(g, limit), -limit);
        return xc / (vone<V>() + vexp(-(V::splat(p.p[0]) * xc))) * (gc + vone<V>());
    }
};

template <class V, class Op>
void map_row(const float * x, float * y, int64_t n, const MapParams & prm) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(x + i), prm).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(x + i), prm).store(y + i);
    }
}

template <class V, class Op>
void binary_row(const float * a, const float * b, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(a + i), V::load(b + i)).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(a + i), VecScalar::load(b + i)).store(y + i);
    }
}

template <class V, class Op>
void glu_row(const float * x, const float * g, float * y, int64_t n, const MapParams & prm) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(x + i), V::load(g + i), prm).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(x + i), VecScalar::load(g + i), prm).store(y + i);
    }
}

// Reductions accumulate kChunk elements in lanes, then add the chunk's total in double.
template <class V, class Term>
double reduce_row(const float * x, int64_t n, Term term) {
    double total = 0.0;
    for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t end = std::min(n, c + kChunk);
        V             acc = vzero<V>();
        int64_t       i   = c;
        for (; i + V::kLanes <= end; i += V::kLanes) {
            acc = acc + term(V::load(x + i));
        }
        float rest = 0.0f;
        for (; i < end; ++i) {
            rest += hsum(term(VecScalar::load(x + i)));
        }
        total += static_cast<double>(hsum(acc)) + static_cast<double>(rest);
    }
    return total;
}

template <class V>
double sum_row(const float * x, int64_t n) {
    return reduce_row<V>(x, n, [](auto v) { return v; });
}

template <class V>
double sum_sq_row(const float * x, int64_t n) {
    return reduce_row<V>(x, n, [](auto v) { return v * v; });
}

template <class V>
double sum_sq_dev_row(const float * x, int64_t n, float mean) {
    return reduce_row<V>(x, n, [mean](auto v) {
        const auto d = v - decltype(v)::splat(mean);
        return d * d;
    });
}

template <class V>
void shift_scale_row(const float * x, float * y, int64_t n, float shift, float s) {
    MapParams prm;
    prm.p[0] = s;
    prm.p[1] = -shift * s;
    map_row<V, OpScale>(x, y, n, prm);
}

template <class V>
RowKernels make_row_kernels(const char * isa) {
    RowKernels k;
    auto set = [&k](MapOp op, MapRowFn fn) { k.map[static_cast<size_t>(op)] = fn; };
    set(MapOp::kAbs, map_row<V, OpAbs>);             set(MapOp::kSgn, map_row<V, OpSgn>);
    set(MapOp::kNeg, map_row<V, OpNeg>);             set(MapOp::kStep, map_row<V, OpStep>);
    set(MapOp::kTanh, map_row<V, OpTanh>);           set(MapOp::kElu, map_row<V, OpElu>);
    set(MapOp::kRelu, map_row<V, OpRelu>);           set(MapOp::kSigmoid, map_row<V, OpSigmoid>);
    set(MapOp::kGelu, map_row<V, OpGelu>);           set(MapOp::kGeluQuick, map_row<V, OpGeluQuick>);
    set(MapOp::kSilu, map_row<V, OpSilu>);           set(MapOp::kHardswish, map_row<V, OpHardswish>);
    set(MapOp::kHardsigmoid, map_row<V, OpHardsigmoid>);
    set(MapOp::kExp, map_row<V, OpExp>);             set(MapOp::kExpm1, map_row<V, OpExpm1>);
    set(MapOp::kSoftplus, map_row<V, OpSoftplus>);   set(MapOp::kGeluErf, map_row<V, OpGeluErf>);
    set(MapOp::kXielu, map_row<V, OpXielu>);         set(MapOp::kFloor, map_row<V, OpFloor>);
    set(MapOp::kCeil, map_row<V, OpCeil>);           set(MapOp::kRound, map_row<V, OpRound>);
    set(MapOp::kTrunc, map_row<V, OpTrunc>);         set(MapOp::kSqr, map_row<V, OpSqr>);
    set(MapOp::kSqrt, map_row<V, OpSqrt>);           set(MapOp::kLog, map_row<V, OpLog>);
    set(MapOp::kSin, map_row<V, OpSin>);             set(MapOp::kCos, map_row<V, OpCos>);
    set(MapOp::kLeakyRelu, map_row<V, OpLeakyRelu>); set(MapOp::kClamp, map_row<V, OpClamp>);
    set(MapOp::kScale, map_row<V, OpScale>);
    k.binary = {binary_row<V, OpAdd>, binary_row<V, OpSub>, binary_row<V, OpMul>, binary_row<V, OpDiv>};
    k.glu    = {glu_row<V, GluReglu>, glu_row<V, GluGeglu>, glu_row<V, GluSwiglu>, glu_row<V, GluSwigluOai>,
                glu_row<V, GluGegluErf>, glu_row<V, GluGegluQuick>};
    k.sum         = sum_row<V>;
    k.sum_sq      = sum_sq_row<V>;
    k.sum_sq_dev  = sum_sq_dev_row<V>;
    k.shift_scale = shift_scale_row<V>;
    k.isa         = isa;
    return k;
}

} // namespace
} // namespace switchyard::cpu::kernels

