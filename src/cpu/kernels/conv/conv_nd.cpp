// The n-dimensional and direct convolution kernels: IM2COL_BACK, IM2COL_3D, COL2IM_1D, CONV_2D (direct),
// CONV_3D (direct), CONV_TRANSPOSE_2D and POOL_2D_BACK. Shapes and op_params are the constructors'
// (core/ops/conv_nd.cpp). Every kernel gathers: each output element is computed by one thread from its inputs
// (no scatter between threads), so results do not depend on the thread count. Threads own rows of dst (planes for
// POOL_2D_BACK); any strides are honoured, sums are in float.
//
// IM2COL_BACK: src0 = gradient of an IM2COL result (F32/F16), src1 = kernel (shape); dst F32 data-shaped:
//   dst[x] = sum of the gradient columns that IM2COL read from position x.
// IM2COL_3D: src1 data [W, H, D, N*IC] (F32/F16/BF16) -> dst (F32/F16/BF16) [IC*KD*KH*KW, OW, OH, OD*N],
//   column (ic*KD + kd)*KH*KW + kh*KW + kw of output position (ow, oh, od, n); taps outside the data are 0.
// COL2IM_1D: src0 [K*OC, T_in] -> dst [T_out, OC]: dst[t, oc] = sum over t_in*s0 + k = t + p0 of src0[oc*K + k, t_in].
// CONV_2D: kernel [KW, KH, IC, OC], data [W, H, IC, N] -> [OW, OH, OC, N]; CONV_3D: kernel [KW, KH, KD, OC*IC],
//   data [W, H, D, N*IC] -> F32 [OW, OH, OD, N*OC]; taps outside the data count as zero.
// CONV_TRANSPOSE_2D: kernel [KW, KH, OC, IC], data [W, H, IC, N] -> F32 [OW, OH, OC, N]:
//   dst[iw*s + kw, ih*s + kh, oc, n] += kernel[kw, kh, oc, ic] * data[iw, ih, ic, n], computed as a gather.
// POOL_2D_BACK: src0 = gradient of a POOL_2D result, src1 = the pool's input; dst F32 like src1. MAX: each output's
//   gradient goes to the first largest input of its window; AVG: gradient / (k0*k1) to each input in the window.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include <cfloat>

namespace switchyard::cpu::kernels {

namespace {

float value_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return load_value(t->type, elem_ptr(t, i0, i1, i2, i3));
}

void add_f32(char * p, float v) {
    float acc;
    std::memcpy(&acc, p, sizeof(acc));
    acc += v;
    std::memcpy(p, &acc, sizeof(acc));
}

int64_t conv_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

// The output o in [0, n_out) whose tap k reads input i (o*s + k*d - p = i), or -1 when there is none.
int64_t output_of(int64_t i, int64_t k, int64_t s, int64_t p, int64_t d, int64_t n_out) {
    const int64_t num = i + p - k * d;
    if (num < 0 || num % s != 0) {
        return -1;
    }
    return num / s < n_out ? num / s : -1;
}

// ---- IM2COL_BACK ----

void im2col_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * grad   = dst->src[0];
    const ggml_tensor * kernel = dst->src[1];
    const bool          is_2d  = op_i32(dst, 6) == 1;
    const int64_t s0 = op_i32(dst, 0), s1 = op_i32(dst, 1), p0 = op_i32(dst, 2), p1 = op_i32(dst, 3);
    const int64_t d0 = op_i32(dst, 4), d1 = op_i32(dst, 5);
    const int64_t kw_n = kernel->ne[0], kh_n = is_2d ? kernel->ne[1] : 1;
    const int64_t ow_n = grad->ne[1], oh_n = is_2d ? grad->ne[2] : 1;
    const Range   rows = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r);
        // 2-d: row (ih, ic, n); 1-d: row (ic, n)
        const int64_t ih = is_2d ? c.i1 : 0, ic = is_2d ? c.i2 : c.i1, n = is_2d ? c.i3 : c.i2;
        char *        d  = row_ptr(dst, c);
        for (int64_t iw = 0; iw < dst->ne[0]; ++iw) {
            float sum = 0.0f;
            for (int64_t kh = 0; kh < kh_n; ++kh) {
                const int64_t oh = is_2d ? output_of(ih, kh, s1, p1, d1, oh_n) : 0;
                if (oh < 0) {
                    continue;
                }
                for (int64_t kw = 0; kw < kw_n; ++kw) {
                    const int64_t ow = output_of(iw, kw, s0, p0, d0, ow_n);
                    if (ow < 0) {
                        continue;
                    }
                    const int64_t col = (ic * kh_n + kh) * kw_n + kw;
                    sum += is_2d ? value_at(grad, col, ow, oh, n) : value_at(grad, col, ow, n, 0);
                }
            }
            store_value(dst->type, d + iw * static_cast<int64_t>(dst->nb[0]), sum);
        }
    }
}

bool im2col_back_supports(const ggml_tensor * dst) {
    const ggml_tensor * grad   = dst->src[0];
    const ggml_tensor * kernel = dst->src[1];
    if (!grad || !kernel || dst->type != GGML_TYPE_F32 ||
        (grad->type != GGML_TYPE_F32 && grad->type != GGML_TYPE_F16)) {
        return false;
    }
    const bool    is_2d = op_i32(dst, 6) == 1;
    const int64_t s0 = op_i32(dst, 0), s1 = op_i32(dst, 1), d0 = op_i32(dst, 4), d1 = op_i32(dst, 5);
    if (s0 <= 0 || d0 <= 0 || (is_2d && (s1 <= 0 || d1 <= 0))) {
        return false;
    }
    const int64_t cols = is_2d ? dst->ne[2] * kernel->ne[1] * kernel->ne[0] : dst->ne[1] * kernel->ne[0];
    return grad->ne[0] == cols && (is_2d ? grad->ne[3] == dst->ne[3] : grad->ne[2] == dst->ne[2] && dst->ne[3] == 1);
}

// ---- IM2COL_3D ----

struct Geometry3 {
    int64_t s[3], p[3], d[3];
};

Geometry3 geometry_3d(const ggml_tensor * dst) {
    Geometry3 g{};
    for (int i = 0; i < 3; ++i) {
        g.s[i] = op_i32(dst, i);
        g.p[i] = op_i32(dst, 3 + i);
        g.d[i] = op_i32(dst, 6 + i);
    }
    return g;
}

void im2col_3d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const Geometry3     g      = geometry_3d(dst);
    const int64_t       ic_n   = op_i32(dst, 9);
    const int64_t       kw_n = kernel->ne[0], kh_n = kernel->ne[1], kd_n = kernel->ne[2];
    const int64_t       od_n   = dst->ne[3] / std::max<int64_t>(data->ne[3] / ic_n, 1);
    const Range         rows   = thread_range(p, ggml_nrows(dst));
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r); // (ow, oh, od + OD*n)
        const int64_t   od = c.i3 % od_n, n = c.i3 / od_n;
        char *          d  = row_ptr(dst, c);
        int64_t         col = 0;
        for (int64_t ic = 0; ic < ic_n; ++ic) {
            for (int64_t kd = 0; kd < kd_n; ++kd) {
                const int64_t z = od * g.s[2] + kd * g.d[2] - g.p[2];
                for (int64_t kh = 0; kh < kh_n; ++kh) {
                    const int64_t y = c.i2 * g.s[1] + kh * g.d[1] - g.p[1];
                    for (int64_t kw = 0; kw < kw_n; ++kw, ++col) {
                        const int64_t x      = c.i1 * g.s[0] + kw * g.d[0] - g.p[0];
                        const bool    inside = index_in_range(x, data->ne[0]) && index_in_range(y, data->ne[1]) &&
                                            index_in_range(z, data->ne[2]);
                        store_value(dst->type, d + col * static_cast<int64_t>(dst->nb[0]),
                                    inside ? value_at(data, x, y, z, n * ic_n + ic) : 0.0f);
                    }
                }
            }
        }
    }
}

bool im2col_3d_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || !is_float_type(data->type) || !is_float_type(dst->type)) {
        return false;
    }
    const Geometry3 g    = geometry_3d(dst);
    const int64_t   ic_n = op_i32(dst, 9);
    if (ic_n <= 0) {
        return false; // N = data->ne[3] / ic_n batches; channels past N * ic_n are not read (as upstream)
    }
    int64_t out[3];
    for (int i = 0; i < 3; ++i) {
        if (g.s[i] <= 0 || g.d[i] <= 0) {
            return false;
        }
        out[i] = conv_size(data->ne[i], kernel->ne[i], g.s[i], g.p[i], g.d[i]);
    }
    return dst->ne[0] == ic_n * kernel->ne[0] * kernel->ne[1] * kernel->ne[2] && dst->ne[1] == out[0] &&
           dst->ne[2] == out[1] && dst->ne[3] == out[2] * (data->ne[3] / ic_n);
}

// ---- COL2IM_1D ----

void col2im_1d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * cols = dst->src[0];
    const int64_t       s0 = op_i32(dst, 0), oc_n = op_i32(dst, 1), p0 = op_i32(dst, 2);
    const int64_t       k_n = cols->ne[0] / oc_n, t_in = cols->ne[1], t_out = dst->ne[0];
    const Range         items = thread_range(p, t_out * oc_n);
    for (int64_t e = items.begin; e < items.end; ++e) {
        const int64_t t = e % t_out, oc = e / t_out;
        float         sum = 0.0f;
        for (int64_t k = 0; k < k_n; ++k) {
            const int64_t num = t + p0 - k;
            if (num < 0) {
                break;
            }
            if (num % s0 == 0 && num / s0 < t_in) {
                sum += value_at(cols, oc * k_n + k, num / s0, 0, 0);
            }
        }
        store_value(dst->type, elem_ptr(dst, t, oc, 0, 0), sum);
    }
}

bool col2im_1d_supports(const ggml_tensor * dst) {
    const ggml_tensor * cols = dst->src[0];
    if (!cols || !is_float_type(cols->type) || dst->type != cols->type) {
        return false;
    }
    const int64_t s0 = op_i32(dst, 0), oc_n = op_i32(dst, 1), p0 = op_i32(dst, 2);
    if (s0 <= 0 || oc_n <= 0 || p0 < 0 || cols->ne[0] % oc_n != 0) {
        return false;
    }
    return ggml_is_matrix(cols) && dst->ne[1] == oc_n && dst->ne[0] == (cols->ne[1] - 1) * s0 + cols->ne[0] / oc_n - 2 * p0 &&
           dst->ne[2] == 1 && dst->ne[3] == 1;
}

// ---- CONV_2D, CONV_3D ----

// What the output rows of a direct convolution read: the kernel, the data and the geometry along dim 0.
struct ConvRow {
    const ggml_tensor * kernel;
    const ggml_tensor * data;
    int64_t             s0, p0, d0;
};

// acc[j] += sum over kw of kernel(kw, k_at) * data((ow0 + j)*s0 + kw*d0 - p0, x_at) for j < n: one kernel row
// (k_at = its dims 1..3) against one data row (x_at); taps outside the data add nothing.
void accumulate_taps(const ConvRow & cr, int64_t ow0, int64_t n, const int64_t * k_at, const int64_t * x_at,
                     float * acc) {
    for (int64_t kw = 0; kw < cr.kernel->ne[0]; ++kw) {
        const float w = value_at(cr.kernel, kw, k_at[0], k_at[1], k_at[2]);
        for (int64_t j = 0; j < n; ++j) {
            const int64_t x = (ow0 + j) * cr.s0 + kw * cr.d0 - cr.p0;
            if (index_in_range(x, cr.data->ne[0])) {
                acc[j] += w * value_at(cr.data, x, x_at[0], x_at[1], x_at[2]);
            }
        }
    }
}

void conv_2d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const int64_t       s1 = op_i32(dst, 1), p1 = op_i32(dst, 3), d1 = op_i32(dst, 5);
    const ConvRow       cr{kernel, data, op_i32(dst, 0), op_i32(dst, 2), op_i32(dst, 4)};
    const Range         rows = thread_range(p, ggml_nrows(dst));
    float               acc[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (oh, oc, n)
        char *          d = row_ptr(dst, c);
        for (int64_t ow0 = 0; ow0 < dst->ne[0]; ow0 += kChunk) {
            const int64_t n = std::min<int64_t>(kChunk, dst->ne[0] - ow0);
            std::fill(acc, acc + n, 0.0f);
            for (int64_t ic = 0; ic < data->ne[2]; ++ic) {
                for (int64_t kh = 0; kh < kernel->ne[1]; ++kh) {
                    const int64_t y = c.i1 * s1 + kh * d1 - p1;
                    if (!index_in_range(y, data->ne[1])) {
                        continue;
                    }
                    const int64_t k_at[3] = {kh, ic, c.i2}, x_at[3] = {y, ic, c.i3};
                    accumulate_taps(cr, ow0, n, k_at, x_at, acc);
                }
            }
            store_row(dst->type, acc, d + ow0 * static_cast<int64_t>(dst->nb[0]), dst->nb[0], n);
        }
    }
}

bool conv_2d_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || !is_float_type(kernel->type) || !is_float_type(data->type) || !is_float_type(dst->type)) {
        return false;
    }
    const int64_t s0 = op_i32(dst, 0), s1 = op_i32(dst, 1), p0 = op_i32(dst, 2), p1 = op_i32(dst, 3);
    const int64_t d0 = op_i32(dst, 4), d1 = op_i32(dst, 5);
    return s0 > 0 && s1 > 0 && d0 > 0 && d1 > 0 && kernel->ne[2] == data->ne[2] &&
           dst->ne[0] == conv_size(data->ne[0], kernel->ne[0], s0, p0, d0) &&
           dst->ne[1] == conv_size(data->ne[1], kernel->ne[1], s1, p1, d1) && dst->ne[2] == kernel->ne[3] &&
           dst->ne[3] == data->ne[3];
}

void conv_3d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const Geometry3     g      = geometry_3d(dst);
    const int64_t       ic_n = op_i32(dst, 9), oc_n = op_i32(dst, 11);
    const ConvRow       cr{kernel, data, g.s[0], g.p[0], g.d[0]};
    const Range         rows = thread_range(p, ggml_nrows(dst));
    float               acc[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c  = row_coords(dst, r); // (oh, od, n*OC + oc)
        const int64_t   oc = c.i3 % oc_n, n = c.i3 / oc_n;
        char *          d  = row_ptr(dst, c);
        for (int64_t ow0 = 0; ow0 < dst->ne[0]; ow0 += kChunk) {
            const int64_t cnt = std::min<int64_t>(kChunk, dst->ne[0] - ow0);
            std::fill(acc, acc + cnt, 0.0f);
            for (int64_t ic = 0; ic < ic_n; ++ic) {
                for (int64_t kd = 0; kd < kernel->ne[2]; ++kd) {
                    const int64_t z = c.i2 * g.s[2] + kd * g.d[2] - g.p[2];
                    if (!index_in_range(z, data->ne[2])) {
                        continue;
                    }
                    for (int64_t kh = 0; kh < kernel->ne[1]; ++kh) {
                        const int64_t y = c.i1 * g.s[1] + kh * g.d[1] - g.p[1];
                        if (!index_in_range(y, data->ne[1])) {
                            continue;
                        }
                        const int64_t k_at[3] = {kh, kd, oc * ic_n + ic}, x_at[3] = {y, z, n * ic_n + ic};
                        accumulate_taps(cr, ow0, cnt, k_at, x_at, acc);
                    }
                }
            }
            store_row(dst->type, acc, d + ow0 * static_cast<int64_t>(dst->nb[0]), dst->nb[0], cnt);
        }
    }
}

bool conv_3d_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || !is_float_type(kernel->type) || !is_float_type(data->type) || dst->type != GGML_TYPE_F32) {
        return false;
    }
    const Geometry3 g    = geometry_3d(dst);
    const int64_t   ic_n = op_i32(dst, 9), n_n = op_i32(dst, 10), oc_n = op_i32(dst, 11);
    if (ic_n <= 0 || n_n <= 0 || oc_n <= 0 || kernel->ne[3] != ic_n * oc_n || data->ne[3] != ic_n * n_n ||
        dst->ne[3] != oc_n * n_n) {
        return false;
    }
    for (int i = 0; i < 3; ++i) {
        if (g.s[i] <= 0 || g.d[i] <= 0 || dst->ne[i] != conv_size(data->ne[i], kernel->ne[i], g.s[i], g.p[i], g.d[i])) {
            return false;
        }
    }
    return true;
}

// ---- CONV_TRANSPOSE_2D ----

void conv_transpose_2d_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    const int64_t       s      = op_i32(dst, 0);
    const Range         rows   = thread_range(p, ggml_nrows(dst));
    float               acc[kChunk];
    for (int64_t r = rows.begin; r < rows.end; ++r) {
        const RowCoords c = row_coords(dst, r); // (oh, oc, n)
        char *          d = row_ptr(dst, c);
        for (int64_t ow0 = 0; ow0 < dst->ne[0]; ow0 += kChunk) {
            const int64_t cnt = std::min<int64_t>(kChunk, dst->ne[0] - ow0);
            std::fill(acc, acc + cnt, 0.0f);
            for (int64_t ic = 0; ic < data->ne[2]; ++ic) {
                for (int64_t kh = 0; kh < kernel->ne[1]; ++kh) {
                    const int64_t ih = output_of(c.i1, kh, s, 0, 1, data->ne[1]); // oh = ih*s + kh
                    if (ih < 0) {
                        continue;
                    }
                    for (int64_t kw = 0; kw < kernel->ne[0]; ++kw) {
                        const float w = value_at(kernel, kw, kh, c.i2, ic);
                        for (int64_t j = 0; j < cnt; ++j) {
                            const int64_t iw = output_of(ow0 + j, kw, s, 0, 1, data->ne[0]);
                            if (iw >= 0) {
                                acc[j] += w * value_at(data, iw, ih, ic, c.i3);
                            }
                        }
                    }
                }
            }
            store_row(dst->type, acc, d + ow0 * static_cast<int64_t>(dst->nb[0]), dst->nb[0], cnt);
        }
    }
}

bool conv_transpose_2d_supports(const ggml_tensor * dst) {
    const ggml_tensor * kernel = dst->src[0];
    const ggml_tensor * data   = dst->src[1];
    if (!kernel || !data || !is_float_type(kernel->type) || !is_float_type(data->type) || dst->type != GGML_TYPE_F32) {
        return false;
    }
    const int64_t s = op_i32(dst, 0);
    return s > 0 && kernel->ne[3] == data->ne[2] && dst->ne[0] == (data->ne[0] - 1) * s + kernel->ne[0] &&
           dst->ne[1] == (data->ne[1] - 1) * s + kernel->ne[1] && dst->ne[2] == kernel->ne[2] &&
           dst->ne[3] == data->ne[3];
}

// ---- POOL_2D_BACK ----

struct PoolParams {
    int     op;
    int64_t k0, k1, s0, s1, p0, p1;
};

PoolParams pool_params(const ggml_tensor * dst) {
    return {op_i32(dst, 0), op_i32(dst, 1), op_i32(dst, 2), op_i32(dst, 3), op_i32(dst, 4), op_i32(dst, 5),
            op_i32(dst, 6)};
}

// Adds the gradient g of output (ox, oy) of plane (c, n) to the inputs it came from.
void pool_back_one(const PoolParams & pp, const ggml_tensor * input, ggml_tensor * dst, int64_t ox, int64_t oy,
                   int64_t c, int64_t n, float g) {
    const int64_t x0 = ox * pp.s0 - pp.p0, y0 = oy * pp.s1 - pp.p1;
    if (pp.op == GGML_OP_POOL_MAX) {
        float   best = -FLT_MAX;
        int64_t bx = -1, by = -1;
        for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y0 + pp.k1, input->ne[1]); ++y) {
            for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x0 + pp.k0, input->ne[0]); ++x) {
                const float v = value_at(input, x, y, c, n);
                if (v > best) {
                    best = v, bx = x, by = y;
                }
            }
        }
        if (bx >= 0) {
            add_f32(elem_ptr(dst, bx, by, c, n), g);
        }
        return;
    }
    const float share = g / static_cast<float>(pp.k0 * pp.k1);
    for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y0 + pp.k1, input->ne[1]); ++y) {
        for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x0 + pp.k0, input->ne[0]); ++x) {
            add_f32(elem_ptr(dst, x, y, c, n), share);
        }
    }
}

void pool_2d_back_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * grad  = dst->src[0];
    const ggml_tensor * input = dst->src[1];
    const PoolParams    pp    = pool_params(dst);
    const Range         planes = thread_range(p, dst->ne[2] * dst->ne[3]);
    for (int64_t pl = planes.begin; pl < planes.end; ++pl) {
        const int64_t c = pl % dst->ne[2], n = pl / dst->ne[2];
        for (int64_t y = 0; y < dst->ne[1]; ++y) {
            zero_units(row_ptr(dst, y, c, n), dst->nb[0], dst->ne[0], sizeof(float));
        }
        for (int64_t oy = 0; oy < grad->ne[1]; ++oy) {
            for (int64_t ox = 0; ox < grad->ne[0]; ++ox) {
                pool_back_one(pp, input, dst, ox, oy, c, n, value_at(grad, ox, oy, c, n));
            }
        }
    }
}

bool pool_2d_back_supports(const ggml_tensor * dst) {
    const ggml_tensor * grad  = dst->src[0];
    const ggml_tensor * input = dst->src[1];
    if (!grad || !input || !is_float_type(grad->type) || !is_float_type(input->type) || dst->type != GGML_TYPE_F32) {
        return false;
    }
    const PoolParams pp = pool_params(dst);
    return (pp.op == GGML_OP_POOL_MAX || pp.op == GGML_OP_POOL_AVG) && pp.k0 > 0 && pp.k1 > 0 && pp.s0 > 0 &&
           pp.s1 > 0 && ggml_are_same_shape(dst, input) && grad->ne[2] == input->ne[2] && grad->ne[3] == input->ne[3];
}

} // namespace

KernelInfo conv_nd(ggml_op op) {
    switch (op) {
        case GGML_OP_IM2COL_BACK: return KernelInfo{im2col_back_compute, nullptr, nullptr, im2col_back_supports};
        case GGML_OP_IM2COL_3D:   return KernelInfo{im2col_3d_compute, nullptr, nullptr, im2col_3d_supports};
        case GGML_OP_COL2IM_1D:   return KernelInfo{col2im_1d_compute, nullptr, nullptr, col2im_1d_supports};
        case GGML_OP_CONV_2D:     return KernelInfo{conv_2d_compute, nullptr, nullptr, conv_2d_supports};
        case GGML_OP_CONV_3D:     return KernelInfo{conv_3d_compute, nullptr, nullptr, conv_3d_supports};
        case GGML_OP_CONV_TRANSPOSE_2D:
            return KernelInfo{conv_transpose_2d_compute, nullptr, nullptr, conv_transpose_2d_supports};
        case GGML_OP_POOL_2D_BACK: return KernelInfo{pool_2d_back_compute, nullptr, nullptr, pool_2d_back_supports};
        default:                   return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
