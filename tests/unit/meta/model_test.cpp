// End-to-end: an MLP and a LLaMA-style transformer block on meta devices of 2, 3 and 4 simple devices (CPU
// backends and GPU-like test devices), with even, uneven and zero-size splits, give the plain CPU result.
#include "meta_models.h"

#include <tuple>

namespace switchyard::testing {
namespace {

struct SplitCase {
    const char *         name;
    std::vector<int64_t> kv_heads; // of 4
    std::vector<int64_t> ff;       // of 96
};

const SplitCase kCases[] = {
    {"even2", {2, 2}, {48, 48}},
    {"uneven2", {3, 1}, {64, 32}},
    {"even3", {2, 1, 1}, {32, 32, 32}},
    {"uneven3", {1, 2, 1}, {48, 32, 16}},
    {"zero3", {2, 2, 0}, {64, 32, 0}},
    {"even4", {1, 1, 1, 1}, {24, 24, 24, 24}},
    {"uneven4", {1, 2, 0, 1}, {40, 8, 32, 16}},
};

using Param = std::tuple<DeviceKind, SplitCase>;

std::string param_name(const ::testing::TestParamInfo<Param> & info) {
    return std::string(kind_name(std::get<0>(info.param))) + "_" + std::get<1>(info.param).name;
}

class MetaModelTest : public ::testing::TestWithParam<Param> {
protected:
    DeviceKind       kind() const { return std::get<0>(GetParam()); }
    const SplitCase & split() const { return std::get<1>(GetParam()); }
    int               n() const { return static_cast<int>(split().kv_heads.size()); }

    std::vector<float> run_meta(const ModelSpec & spec, SplitTable & table, const RunOptions & opt = {}) {
        ggml_backend_dev_t dev = make_meta(kind(), n(), table);
        EXPECT_NE(dev, nullptr);
        ggml_backend_t backend = ggml_backend_dev_init(dev, nullptr);
        EXPECT_NE(backend, nullptr);
        std::vector<float> out = run_model(spec, backend, opt);
        ggml_backend_free(backend);
        return out;
    }

    void run_block(BlockDims b, bool sched = false) {
        const ModelSpec spec = block_spec(b);
        SplitTable      table;
        block_split(table, b, split().kv_heads, split().ff);
        RunOptions opt;
        opt.sched = sched;
        expect_close(run_meta(spec, table, opt), run_reference(spec));
    }
};

TEST_P(MetaModelTest, MlpMatchesCpu) {
    MlpDims m;
    m.ff                 = 96;
    const ModelSpec spec = mlp_spec(m);
    SplitTable      table;
    mlp_split(table, split().ff);
    expect_close(run_meta(spec, table), run_reference(spec));
}

TEST_P(MetaModelTest, BlockFusedQkvMatchesCpu) { run_block(BlockDims{}); }

TEST_P(MetaModelTest, BlockFlashAttentionMatchesCpu) {
    BlockDims b;
    b.flash = true;
    run_block(b);
}

TEST_P(MetaModelTest, BlockSeparateQkvMatchesCpu) {
    BlockDims b;
    b.fused_qkv = false;
    run_block(b);
}

TEST_P(MetaModelTest, BlockUnderSchedulerMatchesCpu) { run_block(BlockDims{}, /*sched=*/true); }

INSTANTIATE_TEST_SUITE_P(Splits, MetaModelTest,
                         ::testing::Combine(::testing::Values(DeviceKind::Cpu, DeviceKind::Test), ::testing::ValuesIn(kCases)),
                         param_name);

} // namespace
} // namespace switchyard::testing
