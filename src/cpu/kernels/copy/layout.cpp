// Layout ops of the copy family: SET, REPEAT, CONCAT and PAD. They move elements without arithmetic, so most work
// on any type as bytes.
//
// SET: op_params (i32) {nb1, nb2, nb3, offset, inplace}: dst = src0 (copied unless dst is src0's memory), then the
// view of dst with those byte strides and offset (shape of src1) = src1. src0 and dst contiguous of one plain type;
// src1 of the same type, or both of F32/F16/BF16/I32 (converted). One thread.
// REPEAT: dst[i] = src[i mod src->ne] in every dimension (ggml_can_repeat), one plain type on both sides.
// CONCAT: op_params [0] dim: dst = src0 followed by src1 along dim; one type for all three, block formats too
// (along dim 0 in whole blocks; their rows must hold adjacent blocks).
// PAD: op_params (i32) {lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3, circular}: dst->ne[k] = src->ne[k] + lpk + rpk;
// zeros outside the source, or with circular != 0 the source repeated around (dst[i] = src[(i - lp) mod ne]).
// One plain type on both sides. All ops honour any strides and split dst rows between threads.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "base/log.h"

namespace switchyard::cpu::kernels {

namespace {

// ---- SET ----

void set_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const ViewParams    v    = view_params(dst);
    if (p.ith != 0) {
        return;
    }
    if (!view_in_bounds(dst, v, src1)) {
        log_error("[set] view (offset %zu, nb %zu %zu %zu) of %s leaves its %zu bytes\n", v.offset, v.nb1, v.nb2, v.nb3,
                  dst->name, ggml_nbytes(dst));
        return;
    }
    if (dst->data != src0->data) {
        std::memcpy(dst->data, src0->data, ggml_nbytes(dst));
    }
    const ggml_tensor view = make_view(dst, v, src1);
    float             buf[kChunk];
    for (int64_t r = 0; r < ggml_nrows(src1); ++r) {
        const RowCoords c = row_coords(src1, r);
        const char *    s = row_ptr(src1, c);
        char *          d = row_ptr(&view, c);
        if (src1->type == dst->type) {
            copy_units(d, view.nb[0], s, src1->nb[0], src1->ne[0], ggml_type_size(dst->type));
            continue;
        }
        for (int64_t i = 0; i < src1->ne[0]; i += kChunk) {
            const int64_t m = std::min(kChunk, src1->ne[0] - i);
            read_chunk(src1, s, i, m, buf);
            write_chunk(&view, d, i, m, buf);
        }
    }
}

bool set_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    if (!src0 || !src1 || src0->type != dst->type || ggml_is_quantized(dst->type) || !ggml_are_same_shape(src0, dst) ||
        !ggml_is_contiguous(src0) || !ggml_is_contiguous(dst)) {
        return false;
    }
    return src1->type == dst->type || (is_scalar_convertible(src1->type) && is_scalar_convertible(dst->type));
}

// ---- REPEAT ----

void repeat_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const size_t        size = ggml_type_size(dst->type);
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s =
            row_ptr(src, wrap_index(c.i1, src->ne[1]), wrap_index(c.i2, src->ne[2]), wrap_index(c.i3, src->ne[3]));
        char *          d = row_ptr(dst, c);
        for (int64_t k = 0; k < dst->ne[0]; k += src->ne[0]) {
            copy_units(d + k * static_cast<int64_t>(dst->nb[0]), dst->nb[0], s, src->nb[0], src->ne[0], size);
        }
    }
}

bool repeat_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && src->type == dst->type && !ggml_is_quantized(dst->type) && ggml_can_repeat(src, dst);
}

// ---- CONCAT ----

void concat_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const int           dim  = op_i32(dst, 0);
    const size_t        size = ggml_type_size(dst->type);
    const int64_t       bs   = ggml_blck_size(dst->type);
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        char *          d = row_ptr(dst, c);
        if (dim == 0) {
            const int64_t n0 = src0->ne[0] / bs;
            copy_units(d, dst->nb[0], row_ptr(src0, c), src0->nb[0], n0, size);
            copy_units(d + n0 * static_cast<int64_t>(dst->nb[0]), dst->nb[0], row_ptr(src1, c), src1->nb[0],
                       src1->ne[0] / bs, size);
            continue;
        }
        int64_t idx[4] = {0, c.i1, c.i2, c.i3};
        const ggml_tensor * from = src0;
        if (idx[dim] >= src0->ne[dim]) {
            idx[dim] -= src0->ne[dim];
            from = src1;
        }
        copy_units(d, dst->nb[0], row_ptr(from, idx[1], idx[2], idx[3]), from->nb[0], dst->ne[0] / bs, size);
    }
}

bool concat_supports(const ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];
    const ggml_tensor * src1 = dst->src[1];
    const int           dim  = op_i32(dst, 0);
    if (!src0 || !src1 || dim < 0 || dim >= GGML_MAX_DIMS || src0->type != dst->type || src1->type != dst->type) {
        return false;
    }
    for (int k = 0; k < GGML_MAX_DIMS; ++k) {
        const int64_t want = k == dim ? src0->ne[k] + src1->ne[k] : src0->ne[k];
        if (dst->ne[k] != want || (k != dim && src1->ne[k] != src0->ne[k])) {
            return false;
        }
    }
    return !ggml_is_quantized(dst->type) || (has_unit_stride(src0) && has_unit_stride(src1) && has_unit_stride(dst));
}

// ---- PAD ----

struct Pads {
    int64_t lp[4], rp[4];
    bool    circular;
};

Pads pads(const ggml_tensor * dst) {
    Pads p{};
    for (int k = 0; k < 4; ++k) {
        p.lp[k] = op_i32(dst, 2 * k);
        p.rp[k] = op_i32(dst, 2 * k + 1);
    }
    p.circular = op_i32(dst, 8) != 0;
    return p;
}

// i - lp wrapped into [0, n)
int64_t wrap(int64_t i, int64_t lp, int64_t n) {
    return ((i - lp) % n + n) % n;
}

void pad_circular_row(const ggml_tensor * src, const Pads & pd, const RowCoords & c, ggml_tensor * dst, char * d) {
    const char * s    = row_ptr(src, wrap(c.i1, pd.lp[1], src->ne[1]), wrap(c.i2, pd.lp[2], src->ne[2]),
                                wrap(c.i3, pd.lp[3], src->ne[3]));
    const size_t size = ggml_type_size(dst->type);
    for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
        std::memcpy(d + i0 * static_cast<int64_t>(dst->nb[0]),
                    s + wrap(i0, pd.lp[0], src->ne[0]) * static_cast<int64_t>(src->nb[0]), size);
    }
}

void pad_zero_row(const ggml_tensor * src, const Pads & pd, const RowCoords & c, ggml_tensor * dst, char * d) {
    const size_t  size = ggml_type_size(dst->type);
    const int64_t s1 = c.i1 - pd.lp[1], s2 = c.i2 - pd.lp[2], s3 = c.i3 - pd.lp[3];
    const bool    inside = s1 >= 0 && s1 < src->ne[1] && s2 >= 0 && s2 < src->ne[2] && s3 >= 0 && s3 < src->ne[3];
    if (!inside) {
        zero_units(d, dst->nb[0], dst->ne[0], size);
        return;
    }
    const int64_t nb0 = static_cast<int64_t>(dst->nb[0]);
    zero_units(d, dst->nb[0], pd.lp[0], size);
    copy_units(d + pd.lp[0] * nb0, dst->nb[0], row_ptr(src, s1, s2, s3), src->nb[0], src->ne[0], size);
    zero_units(d + (pd.lp[0] + src->ne[0]) * nb0, dst->nb[0], dst->ne[0] - pd.lp[0] - src->ne[0], size);
}

void pad_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const Pads          pd   = pads(dst);
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        if (pd.circular) {
            pad_circular_row(src, pd, c, dst, row_ptr(dst, c));
        } else {
            pad_zero_row(src, pd, c, dst, row_ptr(dst, c));
        }
    }
}

bool pad_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || src->type != dst->type || ggml_is_quantized(dst->type)) {
        return false;
    }
    const Pads pd = pads(dst);
    for (int k = 0; k < GGML_MAX_DIMS; ++k) {
        if (pd.lp[k] < 0 || pd.rp[k] < 0 || dst->ne[k] != src->ne[k] + pd.lp[k] + pd.rp[k]) {
            return false;
        }
        if (pd.circular && src->ne[k] == 0 && dst->ne[k] != 0) {
            return false;
        }
    }
    return true;
}

} // namespace

KernelInfo copy_layout(ggml_op op) {
    switch (op) {
        case GGML_OP_SET:    return KernelInfo{set_compute, single_task, nullptr, set_supports};
        case GGML_OP_REPEAT: return KernelInfo{repeat_compute, nullptr, nullptr, repeat_supports};
        case GGML_OP_CONCAT: return KernelInfo{concat_compute, nullptr, nullptr, concat_supports};
        case GGML_OP_PAD:    return KernelInfo{pad_compute, nullptr, nullptr, pad_supports};
        default:             return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
