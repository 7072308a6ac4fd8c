// Convolution front-ends and spatial ops: IM2COL (and ggml_conv_1d / _1d_ph / _2d built from it and MUL_MAT,
// exactly as upstream builds them), POOL_1D, POOL_2D and PAD.
//
// IM2COL: a = kernel (shape only), b = data. op_params (i32) {s0, s1, p0, p1, d0, d1, is_2D}.
//   2-D: a [KW, KH, IC, OC], b [W, H, IC, N] -> [IC*KH*KW, OW, OH, N]
//   1-D: a [K, IC, OC],      b [L, IC, N]    -> [IC*K, OL, N, 1]
//   output size along a dim: (in + 2p - d*(k - 1) - 1) / s + 1, which must be > 0.
// POOL_1D: op_params {op, k0, s0, p0}; POOL_2D: {op, k0, k1, s0, s1, p0, p1} (p truncated to int). F32 result;
//   output size (in + 2p - k) / s + 1 computed in float as upstream, must be > 0.
// PAD: op_params {lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3, circular = 0}; result [ne_i + lp_i + rp_i], a's type.
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

// a: kernel [K, IC, OC], b: data [L, IC, N] -> [OL, OC, N] (F32), via an F16 im2col.
struct ggml_tensor * ggml_conv_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                  int p0, int d0) {
    ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, 0, p0, 0, d0, 0, false, GGML_TYPE_F16); // [IC*K, OL, N]
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

// a: kernel [KW, KH, IC, OC], b: data [W, H, IC, N] -> [OW, OH, OC, N] (F32), via an im2col of a's type.
struct ggml_tensor * ggml_conv_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0,
                                  int s1, int p0, int p1, int d0, int d1) {
    if (!inputs_ok("ggml_conv_2d", {a, b})) {
        return nullptr;
    }
    ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, s1, p0, p1, d0, d1, true, a->type); // [IC*KH*KW, OW, OH, N]
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

} // extern "C"
