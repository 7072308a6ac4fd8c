// Generators of the copy family: ARANGE and TIMESTEP_EMBEDDING.
//
// ARANGE: op_params (f32) {start, stop, step}: dst[i] = start + step * i for the ne0 elements of a 1-d dst (F32,
// F16 or BF16).
// TIMESTEP_EMBEDDING: op_params (i32) {dim, max_period}; src: timesteps [N] (F32, F16 or BF16), dst [>= dim, N]
// (float type): with half = dim / 2, freq_j = exp(-ln(max_period) * j / half), row i holds cos(t_i * freq_j) at
// j and sin(t_i * freq_j) at j + half for j < half, and zeros from 2 * half on (the padding of an odd dim).
// Both split their output between threads and honour any strides.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include <cmath>

namespace switchyard::cpu::kernels {

namespace {

void arange_compute(const ComputeParams & p, ggml_tensor * dst) {
    const float start = op_f32(dst, 0);
    const float step  = op_f32(dst, 2);
    const Range r     = thread_range(p, dst->ne[0]);
    for (int64_t i = r.begin; i < r.end; ++i) {
        store_value(dst->type, elem_ptr(dst, i, 0, 0, 0), start + step * static_cast<float>(i));
    }
}

bool arange_supports(const ggml_tensor * dst) {
    return is_float_type(dst->type) && ggml_nrows(dst) == 1;
}

void timestep_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src        = dst->src[0];
    const int64_t       half       = op_i32(dst, 0) / 2;
    const float         log_period = std::log(static_cast<float>(op_i32(dst, 1)));
    const Range         rows       = thread_range(p, dst->ne[1]);
    float               buf[kChunk];
    for (int64_t i = rows.begin; i < rows.end; ++i) {
        const float t = load_value(src->type, elem_ptr(src, i, 0, 0, 0));
        char *      d = row_ptr(dst, i, 0, 0);
        for (int64_t c = 0; c < dst->ne[0]; c += kChunk) {
            const int64_t m = std::min(kChunk, dst->ne[0] - c);
            for (int64_t k = 0; k < m; ++k) {
                const int64_t j = c + k;
                if (j >= 2 * half) {
                    buf[k] = 0.0f;
                    continue;
                }
                const int64_t jj   = j < half ? j : j - half;
                const float   freq = std::exp(-log_period * static_cast<float>(jj) / static_cast<float>(half));
                buf[k]             = j < half ? std::cos(t * freq) : std::sin(t * freq);
            }
            store_row(dst->type, buf, d + c * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
        }
    }
}

bool timestep_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    const int32_t       dim = op_i32(dst, 0);
    return src && is_float_type(src->type) && is_float_type(dst->type) && dim >= 0 && dst->ne[0] >= dim &&
           dst->ne[1] == src->ne[0] && ggml_nrows(src) == 1 && dst->ne[2] == 1 && dst->ne[3] == 1 &&
           op_i32(dst, 1) > 0;
}

} // namespace

KernelInfo copy_fill(ggml_op op) {
    switch (op) {
        case GGML_OP_ARANGE:             return KernelInfo{arange_compute, nullptr, nullptr, arange_supports};
        case GGML_OP_TIMESTEP_EMBEDDING: return KernelInfo{timestep_compute, nullptr, nullptr, timestep_supports};
        default:                         return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
