// Ops and split combinations without a rule are computed replicated (and logged once per op); writes into split
// views work where the devices can do them on their slices and fail with a status (not an abort) where not.
#include "meta_run.h"

namespace switchyard::testing {
namespace {

using MetaFallbackTest = MetaRunTest;

// soft_max along dimension 0 cannot run on slices of its rows: both soft_max nodes are computed replicated.
TEST_P(MetaFallbackTest, SoftMaxOfSplitRowsIsReplicated) {
    ModelSpec spec;
    spec.weights     = {{"w", GGML_TYPE_F32, {16, 12}}, {"w2", GGML_TYPE_F32, {12, 6}}};
    spec.inputs["x"] = input_bytes(16 * 4, 3);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * x = input(ctx, "x", GGML_TYPE_F32, 16, 4);
        ggml_tensor * h = ggml_soft_max(ctx, ggml_mul_mat(ctx, w["w"], x));
        ggml_tensor * s = ggml_soft_max(ctx, ggml_scale(ctx, ggml_mul_mat(ctx, w["w"], x), 2.0f));
        return ggml_mul_mat(ctx, w["w2"], ggml_add(ctx, h, s));
    };
    table_.states["w"] = state_split(1, {8, 4});
    LogCapture         log;
    std::vector<float> got = run_meta(spec, 2);
    expect_close(got, run_reference(spec));
    EXPECT_EQ(n_replicated_, 2);
    EXPECT_EQ(n_gather_, 2);
    EXPECT_EQ(log.count("computing"), 1u) << log.text; // logged once per op
    EXPECT_NE(log.text.find("SOFT_MAX"), std::string::npos) << log.text;
}

// OUT_PROD has no split rule at all.
TEST_P(MetaFallbackTest, OpWithoutRuleIsReplicated) {
    ModelSpec spec;
    spec.weights     = {{"a", GGML_TYPE_F32, {8, 5}}};
    spec.inputs["b"] = input_bytes(6 * 5, 4);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        return ggml_out_prod(ctx, w["a"], input(ctx, "b", GGML_TYPE_F32, 6, 5));
    };
    table_.states["a"] = state_split(0, {3, 2, 3});
    expect_close(run_meta(spec, 3), run_reference(spec));
    EXPECT_EQ(n_replicated_, 1);
}

// A source in plain host memory (not a meta buffer) is uploaded whole to every device.
TEST_P(MetaFallbackTest, SourceOutsideMetaBuffersIsUploaded) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_init_params p{4 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   wctx = ggml_init(p);
    ggml_tensor *    w    = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, 8, 3);
    ggml_set_name(w, "host_w");
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors(wctx, cpu);
    const std::vector<float> wv = random_values(24, 9, -1.0f, 1.0f);
    ggml_backend_tensor_set(w, wv.data(), 0, 96);

    ModelSpec spec;
    spec.inputs["x"] = input_bytes(8 * 2, 5);
    spec.build       = [w](ggml_context * ctx, std::map<std::string, ggml_tensor *> &) {
        return ggml_mul_mat(ctx, w, input(ctx, "x", GGML_TYPE_F32, 8, 2));
    };
    const std::vector<float> got = run_meta(spec, 2);
    EXPECT_EQ(n_gather_, 1);
    const std::vector<float> want = run_reference(spec);
    expect_close(got, want);
    ggml_backend_buffer_free(wbuf);
    ggml_free(wctx);
    ggml_backend_free(cpu);
}

// Writing rows into a cache split along its elements: every device writes its part of each row.
TEST_P(MetaFallbackTest, SetRowsIntoColumnSplitCache) {
    ModelSpec spec;
    spec.weights        = {{"cache", GGML_TYPE_F32, {8, 6}}};
    spec.inputs["rows"] = input_bytes(8 * 2, 6);
    const int64_t ids[2] = {4, 1};
    spec.inputs["ids"]   = std::vector<uint8_t>(reinterpret_cast<const uint8_t *>(ids), reinterpret_cast<const uint8_t *>(ids) + 16);
    spec.build           = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        return ggml_set_rows(ctx, w["cache"], input(ctx, "rows", GGML_TYPE_F32, 8, 2), input(ctx, "ids", GGML_TYPE_I64, 2));
    };
    table_.states["cache"] = state_split(0, {5, 3});
    const std::vector<float> got = run_meta(spec, 2);
    EXPECT_EQ(n_replicated_, 0);
    const std::vector<float> want = run_reference(spec);
    expect_close(got, want);
    std::vector<float> rows(16);
    std::memcpy(rows.data(), spec.inputs["rows"].data(), 64);
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(got[static_cast<size_t>(4 * 8 + i)], rows[static_cast<size_t>(i)]);
        EXPECT_EQ(got[static_cast<size_t>(1 * 8 + i)], rows[static_cast<size_t>(8 + i)]);
    }
}

// Rows of a cache split by rows cannot be written per device: an error status, not an abort.
TEST_P(MetaFallbackTest, SetRowsIntoRowSplitCacheFails) {
    ModelSpec spec;
    spec.weights        = {{"cache", GGML_TYPE_F32, {8, 6}}};
    spec.inputs["rows"] = input_bytes(8 * 2, 6);
    const int64_t ids[2] = {4, 1};
    spec.inputs["ids"]   = std::vector<uint8_t>(reinterpret_cast<const uint8_t *>(ids), reinterpret_cast<const uint8_t *>(ids) + 16);
    spec.build           = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        return ggml_set_rows(ctx, w["cache"], input(ctx, "rows", GGML_TYPE_F32, 8, 2), input(ctx, "ids", GGML_TYPE_I64, 2));
    };
    table_.states["cache"] = state_split(1, {3, 3});
    LogCapture  log;
    ggml_status status = GGML_STATUS_SUCCESS;
    run_meta(spec, 2, &status);
    EXPECT_EQ(status, GGML_STATUS_FAILED);
    EXPECT_NE(log.text.find("cannot compute"), std::string::npos) << log.text;
}

// The KV-cache write pattern: keys of new tokens (split by heads) copied into a cache split by heads.
TEST_P(MetaFallbackTest, CopyIntoSplitCacheView) {
    ModelSpec spec;
    spec.weights     = {{"wk", GGML_TYPE_F32, {12, 16}}, {"cache", GGML_TYPE_F32, {16, 8}}};
    spec.inputs["x"] = input_bytes(12 * 3, 8);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * k    = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w["wk"], input(ctx, "x", GGML_TYPE_F32, 12, 3)), 4, 4, 3);
        ggml_tensor * cell = ggml_view_1d(ctx, w["cache"], 16 * 3, 2 * w["cache"]->nb[1]);
        return ggml_cpy(ctx, k, cell);
    };
    table_.states["wk"]    = state_split(1, {12, 4}); // 3 heads of 4 on device 0, 1 on device 1
    table_.states["cache"] = state_split(0, {12, 4});
    const std::vector<float> got = run_meta(spec, 2);
    EXPECT_EQ(n_replicated_, 0);
    EXPECT_EQ(n_gather_, 0);
    expect_close(got, run_reference(spec));
}

// Products of a split reduction dimension are summed across devices (PARTIAL + all-reduce), also for SUM.
TEST_P(MetaFallbackTest, SumOfSplitTensorIsReduced) {
    ModelSpec spec;
    spec.weights     = {{"w", GGML_TYPE_F32, {6, 10}}};
    spec.inputs["x"] = input_bytes(6, 10);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * h = ggml_mul_mat(ctx, w["w"], input(ctx, "x", GGML_TYPE_F32, 6));
        return ggml_add(ctx, ggml_sum(ctx, ggml_sqr(ctx, h)), ggml_sum(ctx, h));
    };
    table_.states["w"] = state_split(1, {3, 0, 7});
    expect_close(run_meta(spec, 3), run_reference(spec));
    EXPECT_EQ(n_allreduce_, 2);
    EXPECT_EQ(n_replicated_, 0);
}

INSTANTIATE_TEST_SUITE_P(Devices, MetaFallbackTest, ::testing::Values(DeviceKind::Cpu, DeviceKind::Test),
                         [](const ::testing::TestParamInfo<DeviceKind> & info) { return kind_name(info.param); });

} // namespace
} // namespace switchyard::testing
