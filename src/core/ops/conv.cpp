// Convolution front-ends and spatial ops: IM2COL (and ggml_conv_1d / _1d_ph / _2d built from it and MUL_MAT,
// exactly as upstream builds them), POOL_1D, POOL_2D and PAD.
//
// IM2COL: a = kernel (shape only), b = data. op_params (i32) {s0, s1, p0, p1, d0, d1, is_2D}.
//   2-D: a [KW, KH, IC, OC], b [W, H, IC, N] -> [IC*KH*KW, OW, OH, N]
//   1-D: a [K, IC, OC],      b [L, IC, N]    -> [IC*K, OL, N, 1]
//   output size along a dim: (in + 2p - d*(k - 1) - 1) / s + 1, which must be > 0.
// POOL_1D: op_params {op, k0, s0, p0}; POOL_2D: {op, k0, k1, s0, s1, p0, p1} (p truncated to int). F32 result;
//   output size (in + 2p - k) / s + 1 computed in float as upstream, must be > 0.
// PAD: op_params {lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3, circular}; result [ne_i + lp_i + rp_i], a's type;
//   circular = 1 (ggml_pad_circular / _ext_circular) repeats a around instead of zeros.
// CONV_TRANSPOSE_1D: a = kernel [K, OC, IC], b = data [L, IC] -> F32 [(L - 1)*s0 + K, OC]; op_params {s0, p0, d0},
//   p0 = 0 and d0 = 1 only (as upstream).
// CONV_2D_DW (ggml_conv_2d_dw_direct): a [KW, KH, 1, C], b [W, H, C, N] -> [OW, OH, C, N] of b's type, laid out
//   like b when b is channels-contiguous (a CWHN tensor permuted to WHCN); op_params {s0, s1, p0, p1, d0, d1}.
// ggml_conv_1d_dw(_ph) and ggml_conv_2d_dw are compositions of IM2COL (F16) and MUL_MAT, as upstream builds them.
#include "core/ops/op_common.h"

#include "base/log.h"

namespace switchyard::ops {

namespace {

int64_t conv_out_size(int64_t in, int64_t k, int s, int p, int d) {
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

int64_t pool_out_size(int64_t in, int k, int s, float p) {
    return static_cast<int64_t>((static_cast<float>(in) + 2 * p - static_cast<float>(k)) / static_cast<float>(s) + 1);
}

void check_im2col(const ggml_tensor * a, const ggml_tensor * b, int s0, int s1, bool is_2d, const char * name) {
    if (is_2d) {
        shape_check(a->ne[2] == b->ne[2], name, "kernel a %s and data b %s differ in channels (ne[2])",
                    shape(a), shape(b));
    } else {
        shape_check(a->ne[1] == b->ne[1] && b->ne[3] == 1, name,
                    "kernel a %s and 3-d data b %s must agree in channels (ne[1])", shape(a), shape(b));
    }
    shape_check(s0 > 0 && (!is_2d || s1 > 0), name, "strides must be positive (s0 = %d, s1 = %d)", s0, s1);
}

ggml_tensor * pool_result(ggml_context * ctx, ggml_tensor * a, const Ne & ne, ggml_op op, const char * name) {
    return set_op(new_result(ctx, GGML_TYPE_F32, ne, name), op, {a});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_im2col(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                 int s1, int p0, int p1, int d0, int d1, bool is_2D, enum ggml_type dst_type) {
    const char * name = "ggml_im2col";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    check_im2col(a, b, s0, s1, is_2D, name);
    const int64_t oh = is_2D ? conv_out_size(b->ne[1], a->ne[1], s1, p1, d1) : 0;
    const int64_t ow = conv_out_size(b->ne[0], a->ne[0], s0, p0, d0);
    shape_check((!is_2D || oh > 0) && ow > 0, name, "data b %s is too small for kernel a %s (output %lld x %lld)",
                shape(b), shape(a), static_cast<long long>(ow), static_cast<long long>(oh));
    const Ne ne = {is_2D ? a->ne[2] * a->ne[1] * a->ne[0] : a->ne[1] * a->ne[0], ow, is_2D ? oh : b->ne[2],
                   is_2D ? b->ne[3] : 1};
    ggml_tensor * t = set_op(new_result(ctx, dst_type, ne, name), GGML_OP_IM2COL, {a, b});
    return with_i32(t, {s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0});
}

// a: kernel [K, IC, OC], b: data [L, IC, N] -> [OL, OC, N] (F32), via an im2col of conv_columns_type.
struct ggml_tensor * ggml_conv_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                  int p0, int d0) {
    ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, 0, p0, 0, d0, 0, false, conv_columns_type(a)); // [IC*K, OL, N]
    if (!cols) {
        return nullptr;
    }
    ggml_tensor * r = ggml_mul_mat(ctx, ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[2] * cols->ne[1]),
                                   ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1], a->ne[2])); // [N*OL, OC]
    if (!r) {
        return nullptr;
    }
    return ggml_reshape_3d(ctx, r, cols->ne[1], a->ne[2], cols->ne[2]);
}

struct ggml_tensor * ggml_conv_1d_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s,
                                     int d) {
    if (!inputs_ok("ggml_conv_1d_ph", {a, b})) {
        return nullptr;
    }
    return ggml_conv_1d(ctx, a, b, s, static_cast<int>(a->ne[0] / 2), d);
}

// a: kernel [KW, KH, IC, OC], b: data [W, H, IC, N] -> [OW, OH, OC, N] (F32), via an im2col of conv_columns_type.
struct ggml_tensor * ggml_conv_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                  int s1, int p0, int p1, int d0, int d1) {
    if (!inputs_ok("ggml_conv_2d", {a, b})) {
        return nullptr;
    }
    ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, s1, p0, p1, d0, d1, true, conv_columns_type(a)); // [IC*KH*KW, OW, OH, N]
    if (!cols) {
        return nullptr;
    }
    ggml_tensor * r =
        ggml_mul_mat(ctx, ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3] * cols->ne[2] * cols->ne[1]),
                     ggml_reshape_2d(ctx, a, a->ne[0] * a->ne[1] * a->ne[2], a->ne[3])); // [N*OH*OW, OC]
    if (!r) {
        return nullptr;
    }
    r = ggml_reshape_4d(ctx, r, cols->ne[1], cols->ne[2], cols->ne[3], a->ne[3]); // [OW, OH, N, OC]
    return ggml_cont(ctx, ggml_permute(ctx, r, 0, 1, 3, 2));                      // [OW, OH, OC, N]
}

// a: kernel [K, 1, C], b: data [L, C, N] (N = 1: the 1-d im2col takes one batch) -> [OL, C, 1]
struct ggml_tensor * ggml_conv_1d_dw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                     int p0, int d0) {
    if (!inputs_ok("ggml_conv_1d_dw", {a, b})) {
        return nullptr;
    }
    ggml_tensor * data = ggml_reshape_4d(ctx, b, b->ne[0], 1, b->ne[1], b->ne[2]);
    ggml_tensor * cols = ggml_im2col(ctx, a, data, s0, 0, p0, 0, d0, 0, false, conv_columns_type(a)); // [K, OL, C]
    ggml_tensor * r    = ggml_mul_mat(ctx, cols, a);                                         // [OL, 1, C]
    if (!r) {
        return nullptr;
    }
    return ggml_reshape_3d(ctx, r, r->ne[0], r->ne[2], 1);
}

struct ggml_tensor * ggml_conv_1d_dw_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        int s0, int d0) {
    if (!inputs_ok("ggml_conv_1d_dw_ph", {a, b})) {
        return nullptr;
    }
    return ggml_conv_1d_dw(ctx, a, b, s0, static_cast<int>(a->ne[0] / 2), d0);
}

// a: kernel [KW, KH, 1, C], b: data [W, H, C, N] -> [OW, OH, C, N]: one im2col per channel, then a batched
// MUL_MAT of each channel's kernel with its columns.
struct ggml_tensor * ggml_conv_2d_dw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                     int s1, int p0, int p1, int d0, int d1) {
    if (!inputs_ok("ggml_conv_2d_dw", {a, b})) {
        return nullptr;
    }
    ggml_tensor * kernel = ggml_reshape_4d(ctx, a, a->ne[0], a->ne[1], 1, a->ne[2] * a->ne[3]);
    ggml_tensor * data   = ggml_reshape_4d(ctx, b, b->ne[0], b->ne[1], 1, b->ne[2] * b->ne[3]);
    ggml_tensor * cols   = ggml_im2col(ctx, kernel, data, s0, s1, p0, p1, d0, d1, true, conv_columns_type(a));
    if (!cols) {
        return nullptr; // [KW*KH, OW, OH, C*N]
    }
    ggml_tensor * per_channel = ggml_reshape_4d(ctx, cols, cols->ne[0], cols->ne[2] * cols->ne[1], b->ne[2], b->ne[3]);
    ggml_tensor * weights     = ggml_reshape_4d(ctx, kernel, kernel->ne[0] * kernel->ne[1], 1, kernel->ne[3], 1);
    ggml_tensor * r           = ggml_mul_mat(ctx, weights, per_channel); // [1, OW*OH, C, N]
    if (!r) {
        return nullptr;
    }
    return ggml_reshape_4d(ctx, r, cols->ne[1], cols->ne[2], b->ne[2], b->ne[3]);
}

struct ggml_tensor * ggml_conv_2d_dw_direct(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            int stride0, int stride1, int pad0, int pad1, int dilation0,
                                            int dilation1) {
    const char * name = "ggml_conv_2d_dw_direct";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[2] == 1 && a->ne[3] == b->ne[2], name, "kernel a %s must be [KW, KH, 1, C] for data b %s",
                shape(a), shape(b));
    shape_check(stride0 > 0 && stride1 > 0 && dilation0 > 0 && dilation1 > 0, name,
                "strides (%d, %d) and dilations (%d, %d) must be positive", stride0, stride1, dilation0, dilation1);
    shape_check(ggml_blck_size(b->type) == 1, name, "data b %s must not be of a block format", shape(b));
    const Ne ne = {conv_out_size(b->ne[0], a->ne[0], stride0, pad0, dilation0),
                   conv_out_size(b->ne[1], a->ne[1], stride1, pad1, dilation1), b->ne[2], b->ne[3]};
    shape_check(ne[0] > 0 && ne[1] > 0, name, "data b %s is too small for kernel a %s", shape(b), shape(a));
    ggml_tensor * t = new_result(ctx, b->type, ne, name);
    if (t && ggml_is_contiguous_channels(b)) {
        const size_t size = ggml_type_size(t->type); // the result keeps b's CWHN memory order
        t->nb[0]          = static_cast<size_t>(t->ne[2]) * size;
        t->nb[1]          = static_cast<size_t>(t->ne[0]) * t->nb[0];
        t->nb[2]          = size;
    }
    return with_i32(set_op(t, GGML_OP_CONV_2D_DW, {a, b}), {stride0, stride1, pad0, pad1, dilation0, dilation1});
}

struct ggml_tensor * ggml_conv_transpose_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                            int s0, int p0, int d0) {
    const char * name = "ggml_conv_transpose_1d";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_is_matrix(b), name, "data b %s must be a matrix [L, IC]", shape(b));
    shape_check(a->ne[2] == b->ne[1] && a->ne[3] == 1, name, "kernel a %s must be [K, OC, IC] for data b %s", shape(a),
                shape(b));
    shape_check(p0 == 0 && d0 == 1, name, "only p0 = 0 and d0 = 1 are supported (p0 = %d, d0 = %d)", p0, d0);
    shape_check(s0 > 0, name, "stride s0 = %d must be positive", s0);
    const Ne ne = {(b->ne[0] - 1) * s0 + a->ne[0], a->ne[1], 1, 1};
    ggml_tensor * t = set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_CONV_TRANSPOSE_1D, {a, b});
    return with_i32(t, {s0, p0, d0});
}

struct ggml_tensor * ggml_pool_1d(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op, int k0,
                                  int s0, int p0) {
    const char * name = "ggml_pool_1d";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(s0 > 0, name, "stride s0 = %d must be positive", s0);
    const Ne ne = {pool_out_size(a->ne[0], k0, s0, static_cast<float>(p0)), a->ne[1], a->ne[2], a->ne[3]};
    shape_check(ne[0] > 0, name, "a %s is too small for kernel %d, stride %d, padding %d", shape(a), k0, s0, p0);
    return with_i32(pool_result(ctx, a, ne, GGML_OP_POOL_1D, name), {static_cast<int32_t>(op), k0, s0, p0});
}

struct ggml_tensor * ggml_pool_2d(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op, int k0,
                                  int k1, int s0, int s1, float p0, float p1) {
    const char * name = "ggml_pool_2d";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(s0 > 0 && s1 > 0, name, "strides (%d, %d) must be positive", s0, s1);
    const Ne ne = {pool_out_size(a->ne[0], k0, s0, p0), pool_out_size(a->ne[1], k1, s1, p1), a->ne[2], a->ne[3]};
    shape_check(ne[0] > 0 && ne[1] > 0, name, "a %s is too small for kernel %dx%d, strides %dx%d", shape(a), k0,
                k1, s0, s1);
    ggml_tensor * t = pool_result(ctx, a, ne, GGML_OP_POOL_2D, name);
    return with_i32(t, {static_cast<int32_t>(op), k0, k1, s0, s1, static_cast<int32_t>(p0), static_cast<int32_t>(p1)});
}

struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    return ggml_pad_ext(ctx, a, 0, p0, 0, p1, 0, p2, 0, p3);
}

struct ggml_tensor * ggml_pad_ext(struct ggml_context * ctx, struct ggml_tensor * a, int lp0, int rp0, int lp1,
                                  int rp1, int lp2, int rp2, int lp3, int rp3) {
    const char * name = "ggml_pad_ext";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    const Ne ne = {a->ne[0] + lp0 + rp0, a->ne[1] + lp1 + rp1, a->ne[2] + lp2 + rp2, a->ne[3] + lp3 + rp3};
    shape_check(ne[0] >= 0 && ne[1] >= 0 && ne[2] >= 0 && ne[3] >= 0, name,
                "padding (%d, %d, %d, %d, %d, %d, %d, %d) leaves a negative extent of a %s", lp0, rp0, lp1, rp1, lp2,
                rp2, lp3, rp3, shape(a));
    ggml_tensor * t = set_op(new_result(ctx, a->type, ne, name), GGML_OP_PAD, {a});
    return with_i32(t, {lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3, 0});
}

struct ggml_tensor * ggml_pad_circular(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2,
                                       int p3) {
    return ggml_pad_ext_circular(ctx, a, 0, p0, 0, p1, 0, p2, 0, p3);
}

struct ggml_tensor * ggml_pad_ext_circular(struct ggml_context * ctx, struct ggml_tensor * a, int lp0, int rp0,
                                           int lp1, int rp1, int lp2, int rp2, int lp3, int rp3) {
    const char * name = "ggml_pad_ext_circular";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    const int lp[4] = {lp0, lp1, lp2, lp3}, rp[4] = {rp0, rp1, rp2, rp3};
    for (int d = 0; d < GGML_MAX_DIMS; ++d) {
        shape_check(lp[d] >= 0 && rp[d] >= 0 && (a->ne[d] > 0 || lp[d] + rp[d] == 0), name,
                    "circular padding (%d, %d) of dim %d needs non-negative amounts and a non-empty a %s", lp[d], rp[d],
                    d, shape(a));
    }
    ggml_tensor * t = ggml_pad_ext(ctx, a, lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3);
    if (t) {
        set_op_param_i32(t, 8, 1);
    }
    return t;
}

} // extern "C"
