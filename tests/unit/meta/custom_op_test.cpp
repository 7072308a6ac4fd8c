// Custom ops on a meta device: they have no split rule, so over CPU devices they are computed replicated (the
// application's function runs on every device on the whole, gathered tensor); over devices that refuse them the
// meta device refuses them too, and the scheduler runs them on the CPU.
#include "meta_run.h"

#include <algorithm>

namespace switchyard::testing {
namespace {

// dst = 2 * a + 1, split by rows between the calls (contiguous F32)
void twice_plus_one(ggml_tensor * dst, const ggml_tensor * a, int ith, int nth, void *) {
    const int64_t rows = ggml_nrows(dst), per = (rows + nth - 1) / nth;
    for (int64_t r = per * ith; r < std::min(rows, per * (ith + 1)); ++r) {
        const float * x = reinterpret_cast<const float *>(static_cast<const char *>(a->data) + r * a->nb[1]);
        float *       y = reinterpret_cast<float *>(static_cast<char *>(dst->data) + r * dst->nb[1]);
        for (int64_t i = 0; i < dst->ne[0]; ++i) {
            y[i] = 2.0f * x[i] + 1.0f;
        }
    }
}

// w2 @ custom(w @ x), with w split along its rows: the custom op's source is split
ModelSpec custom_model() {
    ModelSpec spec;
    spec.weights     = {{"w", GGML_TYPE_F32, {16, 12}}, {"w2", GGML_TYPE_F32, {12, 6}}};
    spec.inputs["x"] = input_bytes(16 * 4, 11);
    spec.build       = [](ggml_context * ctx, std::map<std::string, ggml_tensor *> & w) {
        ggml_tensor * h = ggml_mul_mat(ctx, w["w"], input(ctx, "x", GGML_TYPE_F32, 16, 4));
        ggml_tensor * c = ggml_map_custom1(ctx, h, twice_plus_one, GGML_N_TASKS_MAX, nullptr);
        ggml_set_name(c, "custom");
        return ggml_mul_mat(ctx, w["w2"], c);
    };
    return spec;
}

using MetaCustomOpTest = MetaRunTest;

TEST_P(MetaCustomOpTest, SupportedWhereEveryDeviceSupportsIt) {
    ggml_backend_dev_t dev = make_meta(GetParam(), 2, table_);
    ggml_context *     ctx = ggml_init(ggml_init_params{4 * ggml_tensor_overhead(), nullptr, true});
    ggml_tensor *      c   = ggml_map_custom1(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 2), twice_plus_one, 1, nullptr);
    EXPECT_EQ(ggml_backend_dev_supports_op(dev, c), GetParam() == DeviceKind::Cpu);
    ggml_free(ctx);
}

TEST_P(MetaCustomOpTest, RunsReplicatedOrOnTheCpu) {
    const ModelSpec spec = custom_model();
    table_.states["w"]   = state_split(1, {8, 4});
    if (GetParam() == DeviceKind::Cpu) {
        expect_close(run_meta(spec, 2), run_reference(spec));
        EXPECT_GE(n_replicated_, 1);
        return;
    }
    // test devices refuse the op: under the scheduler it runs on the CPU
    ggml_backend_dev_t dev     = make_meta(GetParam(), 2, table_);
    ggml_backend_t     backend = ggml_backend_dev_init(dev, nullptr);
    RunOptions         opt;
    opt.sched = true;
    expect_close(run_model(spec, backend, opt), run_reference(spec));
    ggml_backend_free(backend);
}

INSTANTIATE_TEST_SUITE_P(Devices, MetaCustomOpTest, ::testing::Values(DeviceKind::Cpu, DeviceKind::Test),
                         [](const ::testing::TestParamInfo<DeviceKind> & info) { return kind_name(info.param); });

} // namespace
} // namespace switchyard::testing
