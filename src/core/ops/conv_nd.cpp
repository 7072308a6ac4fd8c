// The direct and n-dimensional convolution constructors: the direct convolutions (CONV_2D, CONV_3D,
// CONV_TRANSPOSE_2D), the 3-d unfold (IM2COL_3D), its 1-d inverse (COL2IM_1D), the gradient ops IM2COL_BACK and
// POOL_2D_BACK, and the compositions ggml_conv_2d_sk_p0 / _s1_ph (ggml_conv_2d) and ggml_conv_3d (IM2COL_3D +
// MUL_MAT), built exactly as upstream builds them. Output size along a dim of a convolution:
// (in + 2p - d*(k - 1) - 1) / s + 1; of a transposed one: (in - 1)*s + k.
//
// IM2COL_BACK: a = gradient of an IM2COL result, b = the kernel (shape only), ne = the IM2COL data's shape ->
//   F32 ne; op_params {s0, s1, p0, p1, d0, d1, is_2D} as IM2COL. a must be shaped like that IM2COL's result.
// IM2COL_3D: a = kernel [KW, KH, KD, OC*IC] (shape only), b = data [W, H, D, N*IC] ->
//   dst_type [IC*KD*KH*KW, OW, OH, OD*N]; op_params {s0, s1, s2, p0, p1, p2, d0, d1, d2, IC}.
// COL2IM_1D: a = columns [K*OC, T_in] (F32/F16/BF16, contiguous) -> a's type [(T_in - 1)*s0 + K - 2*p0, OC]:
//   the overlap-add of the columns (the second half of a transposed 1-d convolution); op_params {s0, OC, p0}.
// CONV_2D (ggml_conv_2d_direct): a = kernel [KW, KH, IC, OC], b = data [W, H, IC, N] -> b's type
//   [OW, OH, OC, N]; op_params {s0, s1, p0, p1, d0, d1}.
// CONV_3D (ggml_conv_3d_direct): a = kernel [KW, KH, KD, IC*OC], b = data [W, H, D, IC*N] -> F32
//   [OW, OH, OD, OC*N] (index oc*IC + ic in a, n*IC + ic in b, n*OC + oc in the result);
//   op_params {s0, s1, s2, p0, p1, p2, d0, d1, d2, IC, N, OC}.
// CONV_TRANSPOSE_2D (ggml_conv_transpose_2d_p0): a = kernel [KW, KH, OC, IC], b = data [W, H, IC, N] -> F32
//   [(W - 1)*s + KW, (H - 1)*s + KH, OC, N]; op_params {s}.
// POOL_2D_BACK: a = gradient of a POOL_2D result, af = that pool's input -> F32 shaped like af;
//   op_params {op, k0, k1, s0, s1, p0, p1} as POOL_2D (p truncated to int).
#include "core/ops/op_common.h"

namespace switchyard::ops {

namespace {

int64_t conv_size(int64_t in, int64_t k, int s, int p, int d) {
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

int64_t transposed_size(int64_t in, int64_t k, int s) {
    return (in - 1) * s + k;
}

int64_t pool_size(int64_t in, int k, int s, float p) {
    return static_cast<int64_t>((static_cast<float>(in) + 2 * p - static_cast<float>(k)) / static_cast<float>(s) + 1);
}

struct Conv3 {
    int s[3], p[3], d[3];
};

// The output extents of a 3-d convolution of data b with kernel a; each must be positive.
Ne conv_3d_out(const ggml_tensor * a, const ggml_tensor * b, const Conv3 & c, const char * name) {
    shape_check(c.s[0] > 0 && c.s[1] > 0 && c.s[2] > 0 && c.d[0] > 0 && c.d[1] > 0 && c.d[2] > 0, name,
                "strides (%d, %d, %d) and dilations (%d, %d, %d) must be positive", c.s[0], c.s[1], c.s[2], c.d[0],
                c.d[1], c.d[2]);
    Ne out{};
    for (int i = 0; i < 3; ++i) {
        out[i] = conv_size(b->ne[i], a->ne[i], c.s[i], c.p[i], c.d[i]);
    }
    shape_check(out[0] > 0 && out[1] > 0 && out[2] > 0, name, "data b %s is too small for kernel a %s", shape(b),
                shape(a));
    return out;
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_im2col_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      int64_t * ne, int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D) {
    const char * name = "ggml_im2col_back";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ne != nullptr, name, "the shape ne of the im2col input is NULL");
    shape_check(s0 > 0 && d0 > 0 && (!is_2D || (s1 > 0 && d1 > 0)), name,
                "strides (%d, %d) and dilations (%d, %d) must be positive", s0, s1, d0, d1);
    const int64_t ow = conv_size(ne[0], b->ne[0], s0, p0, d0);
    const int64_t oh = is_2D ? conv_size(ne[1], b->ne[1], s1, p1, d1) : 1;
    // the shape of the IM2COL result whose gradient a is
    const Ne cols = is_2D ? Ne{ne[2] * b->ne[1] * b->ne[0], ow, oh, ne[3]} : Ne{ne[1] * b->ne[0], ow, ne[2], 1};
    shape_check(ow > 0 && oh > 0 && (is_2D || ne[3] == 1) && a->ne[0] == cols[0] && a->ne[1] == cols[1] &&
                    a->ne[2] == cols[2] && a->ne[3] == cols[3],
                name, "gradient a %s is not the im2col result of kernel b %s on data of shape [%lld, %lld, %lld, %lld]",
                shape(a), shape(b), static_cast<long long>(ne[0]), static_cast<long long>(ne[1]),
                static_cast<long long>(ne[2]), static_cast<long long>(ne[3]));
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, {ne[0], ne[1], ne[2], ne[3]}, name), GGML_OP_IM2COL_BACK,
                             {a, b});
    return with_i32(t, {s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0});
}

struct ggml_tensor * ggml_im2col_3d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                    int64_t IC, int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1,
                                    int d2, enum ggml_type dst_type) {
    const char * name = "ggml_im2col_3d";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    // as upstream: the data's ne[3] is read as N*IC with N = ne[3] / IC (channels past N*IC unused; N = 0 gives an
    // empty result), and the kernel's ne[3] (OC*IC) is not used here
    shape_check(IC > 0, name, "IC = %lld must be positive", static_cast<long long>(IC));
    const Ne out = conv_3d_out(a, b, Conv3{{s0, s1, s2}, {p0, p1, p2}, {d0, d1, d2}}, name);
    const Ne ne  = {a->ne[0] * a->ne[1] * a->ne[2] * IC, out[0], out[1], out[2] * (b->ne[3] / IC)};
    ggml_tensor * t = set_op(new_result(ctx, dst_type, ne, name), GGML_OP_IM2COL_3D, {a, b});
    return with_i32(t, {s0, s1, s2, p0, p1, p2, d0, d1, d2, static_cast<int32_t>(IC)});
}

// a: kernel [KW, KH, KD, OC*IC], b: data [W, H, D, N*IC] -> [OW, OH, OD, OC*N] (F32): IM2COL_3D of
// conv_columns_type, one MUL_MAT with the kernel as [KW*KH*KD*IC, OC], then the OC and N dims swapped.
struct ggml_tensor * ggml_conv_3d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                  int64_t IC, int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2) {
    if (!inputs_ok("ggml_conv_3d", {a, b})) {
        return nullptr;
    }
    ggml_tensor * cols = ggml_im2col_3d(ctx, a, b, IC, s0, s1, s2, p0, p1, p2, d0, d1, d2, conv_columns_type(a));
    if (!cols) {
        return nullptr; // [IC*KD*KH*KW, OW, OH, OD*N]
    }
    const int64_t oc = a->ne[3] / IC, n = b->ne[3] / IC, od = cols->ne[3] / n;
    ggml_tensor * r =
        ggml_mul_mat(ctx, ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3] * cols->ne[2] * cols->ne[1]),
                     ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1] * a->ne[2] * IC, oc)); // [N*OD*OH*OW, OC]
    if (!r) {
        return nullptr;
    }
    r = ggml_reshape_4d(ctx, r, cols->ne[1] * cols->ne[2], od, n, oc);          // [OW*OH, OD, N, OC]
    r = ggml_cont(ctx, ggml_permute(ctx, r, 0, 1, 3, 2));                       // [OW*OH, OD, OC, N]
    return ggml_reshape_4d(ctx, r, cols->ne[1], cols->ne[2], od, oc * n);       // [OW, OH, OD, OC*N]
}

struct ggml_tensor * ggml_col2im_1d(struct ggml_context * ctx, struct ggml_tensor * a, int s0, int oc, int p0) {
    const char * name = "ggml_col2im_1d";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(ggml_is_matrix(a) && ggml_is_contiguous(a), name, "columns a %s must be a contiguous matrix", shape(a));
    shape_check(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16, name,
                "columns a %s must be f32, f16 or bf16", shape(a));
    shape_check(s0 > 0 && oc > 0 && p0 >= 0, name, "s0 = %d and oc = %d must be positive, p0 = %d not negative", s0,
                oc, p0);
    const int64_t k     = a->ne[0] / oc;
    const int64_t t_out = (a->ne[1] - 1) * s0 + k - 2 * static_cast<int64_t>(p0);
    shape_check(k > 0 && a->ne[0] == k * oc && t_out > 0, name,
                "columns a %s must hold K*oc rows (oc = %d) and leave a positive length (%lld) after padding %d",
                shape(a), oc, static_cast<long long>(t_out), p0);
    ggml_tensor * t = set_op(new_result(ctx, a->type, {t_out, oc, 1, 1}, name), GGML_OP_COL2IM_1D, {a});
    return with_i32(t, {s0, oc, p0});
}

struct ggml_tensor * ggml_conv_2d_sk_p0(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (!inputs_ok("ggml_conv_2d_sk_p0", {a, b})) {
        return nullptr;
    }
    return ggml_conv_2d(ctx, a, b, static_cast<int>(a->ne[0]), static_cast<int>(a->ne[1]), 0, 0, 1, 1);
}

struct ggml_tensor * ggml_conv_2d_s1_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (!inputs_ok("ggml_conv_2d_s1_ph", {a, b})) {
        return nullptr;
    }
    return ggml_conv_2d(ctx, a, b, 1, 1, static_cast<int>(a->ne[0] / 2), static_cast<int>(a->ne[1] / 2), 1, 1);
}

struct ggml_tensor * ggml_conv_2d_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         int s0, int s1, int p0, int p1, int d0, int d1) {
    const char * name = "ggml_conv_2d_direct";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[2] == b->ne[2], name, "kernel a %s and data b %s differ in channels (ne[2])", shape(a),
                shape(b));
    shape_check(s0 > 0 && s1 > 0 && d0 > 0 && d1 > 0, name,
                "strides (%d, %d) and dilations (%d, %d) must be positive", s0, s1, d0, d1);
    shape_check(ggml_blck_size(b->type) == 1, name, "data b %s must not be of a block format", shape(b));
    const Ne ne = {conv_size(b->ne[0], a->ne[0], s0, p0, d0), conv_size(b->ne[1], a->ne[1], s1, p1, d1), a->ne[3],
                   b->ne[3]};
    shape_check(ne[0] > 0 && ne[1] > 0, name, "data b %s is too small for kernel a %s", shape(b), shape(a));
    ggml_tensor * t = set_op(new_result(ctx, b->type, ne, name), GGML_OP_CONV_2D, {a, b});
    return with_i32(t, {s0, s1, p0, p1, d0, d1});
}

struct ggml_tensor * ggml_conv_3d_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2,
                                         int n_channels, int n_batch, int n_channels_out) {
    const char * name = "ggml_conv_3d_direct";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    const int64_t c = n_channels, n = n_batch, oc = n_channels_out;
    shape_check(c > 0 && n > 0 && oc > 0 && a->ne[3] == c * oc && b->ne[3] == c * n, name,
                "kernel a %s must have ne[3] = IC*OC and data b %s ne[3] = IC*N (IC = %d, N = %d, OC = %d)", shape(a),
                shape(b), n_channels, n_batch, n_channels_out);
    const Ne out = conv_3d_out(a, b, Conv3{{s0, s1, s2}, {p0, p1, p2}, {d0, d1, d2}}, name);
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, {out[0], out[1], out[2], oc * n}, name), GGML_OP_CONV_3D,
                             {a, b});
    return with_i32(t, {s0, s1, s2, p0, p1, p2, d0, d1, d2, n_channels, n_batch, n_channels_out});
}

struct ggml_tensor * ggml_conv_transpose_2d_p0(struct ggml_context * ctx, struct ggml_tensor * a,
                                               struct ggml_tensor * b, int stride) {
    const char * name = "ggml_conv_transpose_2d_p0";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[3] == b->ne[2], name, "kernel a %s must be [KW, KH, OC, IC] for data b %s", shape(a), shape(b));
    shape_check(stride > 0, name, "stride %d must be positive", stride);
    const Ne ne = {transposed_size(b->ne[0], a->ne[0], stride), transposed_size(b->ne[1], a->ne[1], stride), a->ne[2],
                   b->ne[3]};
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_CONV_TRANSPOSE_2D, {a, b});
    return with_i32(t, {stride});
}

struct ggml_tensor * ggml_pool_2d_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * af,
                                       enum ggml_op_pool op, int k0, int k1, int s0, int s1, float p0, float p1) {
    const char * name = "ggml_pool_2d_back";
    if (!inputs_ok(name, {a, af})) {
        return nullptr;
    }
    shape_check(op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG, name, "unknown pool op %d", static_cast<int>(op));
    shape_check(k0 > 0 && k1 > 0 && s0 > 0 && s1 > 0, name, "kernel (%d, %d) and strides (%d, %d) must be positive",
                k0, k1, s0, s1);
    const Ne out = {pool_size(af->ne[0], k0, s0, p0), pool_size(af->ne[1], k1, s1, p1), af->ne[2], af->ne[3]};
    shape_check(a->ne[0] == out[0] && a->ne[1] == out[1] && a->ne[2] == out[2] && a->ne[3] == out[3], name,
                "gradient a %s is not shaped like the pool of af %s (kernel %dx%d, strides %dx%d)", shape(a),
                shape(af), k0, k1, s0, s1);
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, ne_of(af), name), GGML_OP_POOL_2D_BACK, {a, af});
    return with_i32(t, {static_cast<int32_t>(op), k0, k1, s0, s1, static_cast<int32_t>(p0), static_cast<int32_t>(p1)});
}

} // extern "C"
