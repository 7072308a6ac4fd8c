// Split rules of individual ops: each graph computes on the devices' slices (nothing replicated, nothing
// gathered unless said) and gives the plain CPU result.
#include "meta_run.h"

namespace switchyard::testing {
namespace {

using MetaRulesTest = MetaRunTest;

std::vector<uint8_t> i32_bytes(const std::vector<int32_t> & v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t *>(v.data()), reinterpret_cast<const uint8_t *>(v.data()) + 4 * v.size());
}

// An embedding table split along the embedding: each device looks up its part of every row.
TEST_P(MetaRulesTest, GetRowsOfColumnSplitTable) {
    ModelSpec spec;
    spec.weights       = {{"table", GGML_TYPE_F32, {16, 10}}, {"w", GGML_TYPE_F32, {16, 5}}};
    spec.inputs["ids"] = i32_bytes({7, 0, 3});
    spec.build         = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * rows = ggml_get_rows(ctx, w["table"], input(ctx, "ids", GGML_TYPE_I32, 3));
        return ggml_mul_mat(ctx, w["w"], rows);
    };
    table_.states["table"] = state_split(0, {6, 10});
    table_.states["w"]     = state_split(0, {6, 10});
    expect_close(run_meta(spec, 2), run_reference(spec));
    EXPECT_EQ(n_replicated_, 0);
    EXPECT_EQ(n_gather_, 0);
    EXPECT_EQ(n_allreduce_, 1);
}

// Concatenating along the split dimension: the result has the segments of both parts.
TEST_P(MetaRulesTest, ConcatAlongTheSplitMakesSegments) {
    ModelSpec spec;
    spec.weights     = {{"wa", GGML_TYPE_F32, {12, 8}}, {"wb", GGML_TYPE_F32, {12, 6}}, {"wc", GGML_TYPE_F32, {14, 4}}};
    spec.inputs["x"] = input_bytes(12 * 3, 21);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * x = input(ctx, "x", GGML_TYPE_F32, 12, 3);
        ggml_tensor * c = ggml_concat(ctx, ggml_mul_mat(ctx, w["wa"], x), ggml_mul_mat(ctx, w["wb"], x), 0);
        return ggml_mul_mat(ctx, w["wc"], ggml_gelu(ctx, c));
    };
    table_.states["wa"] = state_split(1, {5, 0, 3});
    table_.states["wb"] = state_split(1, {2, 2, 2});
    table_.states["wc"] = state_segments(0, {{5, 0, 3}, {2, 2, 2}});
    expect_close(run_meta(spec, 3), run_reference(spec));
    EXPECT_EQ(n_replicated_, 0);
    EXPECT_EQ(n_gather_, 0);
}

// Tensors split by tokens (dimension 2 of [head size, heads, tokens]): ROPE slices the positions, row-wise
// ops, fused GLU, ARGMAX and casts keep the split.
TEST_P(MetaRulesTest, TokenSplitThroughRowOps) {
    ModelSpec spec;
    spec.weights       = {{"tok", GGML_TYPE_F32, {8, 2, 6}}};
    spec.inputs["pos"] = i32_bytes({3, 1, 4, 1, 5, 9});
    spec.build         = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * r = ggml_rope_ext(ctx, w["tok"], input(ctx, "pos", GGML_TYPE_I32, 6), nullptr, 8,
                                        GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        ggml_tensor * h = ggml_cast(ctx, ggml_cast(ctx, ggml_swiglu(ctx, r), GGML_TYPE_F16), GGML_TYPE_F32);
        ggml_tensor * m = ggml_norm(ctx, ggml_soft_max(ctx, ggml_rms_norm(ctx, h, 1e-6f)), 1e-5f);
        ggml_tensor * a = ggml_cast(ctx, ggml_argmax(ctx, ggml_reshape_2d(ctx, m, 4, 12)), GGML_TYPE_F32);
        return ggml_concat(ctx, ggml_reshape_1d(ctx, m, 48), ggml_add(ctx, ggml_sum_rows(ctx, ggml_reshape_1d(ctx, m, 48)), ggml_sum(ctx, a)), 0);
    };
    table_.states["tok"] = state_split(2, {4, 2});
    expect_close(run_meta(spec, 2), run_reference(spec));
    EXPECT_EQ(n_replicated_, 1); // only the final concat of a split and a whole tensor
    EXPECT_EQ(n_allreduce_, 2);  // the row sum of the split vector and the sum of the split argmax
}

// Padding, repetition and broadcasting along other dimensions than the split.
TEST_P(MetaRulesTest, PadRepeatAndBroadcast) {
    ModelSpec spec;
    spec.weights     = {{"w", GGML_TYPE_F32, {6, 9}}, {"bias", GGML_TYPE_F32, {9}}, {"w2", GGML_TYPE_F32, {5, 4}}};
    spec.inputs["x"] = input_bytes(6 * 2, 22);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * h = ggml_mul_mat(ctx, w["w"], input(ctx, "x", GGML_TYPE_F32, 6, 2)); // [9, 2] split 0
        ggml_tensor * r = ggml_repeat(ctx, ggml_reshape_2d(ctx, w["bias"], 9, 1), h);
        ggml_tensor * p = ggml_pad_ext(ctx, ggml_mul(ctx, ggml_add(ctx, h, r), h), 0, 0, 1, 2, 0, 0, 0, 0); // [9, 5]
        return ggml_mul_mat(ctx, w["w2"], ggml_cont(ctx, ggml_transpose(ctx, p))); // [4, 9] split along 1
    };
    table_.states["w"]    = state_split(1, {4, 5});
    table_.states["bias"] = state_split(0, {4, 5});
    expect_close(run_meta(spec, 2), run_reference(spec));
    EXPECT_EQ(n_replicated_, 0);
}

// A result the allocator places over a source whose slices do not line up with it is computed into a
// temporary and copied (here: h + s, split like s, in place of the whole h).
TEST_P(MetaRulesTest, InPlaceResultOverMismatchedSource) {
    ModelSpec spec;
    spec.weights     = {{"w", GGML_TYPE_F32, {8, 8}}, {"w2", GGML_TYPE_F32, {8, 3}}};
    spec.inputs["x"] = input_bytes(8 * 4, 23);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * x = input(ctx, "x", GGML_TYPE_F32, 8, 4);
        ggml_tensor * h = ggml_scale(ctx, x, 0.5f);            // whole on every device
        ggml_tensor * s = ggml_mul_mat(ctx, w["w"], x);         // split along dimension 0
        return ggml_mul_mat(ctx, w["w2"], ggml_add(ctx, h, s)); // the sum is split like s
    };
    table_.states["w"]  = state_split(1, {3, 5});
    table_.states["w2"] = state_split(0, {3, 5});
    expect_close(run_meta(spec, 2), run_reference(spec));
    EXPECT_EQ(n_replicated_, 0);
    EXPECT_EQ(n_allreduce_, 1);
    EXPECT_EQ(n_redirected_, 2); // on both devices
}

INSTANTIATE_TEST_SUITE_P(Devices, MetaRulesTest, ::testing::Values(DeviceKind::Cpu, DeviceKind::Test),
                         [](const ::testing::TestParamInfo<DeviceKind> & info) { return kind_name(info.param); });

} // namespace
} // namespace switchyard::testing
