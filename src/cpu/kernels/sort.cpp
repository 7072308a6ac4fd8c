// ARGSORT (indices that sort each row; op_params[0]: ggml_sort_order) and TOP_K (indices of the k largest
// values of each row, k = dst->ne[0]; returned largest first, which satisfies "in no particular order").
#include "cpu/kernels/families.h"

#include "base/fp16.h"
#include "core/tensor.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace switchyard::cpu::kernels {

namespace {

float load(const ggml_tensor * t, const char * p) {
    switch (t->type) {
        case GGML_TYPE_F16: return fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p));
        case GGML_TYPE_I32: return static_cast<float>(*reinterpret_cast<const int32_t *>(p));
        default:            return *reinterpret_cast<const float *>(p);
    }
}

// Sorts the indices of one row; ties keep index order (deterministic).
void sorted_indices(const ggml_tensor * a, int64_t r, bool descending, std::vector<int32_t> & idx, std::vector<float> & vals) {
    const int64_t ne0 = a->ne[0];
    const int64_t i1 = r % a->ne[1], i2 = (r / a->ne[1]) % a->ne[2], i3 = r / (a->ne[1] * a->ne[2]);
    const char *  row = static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
    vals.resize(static_cast<size_t>(ne0));
    idx.resize(static_cast<size_t>(ne0));
    for (int64_t i = 0; i < ne0; ++i) {
        vals[static_cast<size_t>(i)] = load(a, row + i * a->nb[0]);
    }
    std::iota(idx.begin(), idx.end(), 0);
    if (descending) {
        std::stable_sort(idx.begin(), idx.end(), [&](int32_t x, int32_t y) { return vals[static_cast<size_t>(x)] > vals[static_cast<size_t>(y)]; });
    } else {
        std::stable_sort(idx.begin(), idx.end(), [&](int32_t x, int32_t y) { return vals[static_cast<size_t>(x)] < vals[static_cast<size_t>(y)]; });
    }
}

void write_row(ggml_tensor * dst, int64_t r, const std::vector<int32_t> & idx) {
    const int64_t i1 = r % dst->ne[1], i2 = (r / dst->ne[1]) % dst->ne[2], i3 = r / (dst->ne[1] * dst->ne[2]);
    char *        out = static_cast<char *>(dst->data) + i1 * dst->nb[1] + i2 * dst->nb[2] + i3 * dst->nb[3];
    for (int64_t i = 0; i < dst->ne[0]; ++i) {
        *reinterpret_cast<int32_t *>(out + i * dst->nb[0]) = idx[static_cast<size_t>(i)];
    }
}

void argsort_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *  a    = dst->src[0];
    const bool           desc = get_op_param_i32(dst, 0) == GGML_SORT_ORDER_DESC;
    std::vector<int32_t> idx;
    std::vector<float>   vals;
    for (int64_t r = p.ith; r < ggml_nrows(a); r += p.nth) {
        sorted_indices(a, r, desc, idx, vals);
        write_row(dst, r, idx);
    }
}

void top_k_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor *  a = dst->src[0];
    std::vector<int32_t> idx;
    std::vector<float>   vals;
    for (int64_t r = p.ith; r < ggml_nrows(a); r += p.nth) {
        sorted_indices(a, r, true, idx, vals);
        write_row(dst, r, idx);
    }
}

bool sort_supports(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    return a && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_I32) &&
           dst->type == GGML_TYPE_I32 && dst->ne[0] <= a->ne[0];
}

} // namespace

KernelInfo sort(ggml_op op) {
    switch (op) {
        case GGML_OP_ARGSORT: return KernelInfo{argsort_compute, nullptr, nullptr, sort_supports};
        case GGML_OP_TOP_K:   return KernelInfo{top_k_compute, nullptr, nullptr, sort_supports};
        default:              return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
