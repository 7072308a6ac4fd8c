// Attention building blocks: SOFT_MAX (plain and ext: mask rules, {scale, max_bias}, sinks), ROPE (the 15-slot
// parameter layout, positions and frequency factors, MROPE position count), the YaRN correction range, and
// FLASH_ATTN_EXT (permuted F32 result, {scale, max_bias, softcap, prec}, sinks), the deprecated ggml_rope_custom
// pair, and FLASH_ATTN_BACK (the packed gradients' size and offsets, {masked}).
#include "op_fixture.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

// ggml_mul_mat_set_prec and ggml_flash_attn_ext_set_prec are deprecated in ggml 0.25.1 (ggml_prec_set_acc
// replaces them); they still exist and are tested here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using switchyard::testing::expect_layout;
using switchyard::testing::FatalError;
using switchyard::testing::param_f32;

class AttentionOps : public switchyard::testing::OpFixture {};

TEST_F(AttentionOps, SoftMaxKeepsAsShapeWithScaleOneAndNoMask) {
    ggml_tensor * a = t(GGML_TYPE_F32, 8, 4, 6, 2);
    ggml_tensor * r = ggml_soft_max(ctx_, a);
    expect_layout(r, GGML_TYPE_F32, {8, 4, 6, 2}, {4, 32, 128, 768});
    EXPECT_EQ(r->op, GGML_OP_SOFT_MAX);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], nullptr);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_EQ(param_f32(r, 0), 1.0f);
    EXPECT_EQ(param_f32(r, 1), 0.0f);
    EXPECT_EQ(r->view_src, nullptr);
    ggml_tensor * ri = ggml_soft_max_inplace(ctx_, a);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(param_f32(ri, 0), 1.0f);
}

TEST_F(AttentionOps, SoftMaxExtStoresScaleAndMaxBias) {
    ggml_tensor * a    = t(GGML_TYPE_F32, 8, 4, 6, 2);
    ggml_tensor * mask = t(GGML_TYPE_F16, 8, 6, 3, 1); // more rows than a: padded masks are fine
    ggml_tensor * r    = ggml_soft_max_ext(ctx_, a, mask, 0.125f, 8.0f);
    expect_layout(r, GGML_TYPE_F32, {8, 4, 6, 2}, {4, 32, 128, 768});
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], mask);
    EXPECT_EQ(param_f32(r, 0), 0.125f);
    EXPECT_EQ(param_f32(r, 1), 8.0f);
    EXPECT_EQ(r->op_params[2], 0);
    ggml_tensor * ri = ggml_soft_max_ext_inplace(ctx_, a, t(GGML_TYPE_F32, 8, 4), 0.5f, 0.0f);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(param_f32(ri, 0), 0.5f);
    // no mask is fine without ALiBi
    EXPECT_EQ(ggml_soft_max_ext(ctx_, a, nullptr, 0.5f, 0.0f)->src[1], nullptr);
}

TEST_F(AttentionOps, SoftMaxExtRejects) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 8, 4, 6, 2);
    const std::string msg = fatal_message([&] { ggml_soft_max_ext(ctx_, a, t(GGML_TYPE_I32, 8, 4), 1.0f, 0.0f); });
    EXPECT_EQ(msg.rfind("[ggml_soft_max_ext]", 0), 0u) << msg;
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, t(GGML_TYPE_F16, 7, 4), 1.0f, 0.0f); });       // ne0 differs
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, t(GGML_TYPE_F16, 8, 3), 1.0f, 0.0f); });       // too few rows
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, t(GGML_TYPE_F16, 8, 4, 4), 1.0f, 0.0f); });    // 6 % 4
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, t(GGML_TYPE_F16, 8, 4, 1, 3), 1.0f, 0.0f); }); // 2 % 3
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, nullptr, 1.0f, 8.0f); });                     // ALiBi, no mask
    ggml_tensor * mt = ggml_transpose(ctx_, t(GGML_TYPE_F16, 4, 8));
    fatal_message([&] { ggml_soft_max_ext(ctx_, a, mt, 1.0f, 0.0f); });
    fatal_message([&] { ggml_soft_max(ctx_, ggml_transpose(ctx_, t(GGML_TYPE_F32, 4, 8))); });
    EXPECT_EQ(ggml_soft_max_ext(ctx_, nullptr, nullptr, 1.0f, 0.0f), nullptr);
}

TEST_F(AttentionOps, SoftMaxSinksGoToSlotTwo) {
    ggml_tensor * a     = t(GGML_TYPE_F32, 8, 4, 6);
    ggml_tensor * r     = ggml_soft_max_ext(ctx_, a, nullptr, 1.0f, 0.0f);
    ggml_tensor * sinks = t(GGML_TYPE_F32, 6);
    ggml_soft_max_add_sinks(r, sinks);
    EXPECT_EQ(r->src[2], sinks);
    const std::string msg = fatal_message([&] { ggml_soft_max_add_sinks(r, sinks); }); // already set
    EXPECT_EQ(msg.rfind("[ggml_soft_max_add_sinks]", 0), 0u) << msg;
    ggml_soft_max_add_sinks(r, nullptr);
    EXPECT_EQ(r->src[2], nullptr);
    fatal_message([&] { ggml_soft_max_add_sinks(r, t(GGML_TYPE_F32, 5)); });
    fatal_message([&] { ggml_soft_max_add_sinks(r, t(GGML_TYPE_F16, 6)); });
    fatal_message([&] { ggml_soft_max_add_sinks(ggml_sqr(ctx_, a), sinks); });
    ggml_soft_max_add_sinks(nullptr, sinks); // logged, no crash
}

TEST_F(AttentionOps, RopeUsesUpstreamsFifteenSlotLayout) {
    ggml_tensor * a   = t(GGML_TYPE_F32, 64, 8, 5);
    ggml_tensor * pos = t(GGML_TYPE_I32, 5);
    ggml_tensor * r   = ggml_rope(ctx_, a, pos, 32, GGML_ROPE_TYPE_NEOX);
    expect_layout(r, GGML_TYPE_F32, {64, 8, 5, 1}, {4, 256, 2048, 10240});
    EXPECT_EQ(r->op, GGML_OP_ROPE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], pos);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(r->op_params[1], 32);
    EXPECT_EQ(r->op_params[2], 2);
    EXPECT_EQ(r->op_params[3], 0);
    EXPECT_EQ(r->op_params[4], 0);
    EXPECT_EQ(param_f32(r, 5), 10000.0f);
    EXPECT_EQ(param_f32(r, 6), 1.0f);
    EXPECT_EQ(param_f32(r, 7), 0.0f);
    EXPECT_EQ(param_f32(r, 8), 1.0f);
    EXPECT_EQ(param_f32(r, 9), 0.0f);
    EXPECT_EQ(param_f32(r, 10), 0.0f);
    for (int i = 11; i < 16; ++i) {
        EXPECT_EQ(r->op_params[i], 0) << i;
    }
    ggml_tensor * ri = ggml_rope_inplace(ctx_, a, pos, 64, GGML_ROPE_TYPE_NORMAL);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(ri->op_params[1], 64);
    EXPECT_EQ(ri->op_params[2], 0);
}

TEST_F(AttentionOps, RopeExtStoresYarnParametersAndFrequencyFactors) {
    ggml_tensor * a   = t(GGML_TYPE_F16, 64, 8, 5);
    ggml_tensor * pos = t(GGML_TYPE_I32, 5);
    ggml_tensor * ff  = t(GGML_TYPE_F32, 16);
    ggml_tensor * r   = ggml_rope_ext(ctx_, a, pos, ff, 32, GGML_ROPE_TYPE_NORMAL, 4096, 500000.0f, 0.25f, 1.0f, 1.1f,
                                      32.0f, 1.0f);
    expect_layout(r, GGML_TYPE_F16, {64, 8, 5, 1}, {2, 128, 1024, 5120});
    EXPECT_EQ(r->src[2], ff);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(r->op_params[1], 32);
    EXPECT_EQ(r->op_params[2], 0);
    EXPECT_EQ(r->op_params[3], 0);
    EXPECT_EQ(r->op_params[4], 4096);
    EXPECT_EQ(param_f32(r, 5), 500000.0f);
    EXPECT_EQ(param_f32(r, 6), 0.25f);
    EXPECT_EQ(param_f32(r, 7), 1.0f);
    EXPECT_EQ(param_f32(r, 8), 1.1f);
    EXPECT_EQ(param_f32(r, 9), 32.0f);
    EXPECT_EQ(param_f32(r, 10), 1.0f);
    for (int i = 11; i < 16; ++i) {
        EXPECT_EQ(r->op_params[i], 0) << i;
    }
    ggml_tensor * ri = ggml_rope_ext_inplace(ctx_, a, pos, nullptr, 32, GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f,
                                             1.0f, 0.0f, 0.0f);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(ri->src[2], nullptr);
    EXPECT_EQ(ri->op_params[2], 2);
}

TEST_F(AttentionOps, RopeRejects) {
    ggml_tensor *     a   = t(GGML_TYPE_F32, 64, 8, 5);
    ggml_tensor *     pos = t(GGML_TYPE_I32, 5);
    const std::string msg = fatal_message([&] { ggml_rope(ctx_, a, pos, 32, 1); }); // removed mode bit
    EXPECT_EQ(msg.rfind("[ggml_rope]", 0), 0u) << msg;
    fatal_message([&] { ggml_rope(ctx_, a, t(GGML_TYPE_F32, 5), 32, 0); });
    fatal_message([&] { ggml_rope(ctx_, a, t(GGML_TYPE_I32, 4), 32, 0); });
    fatal_message([&] { ggml_rope(ctx_, a, t(GGML_TYPE_I32, 5, 2), 32, 0); });
    fatal_message([&] { ggml_rope_ext(ctx_, a, pos, t(GGML_TYPE_F16, 16), 32, 0, 0, 1e4f, 1, 0, 1, 0, 0); });
    fatal_message([&] { ggml_rope_ext(ctx_, a, pos, t(GGML_TYPE_F32, 15), 32, 0, 0, 1e4f, 1, 0, 1, 0, 0); });
    // the multi-rope modes take four positions per token
    EXPECT_NE(ggml_rope(ctx_, a, t(GGML_TYPE_I32, 20), 32, GGML_ROPE_TYPE_MROPE), nullptr);
    fatal_message([&] { ggml_rope(ctx_, a, pos, 32, GGML_ROPE_TYPE_MROPE); });
    EXPECT_EQ(ggml_rope(ctx_, a, nullptr, 32, 0), nullptr);
}

// ggml_rope_custom(_inplace) are deprecated: this test calls them on purpose.
#if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
TEST_F(AttentionOps, RopeCustomIsRopeExtWithoutFrequencyFactors) {
    ggml_tensor * a   = t(GGML_TYPE_F32, 64, 8, 5);
    ggml_tensor * pos = t(GGML_TYPE_I32, 5);
    ggml_tensor * r   = ggml_rope_custom(ctx_, a, pos, 32, GGML_ROPE_TYPE_NEOX, 4096, 500000.0f, 0.25f, 1.0f, 1.1f,
                                         32.0f, 1.0f);
    ggml_tensor * e   = ggml_rope_ext(ctx_, a, pos, nullptr, 32, GGML_ROPE_TYPE_NEOX, 4096, 500000.0f, 0.25f, 1.0f,
                                      1.1f, 32.0f, 1.0f);
    expect_layout(r, GGML_TYPE_F32, {64, 8, 5, 1}, {4, 256, 2048, 10240});
    EXPECT_EQ(r->op, GGML_OP_ROPE);
    EXPECT_EQ(r->src[0], a);
    EXPECT_EQ(r->src[1], pos);
    EXPECT_EQ(r->src[2], nullptr);
    EXPECT_EQ(r->view_src, nullptr);
    EXPECT_EQ(std::memcmp(r->op_params, e->op_params, sizeof(r->op_params)), 0);
    ggml_tensor * ri = ggml_rope_custom_inplace(ctx_, a, pos, 16, GGML_ROPE_TYPE_NORMAL, 0, 10000.0f, 1.0f, 0.0f,
                                                1.0f, 0.0f, 0.0f);
    EXPECT_EQ(ri->view_src, a);
    EXPECT_EQ(ri->src[2], nullptr);
    EXPECT_EQ(ri->op_params[1], 16);
    EXPECT_EQ(param_f32(ri, 5), 10000.0f);
    const std::string msg = fatal_message([&] { ggml_rope_custom(ctx_, a, t(GGML_TYPE_I32, 4), 32, 0, 0, 1e4f, 1, 0, 1, 0, 0); });
    EXPECT_EQ(msg.rfind("[ggml_rope_custom]", 0), 0u) << msg;
    EXPECT_EQ(ggml_rope_custom_inplace(ctx_, nullptr, pos, 32, 0, 0, 1e4f, 1, 0, 1, 0, 0), nullptr);
}
#if defined(__GNUC__)
#    pragma GCC diagnostic pop
#endif

TEST(AttentionOpsYarn, CorrectionRangeIsFlooredCeiledAndClamped) {
    float dims[2] = {-1.0f, -1.0f};
    ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, dims);
    EXPECT_EQ(dims[0], 20.0f); // floor(20.94)
    EXPECT_EQ(dims[1], 46.0f); // ceil(45.03)
    ggml_rope_yarn_corr_dims(64, 2048, 500000.0f, 32.0f, 1.0f, dims);
    EXPECT_EQ(dims[0], 5.0f);  // floor(5.66)
    EXPECT_EQ(dims[1], 15.0f); // ceil(14.11)
    ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 4096.0f, 1e-6f, dims);
    EXPECT_EQ(dims[0], 0.0f);   // -12.77 clamped
    EXPECT_EQ(dims[1], 127.0f); // 141.03 clamped to n_dims - 1
}

TEST_F(AttentionOps, FlashAttnExtResultIsPermutedF32) {
    ggml_tensor * q    = t(GGML_TYPE_F32, 128, 7, 32);
    ggml_tensor * k    = t(GGML_TYPE_F16, 128, 256, 8);
    ggml_tensor * v    = t(GGML_TYPE_F16, 64, 256, 8);
    ggml_tensor * mask = t(GGML_TYPE_F16, 256, 64);
    ggml_tensor * r    = ggml_flash_attn_ext(ctx_, q, k, v, mask, 0.088f, 0.0f, 30.0f);
    expect_layout(r, GGML_TYPE_F32, {64, 32, 7, 1}, {4, 256, 8192, 57344});
    EXPECT_EQ(r->op, GGML_OP_FLASH_ATTN_EXT);
    EXPECT_EQ(r->src[0], q);
    EXPECT_EQ(r->src[1], k);
    EXPECT_EQ(r->src[2], v);
    EXPECT_EQ(r->src[3], mask);
    EXPECT_EQ(r->src[4], nullptr);
    EXPECT_EQ(param_f32(r, 0), 0.088f);
    EXPECT_EQ(param_f32(r, 1), 0.0f);
    EXPECT_EQ(param_f32(r, 2), 30.0f);
    EXPECT_EQ(r->op_params[3], 0);
    EXPECT_EQ(ggml_flash_attn_ext_get_prec(r), GGML_PREC_DEFAULT);
    ggml_flash_attn_ext_set_prec(r, GGML_PREC_F32);
    EXPECT_EQ(r->op_params[3], 10);
    EXPECT_EQ(ggml_flash_attn_ext_get_prec(r), GGML_PREC_F32);
    EXPECT_EQ(param_f32(r, 0), 0.088f);
    // ggml 0.25.1: ggml_prec_set_acc writes the same slot; n_kv_max goes to op_params[4]
    EXPECT_TRUE(ggml_prec_set_acc(r, GGML_PREC_F16));
    EXPECT_EQ(ggml_flash_attn_ext_get_prec(r), GGML_PREC_F16);
    EXPECT_EQ(r->op_params[4], 0);
    ggml_flash_attn_ext_set_n_kv_max(r, 256);
    EXPECT_EQ(r->op_params[4], 256);
    EXPECT_FALSE(fatal_message([&] { ggml_flash_attn_ext_set_n_kv_max(r, -1); }).empty());
    EXPECT_FALSE(fatal_message([&] { ggml_flash_attn_ext_set_n_kv_max(ggml_sqr(ctx_, q), 4); }).empty());
    EXPECT_EQ(r->op_params[4], 256);
}

TEST_F(AttentionOps, FlashAttnExtSinksAndBroadcastMasks) {
    ggml_tensor * q = t(GGML_TYPE_F32, 64, 3, 8, 2);
    ggml_tensor * k = t(GGML_TYPE_F16, 64, 16, 2, 2);
    ggml_tensor * v = t(GGML_TYPE_F16, 64, 16, 2, 2);
    ggml_tensor * r = ggml_flash_attn_ext(ctx_, q, k, v, t(GGML_TYPE_F16, 16, 3, 4, 1), 1.0f, 8.0f, 0.0f);
    expect_layout(r, GGML_TYPE_F32, {64, 8, 3, 2}, {4, 256, 2048, 6144});
    EXPECT_EQ(param_f32(r, 1), 8.0f);
    ggml_tensor * sinks = t(GGML_TYPE_F32, 8);
    ggml_flash_attn_ext_add_sinks(r, sinks);
    EXPECT_EQ(r->src[4], sinks);
    fatal_message([&] { ggml_flash_attn_ext_add_sinks(r, sinks); });
    ggml_flash_attn_ext_add_sinks(r, nullptr);
    EXPECT_EQ(r->src[4], nullptr);
    fatal_message([&] { ggml_flash_attn_ext_add_sinks(r, t(GGML_TYPE_F32, 2)); });
    // no mask at all is fine without ALiBi
    EXPECT_EQ(ggml_flash_attn_ext(ctx_, q, k, v, nullptr, 1.0f, 0.0f, 0.0f)->src[3], nullptr);
}

TEST_F(AttentionOps, FlashAttnExtRejects) {
    ggml_tensor *     q   = t(GGML_TYPE_F32, 64, 3, 8, 2);
    ggml_tensor *     k   = t(GGML_TYPE_F16, 64, 16, 2, 2);
    ggml_tensor *     v   = t(GGML_TYPE_F16, 64, 16, 2, 2);
    const std::string msg = fatal_message([&] { ggml_flash_attn_ext(ctx_, q, t(GGML_TYPE_F16, 32, 16, 2, 2), v, nullptr, 1, 0, 0); });
    EXPECT_EQ(msg.rfind("[ggml_flash_attn_ext]", 0), 0u) << msg;
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, t(GGML_TYPE_F16, 64, 16, 3, 2), v, nullptr, 1, 0, 0); });
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, t(GGML_TYPE_F16, 64, 16, 2, 1), v, nullptr, 1, 0, 0); });
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, k, t(GGML_TYPE_F16, 64, 16, 2, 1), nullptr, 1, 0, 0); });
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, k, v, t(GGML_TYPE_F32, 16, 3), 1, 0, 0); });
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, k, v, t(GGML_TYPE_F16, 16, 3, 3), 1, 0, 0); });
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, k, v, nullptr, 1, 8.0f, 0); });
    ggml_tensor * mt = ggml_transpose(ctx_, t(GGML_TYPE_F16, 3, 16));
    fatal_message([&] { ggml_flash_attn_ext(ctx_, q, k, v, mt, 1, 0, 0); });
    const std::string prec = fatal_message([&] { ggml_flash_attn_ext_set_prec(ggml_sqr(ctx_, q), GGML_PREC_F32); });
    EXPECT_EQ(prec.rfind("[ggml_flash_attn_ext_set_prec]", 0), 0u) << prec;
    EXPECT_EQ(ggml_flash_attn_ext(ctx_, q, nullptr, v, nullptr, 1, 0, 0), nullptr);
    ggml_flash_attn_ext_set_prec(nullptr, GGML_PREC_F32); // logged, no crash
    EXPECT_EQ(ggml_flash_attn_ext_get_prec(nullptr), GGML_PREC_DEFAULT);
}

TEST_F(AttentionOps, FlashAttnBackPacksThreeGradients) {
    // q 4*3*4*2 = 96 floats (384 bytes), k 4*5*2*2 = 80 floats: 96 + 80 + 80 with no padding needed
    ggml_tensor * q = t(GGML_TYPE_F32, 4, 3, 4, 2);
    ggml_tensor * k = t(GGML_TYPE_F32, 4, 5, 2, 2);
    ggml_tensor * v = t(GGML_TYPE_F32, 5, 4, 2, 2);
    ggml_tensor * d = t(GGML_TYPE_F32, 4, 3, 4, 2);
    ggml_tensor * r = ggml_flash_attn_back(ctx_, q, k, v, d, true);
    expect_layout(r, GGML_TYPE_F32, {256, 1, 1, 1}, {4, 1024, 1024, 1024});
    EXPECT_EQ(r->op, GGML_OP_FLASH_ATTN_BACK);
    EXPECT_EQ(r->src[0], q);
    EXPECT_EQ(r->src[1], k);
    EXPECT_EQ(r->src[2], v);
    EXPECT_EQ(r->src[3], d);
    EXPECT_EQ(r->op_params[0], 1);
    EXPECT_EQ(ggml_flash_attn_back(ctx_, q, k, v, d, false)->op_params[0], 0);
    // q 3*1*1 = 3 floats (12 bytes -> 16), k 3*2 = 6 floats (24 bytes -> 32), v 6 floats (24 -> 32): 80 bytes
    ggml_tensor * r2 = ggml_flash_attn_back(ctx_, t(GGML_TYPE_F32, 3, 1), t(GGML_TYPE_F32, 3, 2),
                                            t(GGML_TYPE_F32, 2, 3), t(GGML_TYPE_F32, 3, 1), false);
    expect_layout(r2, GGML_TYPE_F32, {20, 1, 1, 1}, {4, 80, 80, 80});
}

TEST_F(AttentionOps, FlashAttnBackRejects) {
    ggml_tensor *     q   = t(GGML_TYPE_F32, 4, 3, 4);
    ggml_tensor *     k   = t(GGML_TYPE_F32, 4, 5, 2);
    ggml_tensor *     v   = t(GGML_TYPE_F32, 5, 4, 2);
    ggml_tensor *     d   = t(GGML_TYPE_F32, 4, 3, 4);
    const std::string msg = fatal_message([&] { ggml_flash_attn_back(ctx_, q, t(GGML_TYPE_F32, 3, 5, 2), v, d, false); });
    EXPECT_EQ(msg.rfind("[ggml_flash_attn_back]", 0), 0u) << msg;
    fatal_message([&] { ggml_flash_attn_back(ctx_, q, k, t(GGML_TYPE_F32, 4, 5, 2), d, false); }); // v not transposed
    fatal_message([&] { ggml_flash_attn_back(ctx_, q, t(GGML_TYPE_F32, 4, 5, 3), t(GGML_TYPE_F32, 5, 4, 3), d, false); });
    fatal_message([&] { ggml_flash_attn_back(ctx_, q, k, v, t(GGML_TYPE_F32, 4, 2, 4), false); });
    fatal_message([&] { ggml_flash_attn_back(ctx_, t(GGML_TYPE_F32, 4, 6, 4), k, v, t(GGML_TYPE_F32, 4, 6, 4), true); });
    EXPECT_NE(ggml_flash_attn_back(ctx_, t(GGML_TYPE_F32, 4, 6, 4), k, v, t(GGML_TYPE_F32, 4, 6, 4), false), nullptr);
    EXPECT_EQ(ggml_flash_attn_back(ctx_, q, k, nullptr, d, false), nullptr);
}

} // namespace
