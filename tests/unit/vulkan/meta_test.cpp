// The meta device over two Vulkan backends (the first Vulkan device twice where there is only one): an MLP and a
// LLaMA-style block split for tensor parallelism, under the scheduler with the CPU, give the CPU result; ops on
// tensors in the meta device's buffers are the meta device's to run (the scheduler would otherwise compute them on
// the CPU, with the same result).
#include "vk_fixture.h"

#include "ggml-cpu.h"

#include "unit/meta/meta_models.h"

namespace switchyard::testing {
namespace {

class VulkanMetaTest : public VulkanTest {
protected:
    ggml_backend_dev_t meta_device(SplitTable & table) {
        ggml_backend_dev_t devs[2] = {dev_, ggml_backend_reg_dev_get(ggml_backend_vk_reg(),
                                                                      ggml_backend_vk_get_device_count() > 1 ? 1 : 0)};
        return ggml_backend_meta_device(devs, 2, SplitTable::callback, &table);
    }

    std::vector<float> run_meta(const ModelSpec & spec, SplitTable & table, bool sched) {
        ggml_backend_dev_t meta = meta_device(table);
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

// A weight split by rows and a KV cache split by columns, in a meta buffer: the Vulkan devices take the product
// and the row writes on their slices (each is asked with a stand-in of its own buffer type), as llama.cpp's tensor
// split mode needs for the cache writes it places on the meta device only.
TEST_F(VulkanMetaTest, OpsOnMetaBuffersAreSupported) {
    SplitTable table;
    table.states["w"]     = state_split(1, {16, 16});
    table.states["cache"] = state_split(0, {32, 32});
    ggml_backend_dev_t meta = meta_device(table);
    ASSERT_NE(meta, nullptr);
    ggml_tensor * w     = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 64, 32);
    ggml_tensor * cache = ggml_new_tensor_2d(ctx_, GGML_TYPE_F16, 64, 16);
    ggml_set_name(w, "w");
    ggml_set_name(cache, "cache");
    buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_, ggml_backend_dev_buffer_type(meta));
    ASSERT_NE(buffer_, nullptr);
    ggml_tensor * x    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 64, 4);
    ggml_tensor * rows = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 64, 2);
    ggml_tensor * idx  = ggml_new_tensor_1d(ctx_, GGML_TYPE_I64, 2);
    EXPECT_TRUE(ggml_backend_dev_supports_op(meta, ggml_mul_mat(ctx_, w, x)));
    EXPECT_TRUE(ggml_backend_dev_supports_op(meta, ggml_set_rows(ctx_, cache, rows, idx)));
    // a Vulkan device alone still refuses memory it does not own (a CPU buffer)
    ggml_backend_buffer_t host = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64 * 32 * 4);
    ASSERT_NE(host, nullptr);
    ggml_tensor w_host = *w;
    w_host.buffer      = host;
    w_host.data        = ggml_backend_buffer_get_base(host);
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev_, ggml_mul_mat(ctx_, &w_host, x)));
    ggml_backend_buffer_free(host);
}

} // namespace
} // namespace switchyard::testing
