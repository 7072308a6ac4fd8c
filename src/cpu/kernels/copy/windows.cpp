// Row-wise ops of masks, counts and windows: DIAG_MASK_ZERO, COUNT_EQUAL and SAM's WIN_PART, WIN_UNPART,
// GET_REL_POS and ADD_REL_POS. The shape rules and op_params are those of the constructors (core/ops/rows.cpp,
// reduce.cpp, sam.cpp); each kernel here honours any strides and splits the rows of dst between the threads.
//
// DIAG_MASK_ZERO: op_params[0] = n_past; dst = src with elements i0 > n_past + i1 set to 0 (dst may be src).
//   F32, F16, BF16, one type on both sides.
// COUNT_EQUAL: src0, src1 of one shape and type (F32 or I32) -> dst I64 [1]: the number of equal positions. One
//   thread (the count is exact at any size).
// WIN_PART / WIN_UNPART: rows of ne0 elements moved between the image and its windows, zeros in the padding; F32.
// GET_REL_POS: dst row (k, q) = src row (kh - 1 - k + q); src F32/F16/BF16, dst F16.
// ADD_REL_POS: dst[c, r, i] = src0[c, r, i] + ph[c / kw, r % qw, r / qw, i] + pw[c % kw, r % qw, r / qw, i]
//   (src1 = pw, src2 = ph); F32; dst may be src0.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

// ---- DIAG_MASK_ZERO ----

void diag_mask_zero_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src    = dst->src[0];
    const int64_t       n_past = op_i32(dst, 0);
    const Range         rows   = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s = row_ptr(src, c);
        char *          d = row_ptr(dst, c);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            const float v = i0 > n_past + c.i1 ? 0.0f : load_value(src->type, s + i0 * static_cast<int64_t>(src->nb[0]));
            store_value(dst->type, d + i0 * static_cast<int64_t>(dst->nb[0]), v);
        }
    }
}

bool diag_mask_zero_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && src->type == dst->type && is_float_type(dst->type) && ggml_are_same_shape(src, dst);
}

// ---- COUNT_EQUAL ----

void count_equal_compute(const ComputeParams &, ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    const size_t        size = ggml_type_size(a->type);
    int64_t             count = 0;
    for (int64_t r = 0; r < ggml_nrows(a); ++r) {
        const RowCoords c  = row_coords(a, r);
        const char *    ra = row_ptr(a, c);
        const char *    rb = row_ptr(b, c);
        for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) {
            const char * ea = ra + i0 * static_cast<int64_t>(a->nb[0]);
            const char * eb = rb + i0 * static_cast<int64_t>(b->nb[0]);
            if (a->type == GGML_TYPE_I32) {
                count += std::memcmp(ea, eb, size) == 0 ? 1 : 0;
            } else {
                count += load_value(a->type, ea) == load_value(b->type, eb) ? 1 : 0;
            }
        }
    }
    std::memcpy(dst->data, &count, sizeof(count));
}

bool count_equal_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    return a && b && a->type == b->type && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_I32) &&
           ggml_are_same_shape(a, b) && dst->type == GGML_TYPE_I64 && ggml_nelements(dst) == 1;
}

// ---- WIN_PART / WIN_UNPART ----

// Copies the row of ne0 units at s into d, or zeros it when s is null.
void move_row(char * d, const ggml_tensor * dst, const char * s, const ggml_tensor * src) {
    const size_t size = ggml_type_size(dst->type);
    if (s) {
        copy_units(d, dst->nb[0], s, src->nb[0], dst->ne[0], size);
    } else {
        zero_units(d, dst->nb[0], dst->ne[0], size);
    }
}

void win_part_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       npx  = op_i32(dst, 0);
    const int64_t       w    = op_i32(dst, 2);
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (x in window, y in window, window)
        const int64_t   x = (c.i3 % npx) * w + c.i1;
        const int64_t   y = (c.i3 / npx) * w + c.i2;
        const bool      inside = x < src->ne[1] && y < src->ne[2];
        move_row(row_ptr(dst, c), dst, inside ? row_ptr(src, x, y, 0) : nullptr, src);
    }
}

bool win_part_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || src->type != GGML_TYPE_F32 || dst->type != GGML_TYPE_F32 || src->ne[3] != 1) {
        return false;
    }
    const int64_t npx = op_i32(dst, 0), npy = op_i32(dst, 1), w = op_i32(dst, 2);
    return w > 0 && dst->ne[0] == src->ne[0] && dst->ne[1] == w && dst->ne[2] == w && npx * w >= src->ne[1] &&
           npy * w >= src->ne[2] && dst->ne[3] == npx * npy;
}

void win_unpart_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       w    = op_i32(dst, 0);
    const int64_t       npx  = (dst->ne[1] + w - 1) / w;
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (x, y, 0)
        move_row(row_ptr(dst, c), dst, row_ptr(src, c.i1 % w, c.i2 % w, (c.i2 / w) * npx + c.i1 / w), src);
    }
}

bool win_unpart_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || src->type != GGML_TYPE_F32 || dst->type != GGML_TYPE_F32 || dst->ne[3] != 1) {
        return false;
    }
    const int64_t w = op_i32(dst, 0);
    return w > 0 && src->ne[0] == dst->ne[0] && src->ne[1] == w && src->ne[2] == w &&
           src->ne[3] == ((dst->ne[1] + w - 1) / w) * ((dst->ne[2] + w - 1) / w);
}

// ---- GET_REL_POS ----

void get_rel_pos_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       kh   = dst->ne[1];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (k, q, 0)
        const char *    s = row_ptr(src, kh - 1 - c.i1 + c.i2, 0, 0);
        char *          d = row_ptr(dst, c);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            store_value(dst->type, d + i0 * static_cast<int64_t>(dst->nb[0]),
                        load_value(src->type, s + i0 * static_cast<int64_t>(src->nb[0])));
        }
    }
}

bool get_rel_pos_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && is_float_type(src->type) && dst->type == GGML_TYPE_F16 && dst->ne[0] == src->ne[0] &&
           dst->ne[1] == dst->ne[2] && src->ne[1] == 2 * dst->ne[1] - 1 && dst->ne[3] == 1;
}

// ---- ADD_REL_POS ----

void add_rel_pos_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a    = dst->src[0];
    const ggml_tensor * pw   = dst->src[1];
    const ggml_tensor * ph   = dst->src[2];
    const int64_t       kw   = pw->ne[0];
    const int64_t       qw   = pw->ne[1];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r); // (query position, head, 0)
        const int64_t   qx = c.i1 % qw, qy = c.i1 / qw;
        const char *    s  = row_ptr(a, c);
        char *          d  = row_ptr(dst, c);
        const char *    rw = row_ptr(pw, qx, qy, c.i2);
        const char *    rh = row_ptr(ph, qx, qy, c.i2);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            float v;
            std::memcpy(&v, s + i0 * static_cast<int64_t>(a->nb[0]), sizeof(v));
            float h, x;
            std::memcpy(&h, rh + (i0 / kw) * static_cast<int64_t>(ph->nb[0]), sizeof(h));
            std::memcpy(&x, rw + (i0 % kw) * static_cast<int64_t>(pw->nb[0]), sizeof(x));
            v += h + x;
            std::memcpy(d + i0 * static_cast<int64_t>(dst->nb[0]), &v, sizeof(v));
        }
    }
}

bool add_rel_pos_supports(const ggml_tensor * dst) {
    const ggml_tensor * a  = dst->src[0];
    const ggml_tensor * pw = dst->src[1];
    const ggml_tensor * ph = dst->src[2];
    if (!a || !pw || !ph || a->type != GGML_TYPE_F32 || pw->type != GGML_TYPE_F32 || ph->type != GGML_TYPE_F32 ||
        dst->type != GGML_TYPE_F32) {
        return false;
    }
    return ggml_are_same_shape(a, dst) && ggml_are_same_shape(pw, ph) && pw->ne[0] * pw->ne[0] == a->ne[0] &&
           pw->ne[1] * pw->ne[2] == a->ne[1] && pw->ne[3] == a->ne[2] && a->ne[3] == 1;
}

} // namespace

KernelInfo windows(ggml_op op) {
    switch (op) {
        case GGML_OP_DIAG_MASK_ZERO: return KernelInfo{diag_mask_zero_compute, nullptr, nullptr, diag_mask_zero_supports};
        case GGML_OP_COUNT_EQUAL:    return KernelInfo{count_equal_compute, single_task, nullptr, count_equal_supports};
        case GGML_OP_WIN_PART:       return KernelInfo{win_part_compute, nullptr, nullptr, win_part_supports};
        case GGML_OP_WIN_UNPART:     return KernelInfo{win_unpart_compute, nullptr, nullptr, win_unpart_supports};
        case GGML_OP_GET_REL_POS:    return KernelInfo{get_rel_pos_compute, nullptr, nullptr, get_rel_pos_supports};
        case GGML_OP_ADD_REL_POS:    return KernelInfo{add_rel_pos_compute, nullptr, nullptr, add_rel_pos_supports};
        default:                     return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
