// ARGSORT (indices that sort each row; op_params[0]: ggml_sort_order) and TOP_K (indices of the k largest
// values of each row, k = dst->ne[0]; returned largest first, which satisfies "in no particular order").
//
// Both work in dst's rows and read the values in place, so they need no scratch and allocate nothing. The order is
// that of a stable sort by value (ties keep index order), made total for NaN: NaNs come after every number, in
// index order, in both directions.
#include "cpu/kernels/families.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace switchyard::cpu::kernels {

namespace {

float load(const ggml_tensor * t, const char * p) {
    switch (t->type) {
        case GGML_TYPE_F16: return fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p));
        case GGML_TYPE_I32: return static_cast<float>(*reinterpret_cast<const int32_t *>(p));
        default:            return *reinterpret_cast<const float *>(p);
    }
}

// "index x comes before index y" in one row of a; a strict total order.
class RowOrder {
public:
    RowOrder(const ggml_tensor * a, int64_t r, bool descending) : a_(a), descending_(descending) {
        const int64_t i1 = r % a->ne[1], i2 = (r / a->ne[1]) % a->ne[2], i3 = r / (a->ne[1] * a->ne[2]);
        row_             = static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
    }

    bool operator()(int32_t x, int32_t y) const {
        const float vx = value(x), vy = value(y);
        const bool  nx = std::isnan(vx), ny = std::isnan(vy);
        if (nx != ny) {
            return ny;
        }
        if (!nx && vx != vy) {
            return descending_ ? vx > vy : vx < vy;
        }
        return x < y;
    }

private:
    float value(int32_t i) const { return load(a_, row_ + i * static_cast<int64_t>(a_->nb[0])); }

    const ggml_tensor * a_;
    const char *        row_ = nullptr;
    bool                descending_;
};

int32_t * dst_row(ggml_tensor * dst, int64_t r) {
    const int64_t i1 = r % dst->ne[1], i2 = (r / dst->ne[1]) % dst->ne[2], i3 = r / (dst->ne[1] * dst->ne[2]);
    return reinterpret_cast<int32_t *>(static_cast<char *>(dst->data) + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3]);
}

void argsort_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a    = dst->src[0];
    const bool          desc = get_op_param_i32(dst, 0) == GGML_SORT_ORDER_DESC;
    for (int64_t r = p.ith; r < ggml_nrows(a); r += p.nth) {
        int32_t * idx = dst_row(dst, r);
        std::iota(idx, idx + a->ne[0], 0);
        std::sort(idx, idx + a->ne[0], RowOrder(a, r, desc));
    }
}

// The k first indices in descending order, kept in dst's row as a heap whose front is the last of them.
void top_k_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const int64_t       k = dst->ne[0];
    for (int64_t r = p.ith; r < ggml_nrows(a); r += p.nth) {
        const RowOrder before(a, r, true);
        int32_t *      heap = dst_row(dst, r);
        int64_t        n    = 0;
        for (int32_t i = 0; i < a->ne[0]; ++i) {
            if (n < k) {
                heap[n++] = i;
                std::push_heap(heap, heap + n, before);
            } else if (before(i, heap[0])) {
                std::pop_heap(heap, heap + k, before);
                heap[k - 1] = i;
                std::push_heap(heap, heap + k, before);
            }
        }
        std::sort_heap(heap, heap + k, before);
    }
}

bool sort_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    return a && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_I32) &&
           dst->type == GGML_TYPE_I32 && dst->nb[0] == sizeof(int32_t) && a->ne[0] <= INT32_MAX &&
           dst->ne[1] == a->ne[1] && dst->ne[2] == a->ne[2] && dst->ne[3] == a->ne[3];
}

bool argsort_supports(const ggml_tensor * dst) {
    return sort_supports(dst) && dst->ne[0] == dst->src[0]->ne[0];
}

bool top_k_supports(const ggml_tensor * dst) {
    return sort_supports(dst) && dst->ne[0] <= dst->src[0]->ne[0];
}

} // namespace

KernelInfo sort(ggml_op op) {
    switch (op) {
        case GGML_OP_ARGSORT: return KernelInfo{argsort_compute, nullptr, nullptr, argsort_supports};
        case GGML_OP_TOP_K:   return KernelInfo{top_k_compute, nullptr, nullptr, top_k_supports};
        default:              return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
