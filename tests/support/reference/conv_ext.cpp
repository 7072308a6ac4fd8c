// Reference spatial ops of the issue 16 batch: CONV_TRANSPOSE_1D, CONV_2D_DW, UPSCALE (nearest, bilinear, align
// corners) and PAD_REFLECT_1D, written from their definitions in double precision.
#include "support/reference/util.h"

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

} // namespace

bool conv_ext(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_CONV_TRANSPOSE_1D: return conv_transpose_1d(node);
        case GGML_OP_CONV_2D_DW:        return conv_2d_dw(node);
        case GGML_OP_UPSCALE:           return upscale(node);
        case GGML_OP_PAD_REFLECT_1D:    return pad_reflect_1d(node);
        default:                        return false;
    }
}

} // namespace switchyard::testing::reference
