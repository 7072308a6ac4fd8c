// Helpers shared by the reference ops.
#pragma once

#include "conformance/reference/reference.h"

#include <cmath>
#include <cstring>

namespace switchyard::testing::reference {

int64_t get_index(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3);
void    set_row(ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, const float * values);

inline int32_t param_i32(const ggml_tensor * t, int i) { return t->op_params[i]; }

inline float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

// Calls f(i0, i1, i2, i3) for every element of t in order.
template <typename F>
void for_each(const ggml_tensor * t, F && f) {
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) f(i0, i1, i2, i3);
}

// The flat (row-major, dim 0 fastest) index of an element, and back.
inline int64_t flat_index(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return ((i3 * t->ne[2] + i2) * t->ne[1] + i1) * t->ne[0] + i0;
}

inline void unflatten(const ggml_tensor * t, int64_t k, int64_t * i) {
    i[0] = k % t->ne[0];
    k /= t->ne[0];
    i[1] = k % t->ne[1];
    k /= t->ne[1];
    i[2] = k % t->ne[2];
    i[3] = k / t->ne[2];
}

inline double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// ALiBi slope of head h out of n_head (1 when max_bias is 0)
inline float alibi_slope(float max_bias, int64_t h, int64_t n_head) {
    if (max_bias <= 0.0f) return 1.0f;
    int64_t n_log2 = 1;
    while (n_log2 * 2 <= n_head) n_log2 *= 2;
    const double m0 = std::pow(2.0, -max_bias / static_cast<double>(n_log2));
    const double m1 = std::pow(2.0, -max_bias / 2.0 / static_cast<double>(n_log2));
    return static_cast<float>(h < n_log2 ? std::pow(m0, h + 1) : std::pow(m1, 2 * (h - n_log2) + 1));
}

bool elementwise(ggml_tensor * node); // unary, binary, glu, scale, clamp, leaky_relu, sqr/sqrt/log/sin/cos
bool reduce_norm(ggml_tensor * node); // sum, sum_rows, mean, argmax, count_equal, cumsum, norm family
bool matrix(ggml_tensor * node);      // mul_mat, mul_mat_id, out_prod
bool layout(ggml_tensor * node);      // copies, repeat, concat, set, acc, pad, rows, arange, sort, diag masks
bool attention(ggml_tensor * node);   // soft_max, rope, flash_attn_ext, flash_attn_back
bool conv(ggml_tensor * node);        // im2col, pool
bool fill(ggml_tensor * node);        // fill, tri, diag
bool roll(ggml_tensor * node);        // roll
bool custom(ggml_tensor * node);      // map_custom1/2/3, custom: the application's function on one thread
bool sam(ggml_tensor * node);         // SAM's win_part/unpart, get_rel_pos, add_rel_pos
bool spatial(ggml_tensor * node);     // conv_transpose_1d, conv_2d_dw, upscale, pad_reflect_1d, im2col_back/_3d,
                                      // col2im_1d, conv_2d, conv_3d, conv_transpose_2d, pool_2d_back
bool training(ggml_tensor * node);    // *_back gradient ops, cross_entropy_loss(_back), opt_step_adamw/sgd
bool recurrent(ggml_tensor * node);   // ssm_conv/scan, rwkv_wkv6/7, gated_linear_attn, solve_tri, gated_delta_net
bool deepseek(ggml_tensor * node);    // lightning_indexer, dsv4_hc_comb/pre/post

} // namespace switchyard::testing::reference
