// Shared by the Vulkan tests: a fixture with a backend on the first Vulkan device, skipped (not failed) where
// there is none. CI makes lavapipe visible with GGML_VK_VISIBLE_DEVICES (tests/CMakeLists.txt).
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-vulkan.h"

#include <gtest/gtest.h>

namespace switchyard::testing {

class VulkanTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (ggml_backend_vk_get_device_count() == 0) {
            GTEST_SKIP() << "no Vulkan device (set GGML_VK_VISIBLE_DEVICES to use a CPU-type device)";
        }
        dev_     = ggml_backend_reg_dev_get(ggml_backend_vk_reg(), 0);
        backend_ = ggml_backend_vk_init(0);
        ASSERT_NE(backend_, nullptr);
        ggml_init_params params{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx_ = ggml_init(params);
    }
    void TearDown() override {
        ggml_backend_buffer_free(buffer_);
        ggml_free(ctx_);
        ggml_backend_free(backend_);
    }
    // allocates every tensor of ctx_ in one buffer of the backend
    void allocate() {
        buffer_ = ggml_backend_alloc_ctx_tensors(ctx_, backend_);
        ASSERT_NE(buffer_, nullptr);
    }

    ggml_backend_dev_t    dev_     = nullptr;
    ggml_backend_t        backend_ = nullptr;
    ggml_context *        ctx_     = nullptr;
    ggml_backend_buffer_t buffer_  = nullptr;
};

} // namespace switchyard::testing
