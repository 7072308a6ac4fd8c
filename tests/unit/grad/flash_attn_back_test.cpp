// ggml_flash_attn_back against central finite differences of the attention it differentiates, built from plain
// ops: out = mul_mat(v, soft_max(diag_mask_inf(scale * mul_mat(k, q), M - N))) with scale = 1/sqrt(D) (the mask
// only when masked) and the loss L = sum(out * d). Shared k and v heads are repeated over the heads of q first
// (ggml_repeat tiles, so q head h reads kv head h % n_head_kv, as flash_attn_back). The gradient of L with
// respect to each element of q, k and v is (L(x + h) - L(x - h)) / 2h, compared with the element of the packed
// result at that tensor's offset (gradients of q, k, v, each padded to GGML_MEM_ALIGN bytes).
#include "grad_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using switchyard::testing::GradBuilder;
using switchyard::testing::GradCheck;
using switchyard::testing::detail::f32;

struct Shape {
    int64_t D, N, M, n_head, n_head_kv, ne3;
};

// The attention built from plain ops, with k and v repeated over q's heads when they are shared.
ggml_tensor * attention(ggml_context * ctx, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, bool masked) {
    if (k->ne[2] != q->ne[2]) {
        k = ggml_repeat(ctx, k, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, k->ne[0], k->ne[1], q->ne[2], q->ne[3]));
        v = ggml_repeat(ctx, v, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, v->ne[0], v->ne[1], q->ne[2], q->ne[3]));
    }
    ggml_tensor * s = ggml_scale(ctx, ggml_mul_mat(ctx, k, q), 1.0f / std::sqrt(static_cast<float>(q->ne[0])));
    if (masked) {
        s = ggml_diag_mask_inf(ctx, s, static_cast<int>(k->ne[1] - q->ne[1]));
    }
    return ggml_mul_mat(ctx, v, ggml_soft_max(ctx, s)); // [D, N, n_head, ne3]
}

double loss_of(ggml_context * ctx, ggml_cgraph * forward, ggml_tensor * loss, int n_threads) {
    ggml_graph_compute_with_ctx(ctx, forward, n_threads);
    return f32(loss)[0];
}

// "" when every gradient in flash_attn_back's result matches the finite difference, else the first mismatch.
std::string check(const Shape & sh, bool masked, int n_threads) {
    ggml_init_params ip{16 * 1024 * 1024, nullptr, false};
    ggml_context *   ctx = ggml_init(ip);
    GradBuilder      b(ctx);
    ggml_tensor *    q = b.constant(sh.D, sh.N, sh.n_head, sh.ne3);
    ggml_tensor *    k = b.constant(sh.D, sh.M, sh.n_head_kv, sh.ne3);
    ggml_tensor *    v = b.constant(sh.M, sh.D, sh.n_head_kv, sh.ne3);
    ggml_tensor *    d = b.constant(sh.D, sh.N, sh.n_head, sh.ne3);

    ggml_tensor * loss    = ggml_sum(ctx, ggml_mul(ctx, attention(ctx, q, k, v, masked), d));
    ggml_cgraph * forward = ggml_new_graph(ctx);
    ggml_build_forward_expand(forward, loss);
    ggml_tensor * grads = ggml_flash_attn_back(ctx, q, k, v, d, masked);
    ggml_cgraph * back  = ggml_new_graph(ctx);
    ggml_build_forward_expand(back, grads);
    ggml_graph_compute_with_ctx(ctx, back, n_threads);

    const auto    pad    = [](int64_t n) { return GGML_PAD(n * 4, GGML_MEM_ALIGN) / 4; };
    const int64_t offs[] = {0, pad(ggml_nelements(q)), pad(ggml_nelements(q)) + pad(ggml_nelements(k))};
    ggml_tensor * ins[]  = {q, k, v};
    const GradCheck tol; // the step and tolerances of the backward_expand checks
    std::string   problem;
    for (int t = 0; t < 3 && problem.empty(); ++t) {
        for (int64_t i = 0; i < ggml_nelements(ins[t]) && problem.empty(); ++i) {
            float &     x  = f32(ins[t])[i];
            const float x0 = x;
            x              = static_cast<float>(x0 + tol.h);
            const double up = loss_of(ctx, forward, loss, n_threads);
            x              = static_cast<float>(x0 - tol.h);
            const double down = loss_of(ctx, forward, loss, n_threads);
            x                 = x0;
            const double numeric  = (up - down) / (2 * tol.h);
            const double analytic = f32(grads)[offs[t] + i];
            if (!(std::fabs(analytic - numeric) <= tol.atol + tol.rtol * std::fabs(numeric))) {
                problem = std::string(1, "qkv"[t]) + " element " + std::to_string(i) + ": analytic " +
                          std::to_string(analytic) + ", numeric " + std::to_string(numeric);
            }
        }
    }
    for (int64_t e = ggml_nelements(q); e < offs[1] && problem.empty(); ++e) {
        if (f32(grads)[e] != 0.0f) {
            problem = "padding after the q gradient is not zero";
        }
    }
    ggml_free(ctx);
    return problem;
}

TEST(GradFlashAttnBack, MatchesTheAttentionItDifferentiates) {
    EXPECT_EQ(check({4, 3, 5, 2, 2, 1}, false, 2), "");
    EXPECT_EQ(check({4, 3, 5, 2, 2, 1}, true, 2), "");
}

TEST(GradFlashAttnBack, SquareCausal) {
    EXPECT_EQ(check({6, 4, 4, 1, 1, 1}, true, 1), "");
}

TEST(GradFlashAttnBack, SharedKeyValueHeadsAndBatches) {
    // 4 q heads on 2 kv heads, ne3 = 2; 3 threads for 4 (kv head, ne3) pairs
    EXPECT_EQ(check({3, 2, 4, 4, 2, 2}, false, 3), "");
    EXPECT_EQ(check({3, 2, 4, 4, 2, 2}, true, 3), "");
    EXPECT_EQ(check({5, 3, 3, 3, 1, 1}, true, 2), "");
}

} // namespace
