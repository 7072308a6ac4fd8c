// Reference im2col and pooling.
#include "conformance/reference/util.h"

#include <algorithm>
#include <cfloat>

namespace switchyard::testing::reference {

namespace {

bool im2col(ggml_tensor * node) {
    const ggml_tensor * k = node->src[0], *b = node->src[1];
    const int  s0 = param_i32(node, 0), s1 = param_i32(node, 1), p0 = param_i32(node, 2), p1 = param_i32(node, 3);
    const int  d0 = param_i32(node, 4), d1 = param_i32(node, 5);
    const bool is_2d = param_i32(node, 6) == 1;
    const int64_t KW = k->ne[0], KH = is_2d ? k->ne[1] : 1, IC = is_2d ? b->ne[2] : b->ne[1];
    const int64_t IW = b->ne[0], IH = is_2d ? b->ne[1] : 1;
    for_each(node, [&](int64_t col, int64_t ow, int64_t x2, int64_t x3) {
        const int64_t oh = is_2d ? x2 : 0, n = is_2d ? x3 : x2;
        const int64_t ic = col / (KH * KW), kh = (col / KW) % KH, kw = col % KW;
        const int64_t iw = ow * s0 + kw * d0 - p0, ih = oh * s1 + kh * d1 - p1;
        float v = 0.0f;
        if (iw >= 0 && iw < IW && ih >= 0 && ih < IH) {
            v = is_2d ? get(b, iw, ih, ic, n) : get(b, iw, ic, n, 0);
        }
        set(node, col, ow, x2, x3, v);
    });
    (void) IC;
    return true;
}

bool pool(ggml_tensor * node) {
    const ggml_tensor * a    = node->src[0];
    const bool          is2d = node->op == GGML_OP_POOL_2D;
    const int op = param_i32(node, 0), k0 = param_i32(node, 1);
    const int k1 = is2d ? param_i32(node, 2) : 1;
    const int s0 = is2d ? param_i32(node, 3) : param_i32(node, 2), s1 = is2d ? param_i32(node, 4) : 1;
    const int p0 = is2d ? param_i32(node, 5) : param_i32(node, 3), p1 = is2d ? param_i32(node, 6) : 0;
    for_each(node, [&](int64_t ox, int64_t oy, int64_t i2, int64_t i3) {
        double acc = op == GGML_OP_POOL_MAX ? -DBL_MAX : 0.0;
        for (int ky = 0; ky < k1; ++ky)
            for (int kx = 0; kx < k0; ++kx) {
                const int64_t ix = ox * s0 + kx - p0;
                const int64_t iy = is2d ? oy * s1 + ky - p1 : oy;
                if (ix < 0 || ix >= a->ne[0] || iy < 0 || iy >= a->ne[1]) continue;
                const double v = get(a, ix, iy, i2, i3);
                acc            = op == GGML_OP_POOL_MAX ? std::max(acc, v) : acc + v;
            }
        set(node, ox, oy, i2, i3, static_cast<float>(op == GGML_OP_POOL_AVG ? acc / (k0 * k1) : acc));
    });
    return true;
}

} // namespace

bool conv(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_IM2COL:  return im2col(node);
        case GGML_OP_POOL_1D:
        case GGML_OP_POOL_2D: return pool(node);
        default:              return false;
    }
}

} // namespace switchyard::testing::reference
