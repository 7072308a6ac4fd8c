// The meta device over two Vulkan backends (the first Vulkan device twice where there is only one): an MLP and a
// LLaMA-style block split for tensor parallelism, under the scheduler with the CPU, give the CPU result.
#include "vk_fixture.h"

#include "unit/meta/meta_models.h"

namespace switchyard::testing {
namespace {

class VulkanMetaTest : public VulkanTest {
protected:
    std::vector<float> run_meta(const ModelSpec & spec, SplitTable & table, bool sched) {
        ggml_backend_dev_t devs[2] = {dev_, ggml_backend_reg_dev_get(ggml_backend_vk_reg(),
                                                                      ggml_backend_vk_get_device_count() > 1 ? 1 : 0)};
        ggml_backend_dev_t meta = ggml_backend_meta_device(devs, 2, SplitTable::callback, &table);
        EXPECT_NE(meta, nullptr);
        ggml_backend_t backend = ggml_backend_dev_init(meta, nullptr);
        EXPECT_NE(backend, nullptr);
        RunOptions opt;
        opt.sched              = sched;
        std::vector<float> out = run_model(spec, backend, opt);
        ggml_backend_free(backend);
        return out;
    }
};

TEST_F(VulkanMetaTest, MlpMatchesCpu) {
    MlpDims m;
    m.ff                 = 96;
    const ModelSpec spec = mlp_spec(m);
    SplitTable      table;
    mlp_split(table, {64, 32});
    expect_close(run_meta(spec, table, false), run_reference(spec));
}

TEST_F(VulkanMetaTest, BlockUnderSchedulerMatchesCpu) {
    const BlockDims b;
    const ModelSpec spec = block_spec(b);
    SplitTable      table;
    block_split(table, b, {2, 2}, {48, 48});
    expect_close(run_meta(spec, table, true), run_reference(spec));
}

} // namespace
} // namespace switchyard::testing
