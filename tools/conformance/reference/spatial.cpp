// Reference spatial ops beyond im2col and pooling (conv.cpp): CONV_TRANSPOSE_1D, CONV_2D_DW, UPSCALE (nearest,
// bilinear, align corners) and PAD_REFLECT_1D; then IM2COL_BACK, IM2COL_3D, COL2IM_1D, CONV_2D, CONV_3D,
// CONV_TRANSPOSE_2D and POOL_2D_BACK. Written from their definitions in double precision; the ops whose kernels gather (the gradients,
// col2im, the transposed convolution) are written here as the scatter of the forward op instead.
#include "conformance/reference/util.h"

#include <algorithm>
#include <vector>

namespace switchyard::testing::reference {

namespace {

bool conv_transpose_1d(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    const int64_t       s0 = param_i32(node, 0);
    std::vector<double> out(static_cast<size_t>(node->ne[0] * node->ne[1]), 0.0);
    for (int64_t oc = 0; oc < k->ne[1]; ++oc)
        for (int64_t ic = 0; ic < k->ne[2]; ++ic)
            for (int64_t l = 0; l < x->ne[0]; ++l)
                for (int64_t t = 0; t < k->ne[0]; ++t)
                    out[static_cast<size_t>(oc * node->ne[0] + l * s0 + t)] +=
                        static_cast<double>(get(k, t, oc, ic, 0)) * get(x, l, ic, 0, 0);
    for_each(node, [&](int64_t i0, int64_t i1, int64_t, int64_t) {
        set(node, i0, i1, 0, 0, static_cast<float>(out[static_cast<size_t>(i1 * node->ne[0] + i0)]));
    });
    return true;
}

bool conv_2d_dw(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    const int64_t       s0 = param_i32(node, 0), s1 = param_i32(node, 1), p0 = param_i32(node, 2),
                  p1 = param_i32(node, 3), d0 = param_i32(node, 4), d1 = param_i32(node, 5);
    for_each(node, [&](int64_t ow, int64_t oh, int64_t c, int64_t n) {
        double sum = 0.0;
        for (int64_t ky = 0; ky < k->ne[1]; ++ky)
            for (int64_t kx = 0; kx < k->ne[0]; ++kx) {
                const int64_t ix = ow * s0 + kx * d0 - p0, iy = oh * s1 + ky * d1 - p1;
                if (ix >= 0 && ix < x->ne[0] && iy >= 0 && iy < x->ne[1])
                    sum += static_cast<double>(get(k, kx, ky, 0, c)) * get(x, ix, iy, c, n);
            }
        set(node, ow, oh, c, n, static_cast<float>(sum));
    });
    return true;
}

bool upscale(ggml_tensor * node) {
    const ggml_tensor * a     = node->src[0];
    const uint32_t      mode  = static_cast<uint32_t>(param_i32(node, 0));
    const bool          align = (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) != 0;
    if ((mode & 0xFFu) > GGML_SCALE_MODE_BILINEAR || (mode & GGML_SCALE_FLAG_ANTIALIAS)) return false;
    double scale[4];
    for (int d = 0; d < 4; ++d) scale[d] = static_cast<double>(node->ne[d]) / static_cast<double>(a->ne[d]);
    // index of the nearest source element in dim d
    auto near = [&](int64_t i, int d) { return std::min<int64_t>(static_cast<int64_t>(i / scale[d]), a->ne[d] - 1); };
    // bilinear source position in dim d: (low index, high index, weight of high)
    auto taps = [&](int64_t i, int d, int64_t & lo, int64_t & hi, double & w) {
        double s = scale[d], off = 0.5;
        if (align) {
            off = 0.0;
            if (node->ne[d] > 1 && a->ne[d] > 1) s = static_cast<double>(node->ne[d] - 1) / static_cast<double>(a->ne[d] - 1);
        }
        const double x  = (static_cast<double>(i) + off) / s - off;
        const double fl = std::floor(x);
        lo = std::clamp<int64_t>(static_cast<int64_t>(fl), 0, a->ne[d] - 1);
        hi = std::clamp<int64_t>(static_cast<int64_t>(fl) + 1, 0, a->ne[d] - 1);
        w  = std::clamp(x - fl, 0.0, 1.0);
    };
    const bool bilinear = (mode & 0xFFu) == GGML_SCALE_MODE_BILINEAR;
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const int64_t j2 = near(i2, 2), j3 = near(i3, 3);
        if (!bilinear) {
            set(node, i0, i1, i2, i3, get(a, near(i0, 0), near(i1, 1), j2, j3));
            return;
        }
        int64_t x0, x1, y0, y1;
        double  wx, wy;
        taps(i0, 0, x0, x1, wx);
        taps(i1, 1, y0, y1, wy);
        const double v = get(a, x0, y0, j2, j3) * (1 - wx) * (1 - wy) + get(a, x1, y0, j2, j3) * wx * (1 - wy) +
                         get(a, x0, y1, j2, j3) * (1 - wx) * wy + get(a, x1, y1, j2, j3) * wx * wy;
        set(node, i0, i1, i2, i3, static_cast<float>(v));
    });
    return true;
}

bool pad_reflect_1d(ggml_tensor * node) {
    const ggml_tensor * a  = node->src[0];
    const int64_t       p0 = param_i32(node, 0), n = a->ne[0];
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        int64_t j = i0 - p0;
        if (j < 0) j = -j;                   // mirrored around element 0
        if (j >= n) j = 2 * (n - 1) - j;     // mirrored around element n - 1
        set(node, i0, i1, i2, i3, get(a, j, i1, i2, i3));
    });
    return true;
}

// An output buffer in double, indexed like node (dim 0 fastest), written to node at the end.
struct Sums {
    explicit Sums(const ggml_tensor * t) : node(t), v(static_cast<size_t>(ggml_nelements(t)), 0.0) {}
    double & at(int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return v[static_cast<size_t>(flat_index(node, i0, i1, i2, i3))];
    }
    void store(ggml_tensor * t) {
        for_each(t, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(t, i0, i1, i2, i3, static_cast<float>(at(i0, i1, i2, i3))); });
    }
    const ggml_tensor * node;
    std::vector<double> v;
};

bool inside(int64_t i, int64_t n) { return i >= 0 && i < n; }

// the scatter of IM2COL: every column entry goes back to the data position it was read from
bool im2col_back(ggml_tensor * node) {
    const ggml_tensor * g = node->src[0], *k = node->src[1];
    const bool          is_2d = param_i32(node, 6) == 1;
    const int64_t s0 = param_i32(node, 0), s1 = param_i32(node, 1), p0 = param_i32(node, 2), p1 = param_i32(node, 3),
                  d0 = param_i32(node, 4), d1 = param_i32(node, 5);
    const int64_t kw_n = k->ne[0], kh_n = is_2d ? k->ne[1] : 1;
    Sums          out(node);
    for_each(g, [&](int64_t col, int64_t ow, int64_t i2, int64_t i3) {
        const int64_t kw = col % kw_n, kh = (col / kw_n) % kh_n, ic = col / (kw_n * kh_n);
        const int64_t iw = ow * s0 + kw * d0 - p0;
        if (is_2d) {
            const int64_t ih = i2 * s1 + kh * d1 - p1;
            if (inside(iw, node->ne[0]) && inside(ih, node->ne[1])) out.at(iw, ih, ic, i3) += get(g, col, ow, i2, i3);
        } else if (inside(iw, node->ne[0])) {
            out.at(iw, ic, i2, 0) += get(g, col, ow, i2, i3);
        }
    });
    out.store(node);
    return true;
}

bool im2col_3d(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    int64_t             s[3], p[3], d[3];
    for (int i = 0; i < 3; ++i) s[i] = param_i32(node, i), p[i] = param_i32(node, 3 + i), d[i] = param_i32(node, 6 + i);
    const int64_t ic_n = param_i32(node, 9), od_n = node->ne[3] / std::max<int64_t>(x->ne[3] / ic_n, 1);
    for_each(node, [&](int64_t col, int64_t ow, int64_t oh, int64_t i3) {
        const int64_t kw = col % k->ne[0], kh = (col / k->ne[0]) % k->ne[1], kd = (col / (k->ne[0] * k->ne[1])) % k->ne[2];
        const int64_t ic = col / (k->ne[0] * k->ne[1] * k->ne[2]), od = i3 % od_n, n = i3 / od_n;
        const int64_t ix = ow * s[0] + kw * d[0] - p[0], iy = oh * s[1] + kh * d[1] - p[1], iz = od * s[2] + kd * d[2] - p[2];
        const bool    in = inside(ix, x->ne[0]) && inside(iy, x->ne[1]) && inside(iz, x->ne[2]);
        set(node, col, ow, oh, i3, in ? get(x, ix, iy, iz, n * ic_n + ic) : 0.0f);
    });
    return true;
}

// overlap-add: column entry (oc*K + k, t_in) lands on output t_in*s0 + k - p0
bool col2im_1d(ggml_tensor * node) {
    const ggml_tensor * a  = node->src[0];
    const int64_t       s0 = param_i32(node, 0), oc_n = param_i32(node, 1), p0 = param_i32(node, 2), k_n = a->ne[0] / oc_n;
    Sums                out(node);
    for (int64_t oc = 0; oc < oc_n; ++oc)
        for (int64_t t_in = 0; t_in < a->ne[1]; ++t_in)
            for (int64_t k = 0; k < k_n; ++k) {
                const int64_t t = t_in * s0 + k - p0;
                if (inside(t, node->ne[0])) out.at(t, oc, 0, 0) += get(a, oc * k_n + k, t_in, 0, 0);
            }
    out.store(node);
    return true;
}

bool conv_2d(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    const int64_t s0 = param_i32(node, 0), s1 = param_i32(node, 1), p0 = param_i32(node, 2), p1 = param_i32(node, 3),
                  d0 = param_i32(node, 4), d1 = param_i32(node, 5);
    for_each(node, [&](int64_t ow, int64_t oh, int64_t oc, int64_t n) {
        double sum = 0.0;
        for (int64_t ic = 0; ic < k->ne[2]; ++ic)
            for (int64_t ky = 0; ky < k->ne[1]; ++ky)
                for (int64_t kx = 0; kx < k->ne[0]; ++kx) {
                    const int64_t ix = ow * s0 + kx * d0 - p0, iy = oh * s1 + ky * d1 - p1;
                    if (inside(ix, x->ne[0]) && inside(iy, x->ne[1]))
                        sum += static_cast<double>(get(k, kx, ky, ic, oc)) * get(x, ix, iy, ic, n);
                }
        set(node, ow, oh, oc, n, static_cast<float>(sum));
    });
    return true;
}

bool conv_3d(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    int64_t             s[3], p[3], d[3];
    for (int i = 0; i < 3; ++i) s[i] = param_i32(node, i), p[i] = param_i32(node, 3 + i), d[i] = param_i32(node, 6 + i);
    const int64_t ic_n = param_i32(node, 9), oc_n = param_i32(node, 11);
    for_each(node, [&](int64_t ow, int64_t oh, int64_t od, int64_t i3) {
        const int64_t oc = i3 % oc_n, n = i3 / oc_n;
        double        sum = 0.0;
        for (int64_t ic = 0; ic < ic_n; ++ic)
            for (int64_t kz = 0; kz < k->ne[2]; ++kz)
                for (int64_t ky = 0; ky < k->ne[1]; ++ky)
                    for (int64_t kx = 0; kx < k->ne[0]; ++kx) {
                        const int64_t ix = ow * s[0] + kx * d[0] - p[0], iy = oh * s[1] + ky * d[1] - p[1],
                                      iz = od * s[2] + kz * d[2] - p[2];
                        if (inside(ix, x->ne[0]) && inside(iy, x->ne[1]) && inside(iz, x->ne[2]))
                            sum += static_cast<double>(get(k, kx, ky, kz, oc * ic_n + ic)) * get(x, ix, iy, iz, n * ic_n + ic);
                    }
        set(node, ow, oh, od, i3, static_cast<float>(sum));
    });
    return true;
}

// every data element spreads over a KW x KH patch of the output at (iw*s, ih*s)
bool conv_transpose_2d(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *x = node->src[1];
    const int64_t       s = param_i32(node, 0);
    Sums                out(node);
    for_each(x, [&](int64_t iw, int64_t ih, int64_t ic, int64_t n) {
        const double v = get(x, iw, ih, ic, n);
        for (int64_t oc = 0; oc < k->ne[2]; ++oc)
            for (int64_t ky = 0; ky < k->ne[1]; ++ky)
                for (int64_t kx = 0; kx < k->ne[0]; ++kx) out.at(iw * s + kx, ih * s + ky, oc, n) += v * get(k, kx, ky, oc, ic);
    });
    out.store(node);
    return true;
}

// MAX: the gradient of an output goes to the first (row-major in its window) largest input; AVG: spread evenly
// over the k0*k1 window, taps outside the input dropped
bool pool_2d_back(ggml_tensor * node) {
    const ggml_tensor * g = node->src[0], *x = node->src[1];
    const int op = param_i32(node, 0), k0 = param_i32(node, 1), k1 = param_i32(node, 2), s0 = param_i32(node, 3),
              s1 = param_i32(node, 4), p0 = param_i32(node, 5), p1 = param_i32(node, 6);
    Sums out(node);
    for_each(g, [&](int64_t ox, int64_t oy, int64_t c, int64_t n) {
        const double gv = get(g, ox, oy, c, n);
        int64_t      bx = -1, by = -1;
        float        best = 0.0f;
        for (int64_t ky = 0; ky < k1; ++ky)
            for (int64_t kx = 0; kx < k0; ++kx) {
                const int64_t ix = ox * s0 + kx - p0, iy = oy * s1 + ky - p1;
                if (!inside(ix, x->ne[0]) || !inside(iy, x->ne[1])) continue;
                if (op == GGML_OP_POOL_AVG) {
                    out.at(ix, iy, c, n) += gv / (k0 * k1);
                } else if (bx < 0 || get(x, ix, iy, c, n) > best) {
                    bx = ix, by = iy, best = get(x, ix, iy, c, n);
                }
            }
        if (bx >= 0) out.at(bx, by, c, n) += gv;
    });
    out.store(node);
    return true;
}

} // namespace

bool spatial(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_CONV_TRANSPOSE_1D: return conv_transpose_1d(node);
        case GGML_OP_CONV_2D_DW:        return conv_2d_dw(node);
        case GGML_OP_UPSCALE:           return upscale(node);
        case GGML_OP_PAD_REFLECT_1D:    return pad_reflect_1d(node);
        case GGML_OP_IM2COL_BACK:       return im2col_back(node);
        case GGML_OP_IM2COL_3D:         return im2col_3d(node);
        case GGML_OP_COL2IM_1D:         return col2im_1d(node);
        case GGML_OP_CONV_2D:           return conv_2d(node);
        case GGML_OP_CONV_3D:           return conv_3d(node);
        case GGML_OP_CONV_TRANSPOSE_2D: return conv_transpose_2d(node);
        case GGML_OP_POOL_2D_BACK:      return pool_2d_back(node);
        default:                        return false;
    }
}

} // namespace switchyard::testing::reference
