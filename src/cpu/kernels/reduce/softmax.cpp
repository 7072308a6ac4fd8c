// SOFT_MAX: dst = softmax(a*scale + slope*mask) along rows, with optional per-head sink logits.
// op_params: scale (f32), max_bias (f32). src[1]: mask F32/F16 [ne0, >= ne01, ne12, ne13], broadcast over dims
// 2 and 3; src[2]: sinks F32 [ne02]. slope is the ALiBi slope of the head (i02) when max_bias > 0, else 1.
//
// Each row is computed in float in three passes (logits and their max, exponentials and their sum, scaling) by the
// row steps of the selected ISA (softmax_rows.h). An F32 dst row with adjacent elements holds the intermediate
// values itself (also in place, dst == a: every element is read before it is written); otherwise they go to a
// float row per thread in the scratch (work_size). Inputs that are not F32 rows with adjacent elements (F16 masks,
// F16 or strided a) are converted kChunk elements at a time on the stack. Threads take contiguous blocks of rows.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"
#include "cpu/kernels/reduce/softmax_rows.h"

#include "base/fp16.h"
#include "core/tensor.h"
#include "cpu/kernel_registry.h"

#include <algorithm>
#include <cmath>

namespace switchyard::cpu::kernels {

const SoftmaxRows & softmax_rows_scalar() {
    static const SoftmaxRows k = make_softmax_rows<simd::VecScalar>();
    return k;
}

const SoftmaxRows & softmax_rows() {
    static const SoftmaxRows & k = select_kernel(&IsaColumn::softmax_rows)();
    return k;
}

namespace {

float alibi_slope(float max_bias, int64_t head, int64_t n_head) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const int64_t n_head_log2 = int64_t(1) << static_cast<int>(std::floor(std::log2(static_cast<double>(n_head))));
    const float   m0          = std::pow(2.0f, -max_bias / static_cast<float>(n_head_log2));
    const float   m1          = std::pow(2.0f, -(max_bias / 2.0f) / static_cast<float>(n_head_log2));
    return head < n_head_log2 ? std::pow(m0, static_cast<float>(head + 1))
                              : std::pow(m1, static_cast<float>(2 * (head - n_head_log2) + 1));
}

// The dst row holds the intermediate values (no scratch).
bool rows_in_dst(const ggml_tensor * dst) {
    return dst->type == GGML_TYPE_F32 && dst->nb[0] == sizeof(float);
}

size_t softmax_work_size(const ggml_tensor * dst, int n_threads) {
    return rows_in_dst(dst) ? 0 : static_cast<size_t>(n_threads) * scratch_floats(dst->ne[0]);
}

struct SoftmaxArgs {
    const ggml_tensor * a;
    const ggml_tensor * mask;
    float               scale, slope;
};

// Step 1 of a row: x = a * scale + slope * mask, chunk by chunk (rows that are not F32 with adjacent elements go
// through float buffers on the stack); returns the largest value.
float logits(const SoftmaxRows & k, const SoftmaxArgs & s, const char * src, const char * mrow, float * x, int64_t n) {
    float a_buf[kChunk], m_buf[kChunk];
    float max = -INFINITY;
    for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t m  = std::min(kChunk, n - c);
        const float * ac = reinterpret_cast<const float *>(src) + c;
        if (!is_f32_rows(s.a)) {
            load_row(s.a->type, src + c * static_cast<int64_t>(s.a->nb[0]), s.a->nb[0], a_buf, m);
            ac = a_buf;
        }
        const float * mc = nullptr;
        if (mrow) {
            mc = reinterpret_cast<const float *>(mrow) + c;
            if (!is_f32_rows(s.mask)) {
                load_row(s.mask->type, mrow + c * static_cast<int64_t>(s.mask->nb[0]), s.mask->nb[0], m_buf, m);
                mc = m_buf;
            }
        }
        max = std::max(max, k.logits(ac, mc, s.scale, s.slope, x + c, m));
    }
    return max;
}

void softmax_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a        = dst->src[0];
    const ggml_tensor * mask     = dst->src[1];
    const ggml_tensor * sinks    = dst->src[2];
    const float         max_bias = get_op_param_f32(dst, 1);
    const int64_t       ne0 = a->ne[0], ne1 = a->ne[1], ne2 = a->ne[2];
    const bool          in_dst = rows_in_dst(dst);
    const SoftmaxRows & k      = softmax_rows();
    auto *              buf    = reinterpret_cast<float *>(thread_slot(p, 0, in_dst ? 0 : scratch_floats(ne0)));
    const Range         rows   = thread_range(p, ggml_nrows(a));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const int64_t     i1 = r % ne1, i2 = (r / ne1) % ne2, i3 = r / (ne1 * ne2);
        const SoftmaxArgs s{a, mask, get_op_param_f32(dst, 0), alibi_slope(max_bias, i2, ne2)};
        const char *      mrow = mask ? row_ptr(mask, i1, i2 % mask->ne[2], i3 % mask->ne[3]) : nullptr;
        char *            out  = row_ptr(dst, i1, i2, i3);
        float *           x    = in_dst ? reinterpret_cast<float *>(out) : buf;
        float             max  = logits(k, s, row_ptr(a, i1, i2, i3), mrow, x, ne0);
        float             sink = -INFINITY;
        if (sinks) {
            sink = *reinterpret_cast<const float *>(static_cast<const char *>(sinks->data) + i2 * sinks->nb[0]);
            max  = std::max(max, sink);
        }
        double sum = sinks ? std::exp(static_cast<double>(sink - max)) : 0.0;
        if (max == -INFINITY) {
            std::fill(x, x + ne0, 0.0f);
        } else {
            sum += k.exp_sum(x, ne0, max);
        }
        k.scale(x, ne0, sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f);
        if (!in_dst) {
            store_row(dst->type, x, out, dst->nb[0], ne0);
        }
    }
}

bool softmax_supports(const ggml_tensor * dst) {
    const ggml_tensor * a     = dst->src[0];
    const ggml_tensor * mask  = dst->src[1];
    const ggml_tensor * sinks = dst->src[2];
    const bool          types = (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) &&
                       (dst->type == GGML_TYPE_F32 || dst->type == GGML_TYPE_F16);
    const bool mask_ok  = !mask || mask->type == GGML_TYPE_F32 || mask->type == GGML_TYPE_F16;
    const bool sinks_ok = !sinks || sinks->type == GGML_TYPE_F32;
    return types && mask_ok && sinks_ok;
}

} // namespace

KernelInfo softmax(ggml_op op) {
    if (op == GGML_OP_SOFT_MAX) {
        return KernelInfo{softmax_compute, nullptr, softmax_work_size, softmax_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
