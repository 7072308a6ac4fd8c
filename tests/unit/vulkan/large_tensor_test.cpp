// Tensors larger than one storage descriptor binds (maxStorageBufferRange, 128 MiB on lavapipe), as upstream's
// test-backend-ops found them: buffers up to the allocation limit, ops that bind windows of them and cut their
// work into parts (vulkan/split.h), and the ops that cannot refused in supports_op. Also the shaders' flat
// invocation index past the first row of 65535 workgroups (IM2COL's f16 columns of upstream's cases). The data
// are small integers, halves and quarters, so every expected value below is exact and computed here by hand
// (ROPE's, computed in double, within the rounding of f32 angles).
#include "vk_fixture.h"

#include "vulkan/instance.h"

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <vector>

namespace switchyard::testing {
namespace {

constexpr size_t kWindow = size_t(128) << 20; // lavapipe's maxStorageBufferRange

class VulkanLargeTest : public VulkanTest {
public:
    void SetUp() override {
        VulkanTest::SetUp();
        if (IsSkipped()) {
            return;
        }
        const vulkan::PhysicalDevice & pd = vulkan::physical_devices()[0];
        VkDeviceSize                   heap = 0;
        for (uint32_t i = 0; i < pd.memory.memoryHeapCount; ++i) {
            heap = std::max(heap, pd.memory.memoryHeaps[i].size);
        }
        if (pd.max_allocation < (VkDeviceSize(512) << 20) || heap < (VkDeviceSize(1) << 30)) {
            GTEST_SKIP() << "the device cannot allocate what these tests need";
        }
    }
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
    ggml_context * ctx() { return ctx_; }
    void           allocate_all() { allocate(); }
};

std::vector<ggml_fp16_t> f16_of(const std::vector<float> & x) {
    std::vector<ggml_fp16_t> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        h[i] = ggml_fp32_to_fp16(x[i]);
    }
    return h;
}

// A buffer may be as large as one allocation, not only as one descriptor's range (upstream's 16 cases of
// GET_ROWS, MUL_MAT_ID and ROPE failed to allocate their tensors on lavapipe).
TEST_F(VulkanLargeTest, BuffersAreLimitedByTheAllocationNotByTheDescriptorRange) {
    const vulkan::PhysicalDevice & pd  = vulkan::physical_devices()[0];
    const size_t                   max = ggml_backend_buft_get_max_size(ggml_backend_dev_buffer_type(dev_));
    EXPECT_GE(max, size_t(512) << 20);
    EXPECT_LE(max, pd.max_allocation);
    if (pd.props.limits.maxStorageBufferRange < pd.max_allocation) {
        EXPECT_GT(max, pd.props.limits.maxStorageBufferRange);
    }
}

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

// A 7B-like f16 embedding of 17000 rows of 4096 (139 MB): the rows are read in windows.
TEST_F(VulkanLargeTest, GetRowsFromAnEmbeddingLargerThanAWindow) {
    ggml_tensor * table = ggml_new_tensor_2d(ctx_, GGML_TYPE_F16, 4096, 17000);
    ggml_tensor * ids   = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, 6);
    ggml_tensor * out   = ggml_get_rows(ctx_, table, ids);
    ASSERT_GT(ggml_nbytes(table), kWindow);
    allocate();
    auto value = [](int64_t row, int64_t i0) { return static_cast<float>((row * 31 + i0) % 2001 - 1000) * 0.5f; };
    std::vector<float> t(static_cast<size_t>(ggml_nelements(table)));
    for (int64_t r = 0; r < 17000; ++r) {
        for (int64_t i0 = 0; i0 < 4096; ++i0) {
            t[static_cast<size_t>(r * 4096 + i0)] = value(r, i0);
        }
    }
    ggml_backend_tensor_set(table, f16_of(t).data(), 0, ggml_nbytes(table));
    const int32_t rows[6] = {0, 16999, 8191, 8192, 12345, 1};
    ggml_backend_tensor_set(ids, rows, 0, sizeof rows);
    compute(out);
    const std::vector<float> got = read<float>(out);
    for (int j = 0; j < 6; ++j) {
        for (int64_t i0 = 0; i0 < 4096; ++i0) {
            ASSERT_EQ(got[static_cast<size_t>(j * 4096 + i0)], value(rows[j], i0)) << "row " << rows[j] << " at " << i0;
        }
    }
}

// The output projection of such a model: f16 weights [4096, 17000] times n columns, the weights' rows cut into
// parts and the outputs written as strided views.
void mul_mat_large(VulkanLargeTest & t, int64_t n);

TEST_F(VulkanLargeTest, MulMatWithWeightsLargerThanAWindowOneOutputPerWorkgroup) { mul_mat_large(*this, 2); }
TEST_F(VulkanLargeTest, MulMatWithWeightsLargerThanAWindowTiled) { mul_mat_large(*this, 9); }

void mul_mat_large(VulkanLargeTest & t, int64_t n) {
    ggml_tensor * w   = ggml_new_tensor_2d(t.ctx(), GGML_TYPE_F16, 4096, 17000);
    ggml_tensor * b   = ggml_new_tensor_2d(t.ctx(), GGML_TYPE_F32, 4096, n);
    ggml_tensor * out = ggml_mul_mat(t.ctx(), w, b);
    ASSERT_GT(ggml_nbytes(w), kWindow);
    t.allocate_all();
    std::vector<float> wv(static_cast<size_t>(ggml_nelements(w))), bv(static_cast<size_t>(ggml_nelements(b)));
    for (size_t i = 0; i < wv.size(); ++i) {
        wv[i] = static_cast<float>(static_cast<int>((i % 4096) + 3 * (i / 4096)) % 5 - 2);
    }
    for (size_t i = 0; i < bv.size(); ++i) {
        bv[i] = static_cast<float>(static_cast<int>(((i % 4096) * 7 + i / 4096) % 3) - 1);
    }
    ggml_backend_tensor_set(w, f16_of(wv).data(), 0, ggml_nbytes(w));
    ggml_backend_tensor_set(b, bv.data(), 0, ggml_nbytes(b));
    t.compute(out);
    const std::vector<float> got = t.read<float>(out);
    size_t wrong = 0;
    for (int64_t c = 0; c < n; ++c) {
        for (int64_t m = 0; m < 17000; ++m) {
            int64_t sum = 0;
            for (int64_t k = 0; k < 4096; ++k) {
                sum += static_cast<int64_t>(wv[static_cast<size_t>(m * 4096 + k)]) *
                       static_cast<int64_t>(bv[static_cast<size_t>(c * 4096 + k)]);
            }
            wrong += got[static_cast<size_t>(c * 17000 + m)] != static_cast<float>(sum);
        }
    }
    EXPECT_EQ(wrong, 0u);
}

// 36 experts of [512, 4096] f16 (151 MB): the experts are read in windows; ids pick the first, the last and
// experts on both sides of a window's end.
TEST_F(VulkanLargeTest, MulMatIdWithExpertsLargerThanAWindow) {
    ggml_tensor * w   = ggml_new_tensor_3d(ctx_, GGML_TYPE_F16, 512, 4096, 36);
    ggml_tensor * b   = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 512, 2, 3);
    ggml_tensor * ids = ggml_new_tensor_2d(ctx_, GGML_TYPE_I32, 2, 3);
    ggml_tensor * out = ggml_mul_mat_id(ctx_, w, b, ids);
    ASSERT_GT(ggml_nbytes(w), kWindow);
    allocate();
    auto wval = [](int64_t e, int64_t m, int64_t k) { return static_cast<float>((k + 3 * m + 5 * e) % 5 - 2); };
    std::vector<float> wv(static_cast<size_t>(ggml_nelements(w))), bv(static_cast<size_t>(ggml_nelements(b)));
    for (int64_t e = 0; e < 36; ++e) {
        for (int64_t m = 0; m < 4096; ++m) {
            for (int64_t k = 0; k < 512; ++k) {
                wv[static_cast<size_t>((e * 4096 + m) * 512 + k)] = wval(e, m, k) + static_cast<float>(e % 2);
            }
        }
    }
    for (size_t i = 0; i < bv.size(); ++i) {
        bv[i] = static_cast<float>(static_cast<int>((i * 7) % 3) - 1);
    }
    const int32_t picks[6] = {0, 35, 15, 16, 31, 1};
    ggml_backend_tensor_set(w, f16_of(wv).data(), 0, ggml_nbytes(w));
    ggml_backend_tensor_set(b, bv.data(), 0, ggml_nbytes(b));
    ggml_backend_tensor_set(ids, picks, 0, sizeof picks);
    compute(out);
    const std::vector<float> got = read<float>(out);
    size_t wrong = 0;
    for (int64_t t = 0; t < 3; ++t) {
        for (int64_t slot = 0; slot < 2; ++slot) {
            const int64_t e = picks[t * 2 + slot];
            for (int64_t m = 0; m < 4096; ++m) {
                int64_t sum = 0;
                for (int64_t k = 0; k < 512; ++k) {
                    sum += static_cast<int64_t>(wv[static_cast<size_t>((e * 4096 + m) * 512 + k)]) *
                           static_cast<int64_t>(bv[static_cast<size_t>((t * 2 + slot) * 512 + k)]);
                }
                wrong += got[static_cast<size_t>((t * 2 + slot) * 4096 + m)] != static_cast<float>(sum);
            }
        }
    }
    EXPECT_EQ(wrong, 0u);
}

// ADD of [4096, 9000] f32 (147 MB) and a [4096, 3] addend repeated over its rows: parts of whole periods.
TEST_F(VulkanLargeTest, AddOfTensorsLargerThanAWindow) {
    ggml_tensor * a   = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, 9000);
    ggml_tensor * b   = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, 3);
    ggml_tensor * out = ggml_add(ctx_, a, b);
    allocate();
    std::vector<float> av(static_cast<size_t>(ggml_nelements(a))), bv(static_cast<size_t>(ggml_nelements(b)));
    for (size_t i = 0; i < av.size(); ++i) {
        av[i] = static_cast<float>(i % 100003);
    }
    for (size_t i = 0; i < bv.size(); ++i) {
        bv[i] = static_cast<float>(i) * 0.5f;
    }
    ggml_backend_tensor_set(a, av.data(), 0, ggml_nbytes(a));
    ggml_backend_tensor_set(b, bv.data(), 0, ggml_nbytes(b));
    compute(out);
    const std::vector<float> got = read<float>(out);
    size_t wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const size_t row = i / 4096;
        wrong += got[i] != av[i] + bv[(row % 3) * 4096 + i % 4096];
    }
    EXPECT_EQ(wrong, 0u);
}

// ROPE (normal, 128 of 128 dims) of [128, 32, 9000] f32 (147 MB): parts take ranges of positions, each with its
// slice of pos. Checked against the rotation computed here in double.
TEST_F(VulkanLargeTest, RopeOfATensorLargerThanAWindow) {
    ggml_tensor * a   = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 128, 32, 9000);
    ggml_tensor * pos = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, 9000);
    ggml_tensor * out = ggml_rope(ctx_, a, pos, 128, GGML_ROPE_TYPE_NORMAL);
    allocate();
    std::vector<float> av(static_cast<size_t>(ggml_nelements(a)));
    for (size_t i = 0; i < av.size(); ++i) {
        av[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.125f;
    }
    std::vector<int32_t> p(9000);
    for (int32_t i = 0; i < 9000; ++i) {
        p[static_cast<size_t>(i)] = (i * 7) % 4096;
    }
    ggml_backend_tensor_set(a, av.data(), 0, ggml_nbytes(a));
    ggml_backend_tensor_set(pos, p.data(), 0, ggml_nbytes(pos));
    compute(out);
    const std::vector<float> got = read<float>(out);
    double worst = 0.0;
    for (int64_t i2 = 0; i2 < 9000; i2 += 7) { // every 7th position (the parts' ends included by the step)
        for (int64_t i1 = 0; i1 < 32; ++i1) {
            const size_t row = static_cast<size_t>((i2 * 32 + i1) * 128);
            for (int64_t j = 0; j < 64; ++j) {
                const double theta = p[static_cast<size_t>(i2)] * std::pow(10000.0, -2.0 * j / 128.0);
                const double x0 = av[row + 2 * j], x1 = av[row + 2 * j + 1];
                worst = std::max(worst, std::abs(got[row + 2 * j] - (x0 * std::cos(theta) - x1 * std::sin(theta))));
                worst = std::max(worst, std::abs(got[row + 2 * j + 1] - (x0 * std::sin(theta) + x1 * std::cos(theta))));
            }
        }
    }
    EXPECT_LT(worst, 2e-3); // f32 angles of positions up to 4095
}

// SUM_ROWS and ARGMAX of [4096, 9000] f32 (147 MB): rows of small integers, each row's largest value at a column
// of its own.
TEST_F(VulkanLargeTest, RowReductionsOfATensorLargerThanAWindow) {
    ggml_tensor * a      = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, 9000);
    ggml_tensor * sums   = ggml_sum_rows(ctx_, a);
    ggml_tensor * argmax = ggml_argmax(ctx_, a);
    allocate();
    std::vector<float> av(static_cast<size_t>(ggml_nelements(a)));
    for (size_t i = 0; i < av.size(); ++i) {
        const size_t row = i / 4096, col = i % 4096;
        av[i]            = col == (row * 37) % 4096 ? 100.0f : static_cast<float>(static_cast<int>(i % 17) - 8);
    }
    ggml_backend_tensor_set(a, av.data(), 0, ggml_nbytes(a));
    ASSERT_TRUE(ggml_backend_supports_op(backend_, sums));
    ASSERT_TRUE(ggml_backend_supports_op(backend_, argmax));
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, sums);
    ggml_build_forward_expand(g, argmax);
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g), GGML_STATUS_SUCCESS);
    const std::vector<float>   got_sums = read<float>(sums);
    const std::vector<int32_t> got_max  = read<int32_t>(argmax);
    size_t                     wrong    = 0;
    for (size_t row = 0; row < 9000; ++row) {
        int64_t sum = 0;
        for (size_t col = 0; col < 4096; ++col) {
            sum += static_cast<int64_t>(av[row * 4096 + col]);
        }
        wrong += got_sums[row] != static_cast<float>(sum);
        wrong += got_max[row] != static_cast<int32_t>((row * 37) % 4096);
    }
    EXPECT_EQ(wrong, 0u);
}

// Nodes over such tensors that cannot be cut are refused, and so is a tensor larger than any buffer.
TEST_F(VulkanLargeTest, NodesThatCannotBeCutAreUnsupported) {
    ggml_tensor * a = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, 9000);
    ggml_tensor * s = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, 90);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev_, ggml_pad(ctx_, s, 1, 0, 0, 0)));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev_, ggml_pad(ctx_, a, 1, 0, 0, 0)));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev_, ggml_cpy(ctx_, a, ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4096 * 9000))));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev_, ggml_scale(ctx_, a, 2.0f)));
    const size_t  largest = ggml_backend_buft_get_max_size(ggml_backend_dev_buffer_type(dev_));
    ggml_tensor * huge    = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4096, static_cast<int64_t>(largest / 4096 / 4 + 1));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev_, ggml_scale(ctx_, huge, 2.0f)));
}

} // namespace
} // namespace switchyard::testing
