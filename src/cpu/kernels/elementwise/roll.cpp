// ROLL: dst[i0, i1, i2, i3] = src[(i0 - s0) mod ne0, (i1 - s1) mod ne1, ...] with op_params (i32) [0..3] = the
// shifts {s0, s1, s2, s3} (any sign; reduced mod ne here, so larger shifts work too).
//
// Types: src and dst of one type with one element per unit (F32, F16, BF16, the integer types, ...): elements are
// copied as bytes. Any strides; dst must not overlap src. Threads split the rows of dst; each row is two copies.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

// (i - shift) mod n, in [0, n)
int64_t source_index(int64_t i, int64_t shift, int64_t n) {
    if (n <= 0) {
        return 0;
    }
    const int64_t j = (i - shift) % n;
    return j < 0 ? j + n : j;
}

void roll_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       n0   = dst->ne[0];
    const size_t        size = ggml_type_size(dst->type);
    const int64_t       s0   = source_index(0, op_i32(dst, 0), n0); // dst[0] comes from src[s0]
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s = row_ptr(src, source_index(c.i1, op_i32(dst, 1), dst->ne[1]),
                                    source_index(c.i2, op_i32(dst, 2), dst->ne[2]),
                                    source_index(c.i3, op_i32(dst, 3), dst->ne[3]));
        char *          d = row_ptr(dst, c);
        // dst[0, n0 - s0) = src[s0, n0), dst[n0 - s0, n0) = src[0, s0)
        copy_units(d, dst->nb[0], s + s0 * static_cast<int64_t>(src->nb[0]), src->nb[0], n0 - s0, size);
        copy_units(d + (n0 - s0) * static_cast<int64_t>(dst->nb[0]), dst->nb[0], s, src->nb[0], s0, size);
    }
}

bool roll_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    return src && src->type == dst->type && ggml_blck_size(dst->type) == 1 && ggml_are_same_shape(src, dst);
}

} // namespace

KernelInfo roll(ggml_op op) {
    return op == GGML_OP_ROLL ? KernelInfo{roll_compute, nullptr, nullptr, roll_supports} : KernelInfo{};
}

} // namespace switchyard::cpu::kernels
