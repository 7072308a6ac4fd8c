// Upstream's test-backend-ops cases the Vulkan backend failed on lavapipe: IM2COL's f16 columns of 20.5 M
// elements, past the first row of 65535 workgroups the shaders' flat invocation index spans. The data are
// quarters, so every expected value below is exact and computed here by hand.
#include "vk_fixture.h"

#include <cstdint>
#include <vector>

namespace switchyard::testing {
namespace {

class VulkanLargeTest : public VulkanTest {
public:
    ggml_cgraph * graph_of(ggml_tensor * out) {
        ggml_cgraph * g = ggml_new_graph(ctx_);
        ggml_build_forward_expand(g, out);
        return g;
    }
    void compute(ggml_tensor * out) {
        ASSERT_TRUE(ggml_backend_supports_op(backend_, out)) << ggml_op_desc(out);
        ASSERT_EQ(ggml_backend_graph_compute(backend_, graph_of(out)), GGML_STATUS_SUCCESS);
    }
    template <class T> std::vector<T> read(const ggml_tensor * t) {
        std::vector<T> v(ggml_nbytes(t) / sizeof(T));
        ggml_backend_tensor_get(t, v.data(), 0, ggml_nbytes(t));
        return v;
    }
};

// Upstream's IM2COL case: 1056 x 99 x 98 x 2 f16 columns, 20.5 M elements, more than the 65535 x 256 of one row
// of workgroups: the rows after the first used to index as if a workgroup had one invocation.
TEST_F(VulkanLargeTest, Im2colBeyondOneRowOfWorkgroups) {
    ggml_tensor * kernel = ggml_new_tensor_4d(ctx_, GGML_TYPE_F16, 32, 33, 1, 2);
    ggml_tensor * data   = ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, 128, 128, 1, 2);
    ggml_tensor * out    = ggml_im2col(ctx_, kernel, data, 1, 1, 1, 1, 1, 1, true, GGML_TYPE_F16);
    allocate();
    std::vector<float> x(static_cast<size_t>(ggml_nelements(data)));
    for (size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<float>(i % 1021) * 0.25f; // exact in f16
    }
    ggml_backend_tensor_set(data, x.data(), 0, ggml_nbytes(data));
    compute(out);
    const std::vector<ggml_fp16_t> got = read<ggml_fp16_t>(out);
    ASSERT_EQ(out->ne[0], 1056);
    ASSERT_EQ(out->ne[1], 99);
    ASSERT_EQ(out->ne[2], 98);
    size_t wrong = 0, i = 0;
    for (int64_t n = 0; n < 2; ++n) {
        for (int64_t oh = 0; oh < 98; ++oh) {
            for (int64_t ow = 0; ow < 99; ++ow) {
                for (int64_t kh = 0; kh < 33; ++kh) {
                    for (int64_t kw = 0; kw < 32; ++kw, ++i) {
                        const int64_t iw = ow + kw - 1, ih = oh + kh - 1;
                        const bool    in = iw >= 0 && iw < 128 && ih >= 0 && ih < 128;
                        const float   want = in ? x[static_cast<size_t>(n * 128 * 128 + ih * 128 + iw)] : 0.0f;
                        wrong += ggml_fp16_to_fp32(got[i]) != want;
                    }
                }
            }
        }
    }
    EXPECT_EQ(wrong, 0u) << "of " << i;
}

} // namespace
} // namespace switchyard::testing
