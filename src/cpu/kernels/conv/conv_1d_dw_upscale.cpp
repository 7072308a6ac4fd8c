// Spatial ops: CONV_TRANSPOSE_1D, CONV_2D_DW (ggml_conv_2d_dw_direct), UPSCALE
// (ggml_interpolate) and PAD_REFLECT_1D. Shape rules and op_params are the constructors' (core/ops/conv.cpp,
// resample.cpp). All kernels honour any strides and split the rows of dst between the threads.
//
// CONV_TRANSPOSE_1D: op_params {s0, p0 = 0, d0 = 1}; kernel src0 [K, OC, IC] F32/F16, data src1 [L, IC] F32,
//   dst F32 [(L - 1)*s0 + K, OC]: dst[l*s0 + k, oc] += src0[k, oc, ic] * src1[l, ic]. Threads own rows (oc).
// CONV_2D_DW: op_params {s0, s1, p0, p1, d0, d1}; kernel [KW, KH, 1, C], data [W, H, C, N] (F32/F16/BF16),
//   dst [OW, OH, C, N] of the data's type; taps outside the data count as zero.
// UPSCALE: op_params[0] = mode. NEAREST: dst[i] = src[floor(i * ne_src / ne_dst)] in every dim. BILINEAR (dims 0
//   and 1; dims 2 and 3 nearest): source coordinate (i + 0.5)/scale - 0.5 (ALIGN_CORNERS: i*(n_src-1)/(n_dst-1)),
//   the two neighbours clamped to the edge, weights clamped to [0, 1]. BICUBIC and ANTIALIAS are not supported.
// PAD_REFLECT_1D: op_params {p0, p1}; F32; dst row = src row mirrored around its first and last element.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

float value_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return load_value(t->type, elem_ptr(t, i0, i1, i2, i3));
}

// ---- CONV_TRANSPOSE_1D ----

void conv_transpose_1d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const int64_t       s0     = op_i32(dst, 0);
    const Range         rows   = thread_range(p, dst->ne[1]);
    for (int64_t oc = rows.begin; oc < rows.end; ++oc) {
        char * d = row_ptr(dst, oc, 0, 0);
        zero_units(d, dst->nb[0], dst->ne[0], sizeof(float));
        for (int64_t ic = 0; ic < data->ne[1]; ++ic) {
            for (int64_t l = 0; l < data->ne[0]; ++l) {
                const float x = value_at(data, l, ic, 0, 0);
                for (int64_t k = 0; k < kernel->ne[0]; ++k) {
                    char * out = d + (l * s0 + k) * static_cast<int64_t>(dst->nb[0]);
                    float  acc;
                    std::memcpy(&acc, out, sizeof(acc));
                    acc += value_at(kernel, k, oc, ic, 0) * x;
                    std::memcpy(out, &acc, sizeof(acc));
                }
            }
        }
    }
}

bool conv_transpose_1d_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || dst->type != GGML_TYPE_F32 || data->type != GGML_TYPE_F32 ||
        (kernel->type != GGML_TYPE_F32 && kernel->type != GGML_TYPE_F16)) {
        return false;
    }
    const int64_t s0 = op_i32(dst, 0);
    return s0 > 0 && op_i32(dst, 1) == 0 && op_i32(dst, 2) == 1 && kernel->ne[2] == data->ne[1] &&
           kernel->ne[3] == 1 && ggml_is_matrix(data) && dst->ne[1] == kernel->ne[1] &&
           dst->ne[0] == (data->ne[0] - 1) * s0 + kernel->ne[0] && dst->ne[2] == 1 && dst->ne[3] == 1;
}

// ---- CONV_2D_DW ----

struct ConvParams {
    int64_t s0, s1, p0, p1, d0, d1;
};

ConvParams conv_params(const ggml_tensor * dst) {
    return {op_i32(dst, 0), op_i32(dst, 1), op_i32(dst, 2), op_i32(dst, 3), op_i32(dst, 4), op_i32(dst, 5)};
}

float conv_2d_dw_at(const ggml_tensor * kernel, const ggml_tensor * data, const ConvParams & cp, int64_t ow,
                    int64_t oh, int64_t c, int64_t n) {
    float sum = 0.0f;
    for (int64_t kh = 0; kh < kernel->ne[1]; ++kh) {
        const int64_t y = oh * cp.s1 + kh * cp.d1 - cp.p1;
        if (y < 0 || y >= data->ne[1]) {
            continue;
        }
        for (int64_t kw = 0; kw < kernel->ne[0]; ++kw) {
            const int64_t x = ow * cp.s0 + kw * cp.d0 - cp.p0;
            if (x >= 0 && x < data->ne[0]) {
                sum += value_at(kernel, kw, kh, 0, c) * value_at(data, x, y, c, n);
            }
        }
    }
    return sum;
}

void conv_2d_dw_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const ConvParams    cp     = conv_params(dst);
    const Range         rows   = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (oh, channel, batch)
        char *          d = row_ptr(dst, c);
        for (int64_t ow = 0; ow < dst->ne[0]; ++ow) {
            store_value(dst->type, d + ow * static_cast<int64_t>(dst->nb[0]),
                        conv_2d_dw_at(kernel, data, cp, ow, c.i1, c.i2, c.i3));
        }
    }
}

bool conv_2d_dw_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || !is_float_type(kernel->type) || !is_float_type(data->type) || dst->type != data->type) {
        return false;
    }
    const ConvParams cp = conv_params(dst);
    const auto out = [](int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d) {
        return (in + 2 * pad - d * (k - 1) - 1) / s + 1;
    };
    return cp.s0 > 0 && cp.s1 > 0 && cp.d0 > 0 && cp.d1 > 0 && kernel->ne[2] == 1 && kernel->ne[3] == data->ne[2] &&
           dst->ne[0] == out(data->ne[0], kernel->ne[0], cp.s0, cp.p0, cp.d0) &&
           dst->ne[1] == out(data->ne[1], kernel->ne[1], cp.s1, cp.p1, cp.d1) && dst->ne[2] == data->ne[2] &&
           dst->ne[3] == data->ne[3];
}

// ---- UPSCALE ----

struct Axis {
    float   scale;  // ne_dst / ne_src (or the align-corners ratio)
    float   offset; // pixel-centre offset: 0.5, or 0 with align corners
    int64_t n_src;
};

// The two source neighbours of destination index i and the weight of the second.
struct Taps {
    int64_t lo, hi;
    float   w;
};

Taps bilinear_taps(const Axis & a, int64_t i) {
    const float   x  = (static_cast<float>(i) + a.offset) / a.scale - a.offset;
    const float   fl = std::floor(x);
    const int64_t lo = static_cast<int64_t>(fl);
    return {std::clamp<int64_t>(lo, 0, a.n_src - 1), std::clamp<int64_t>(lo + 1, 0, a.n_src - 1),
            std::clamp(x - fl, 0.0f, 1.0f)};
}

int64_t nearest(int64_t i, float scale, int64_t n_src) {
    return std::min<int64_t>(static_cast<int64_t>(static_cast<float>(i) / scale), n_src - 1);
}

void upscale_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src   = dst->src[0];
    const uint32_t      mode  = static_cast<uint32_t>(op_i32(dst, 0));
    const bool          bilin = (mode & 0xFFu) == GGML_SCALE_MODE_BILINEAR;
    const bool          align = (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) != 0;
    float               sf[4];
    for (int k = 0; k < 4; ++k) {
        sf[k] = static_cast<float>(dst->ne[k]) / static_cast<float>(src->ne[k]);
    }
    Axis ax[2];
    for (int k = 0; k < 2; ++k) {
        const bool ratio = align && dst->ne[k] > 1 && src->ne[k] > 1;
        ax[k] = {ratio ? static_cast<float>(dst->ne[k] - 1) / static_cast<float>(src->ne[k] - 1) : sf[k],
                 align ? 0.0f : 0.5f, src->ne[k]};
    }
    const Range rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r);
        const int64_t   i2 = nearest(c.i2, sf[2], src->ne[2]);
        const int64_t   i3 = nearest(c.i3, sf[3], src->ne[3]);
        char *          d  = row_ptr(dst, c);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            float v;
            if (bilin) {
                const Taps x = bilinear_taps(ax[0], i0);
                const Taps y = bilinear_taps(ax[1], c.i1);
                v = value_at(src, x.lo, y.lo, i2, i3) * (1 - x.w) * (1 - y.w) +
                    value_at(src, x.hi, y.lo, i2, i3) * x.w * (1 - y.w) +
                    value_at(src, x.lo, y.hi, i2, i3) * (1 - x.w) * y.w + value_at(src, x.hi, y.hi, i2, i3) * x.w * y.w;
            } else {
                v = value_at(src, nearest(i0, sf[0], src->ne[0]), nearest(c.i1, sf[1], src->ne[1]), i2, i3);
            }
            store_value(dst->type, d + i0 * static_cast<int64_t>(dst->nb[0]), v);
        }
    }
}

bool upscale_supports(const ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const uint32_t      mode = static_cast<uint32_t>(op_i32(dst, 0));
    const uint32_t      base = mode & 0xFFu;
    if (!src || src->type != GGML_TYPE_F32 || dst->type != GGML_TYPE_F32 || (mode & GGML_SCALE_FLAG_ANTIALIAS) ||
        (base != GGML_SCALE_MODE_NEAREST && base != GGML_SCALE_MODE_BILINEAR)) {
        return false;
    }
    return !ggml_is_empty(src) || ggml_is_empty(dst);
}

// ---- PAD_REFLECT_1D ----

void pad_reflect_1d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src  = dst->src[0];
    const int64_t       p0   = op_i32(dst, 0);
    const int64_t       n    = src->ne[0];
    const Range         rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        const char *    s = row_ptr(src, c);
        char *          d = row_ptr(dst, c);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) {
            int64_t j = i0 - p0;
            j         = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
            std::memcpy(d + i0 * static_cast<int64_t>(dst->nb[0]), s + j * static_cast<int64_t>(src->nb[0]),
                        sizeof(float));
        }
    }
}

bool pad_reflect_1d_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || src->type != GGML_TYPE_F32 || dst->type != GGML_TYPE_F32) {
        return false;
    }
    const int64_t p0 = op_i32(dst, 0), p1 = op_i32(dst, 1);
    return p0 >= 0 && p1 >= 0 && p0 < src->ne[0] && p1 < src->ne[0] && dst->ne[0] == src->ne[0] + p0 + p1 &&
           dst->ne[1] == src->ne[1] && dst->ne[2] == src->ne[2] && dst->ne[3] == src->ne[3];
}

} // namespace

KernelInfo conv_1d_dw_upscale(ggml_op op) {
    switch (op) {
        case GGML_OP_CONV_TRANSPOSE_1D:
            return KernelInfo{conv_transpose_1d_compute, nullptr, nullptr, conv_transpose_1d_supports};
        case GGML_OP_CONV_2D_DW:     return KernelInfo{conv_2d_dw_compute, nullptr, nullptr, conv_2d_dw_supports};
        case GGML_OP_UPSCALE:        return KernelInfo{upscale_compute, nullptr, nullptr, upscale_supports};
        case GGML_OP_PAD_REFLECT_1D: return KernelInfo{pad_reflect_1d_compute, nullptr, nullptr, pad_reflect_1d_supports};
        default:                     return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
