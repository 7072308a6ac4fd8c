// Row kernels that used to allocate per call, now allocation-free: ROPE computes its angles a chunk of 256
// dimensions at a time on the stack (n_dims past one chunk, with frequency factors and YaRN, in place too);
// SOFT_MAX keeps its intermediate values in an F32 dst row (no work memory; in place too) and in a planned float
// row per thread otherwise (F16). Against the scalar reference of tools/conformance.
#include "kernel_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace switchyard::kernel_test;

constexpr size_t kCacheLine = 64;

ggml_tensor * positions(ggml_context * ctx, int64_t n) {
    ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n);
    for (int64_t i = 0; i < n; ++i) {
        set(pos, static_cast<double>(3 * i + 1), i);
    }
    return pos;
}

struct RopeCase {
    int       mode;
    int       n_dims;
    int64_t   head_dim;
    bool      freq_factors;
    float     ext_factor;
    ggml_type type;
};

ggml_tensor * rope(ggml_context * ctx, ggml_tensor * a, ggml_tensor * pos, ggml_tensor * ff, const RopeCase & r,
                   bool inplace) {
    const auto fn = inplace ? ggml_rope_ext_inplace : ggml_rope_ext;
    return fn(ctx, a, pos, ff, r.n_dims, r.mode, 4096, 10000.0f, 0.5f, r.ext_factor, 1.0f, 32.0f, 1.0f);
}

TEST(RopeKernel, AnglesPastOneChunkOfDimensions) {
    const RopeCase cases[] = {
        {GGML_ROPE_TYPE_NORMAL, 320, 336, false, 0.0f, GGML_TYPE_F32},
        {GGML_ROPE_TYPE_NEOX, 320, 320, true, 0.0f, GGML_TYPE_F32},
        {GGML_ROPE_TYPE_NEOX, 512, 520, false, 1.0f, GGML_TYPE_F32},
        {GGML_ROPE_TYPE_NORMAL, 258, 258, true, 1.0f, GGML_TYPE_F16},
    };
    for (const RopeCase & r : cases) {
        for (bool inplace : {false, true}) {
            for (int n : thread_counts()) {
                SCOPED_TRACE("mode " + std::to_string(r.mode) + ", n_dims " + std::to_string(r.n_dims) + ", " +
                             ggml_type_name(r.type) + (inplace ? ", in place, " : ", ") + std::to_string(n) + " threads");
                Ctx           ctx;
                std::mt19937  rng(21);
                ggml_tensor * a   = ggml_new_tensor_3d(ctx, r.type, r.head_dim, 3, 4);
                ggml_tensor * pos = positions(ctx, 4);
                ggml_tensor * ff  = nullptr;
                fill(a, rng);
                if (r.freq_factors) {
                    ff = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, r.n_dims / 2);
                    fill(ff, rng, 1.0, 4.0);
                }
                // the reference of the out-of-place op, before an in-place computation overwrites a
                ggml_tensor *             ref_out = rope(ctx, a, pos, ff, r, false);
                ggml_cgraph *             ref_gf  = ggml_new_graph(ctx);
                ggml_build_forward_expand(ref_gf, ref_out);
                const std::vector<double> want = reference_values(ref_gf, ref_out);

                ggml_tensor * out = rope(ctx, a, pos, ff, r, inplace);
                ggml_cgraph * gf  = ggml_new_graph(ctx);
                ggml_build_forward_expand(gf, out);
                EXPECT_EQ(ggml_graph_plan(gf, n, nullptr).work_size, 0u);
                ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, n), GGML_STATUS_SUCCESS);
                expect_all_near(out, from_values(out, want), r.type == GGML_TYPE_F16 ? Tol{2e-3, 2e-3} : Tol{1e-4, 1e-4});
            }
        }
    }
}

ggml_tensor * soft_max(ggml_context * ctx, ggml_tensor * a, ggml_tensor * mask, ggml_tensor * sinks, bool inplace) {
    const auto    fn  = inplace ? ggml_soft_max_ext_inplace : ggml_soft_max_ext;
    ggml_tensor * out = fn(ctx, a, mask, 0.75f, 0.0f);
    if (sinks != nullptr) {
        ggml_soft_max_add_sinks(out, sinks);
    }
    return out;
}

TEST(SoftMaxKernel, F32RowsNeedNoWorkMemoryF16RowsAFloatRowPerThread) {
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        for (bool inplace : {false, true}) {
            for (int n : thread_counts()) {
                SCOPED_TRACE(std::string(ggml_type_name(type)) + (inplace ? ", in place, " : ", ") + std::to_string(n) +
                             " threads");
                Ctx           ctx;
                std::mt19937  rng(31);
                ggml_tensor * a     = ggml_new_tensor_3d(ctx, type, 100, 6, 2);
                ggml_tensor * mask  = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 100, 6);
                ggml_tensor * sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
                fill(a, rng, -4.0, 4.0);
                fill(mask, rng);
                fill(sinks, rng);
                ggml_tensor * ref_out = soft_max(ctx, a, mask, sinks, false);
                ggml_cgraph * ref_gf  = ggml_new_graph(ctx);
                ggml_build_forward_expand(ref_gf, ref_out);
                const std::vector<double> want = reference_values(ref_gf, ref_out);

                ggml_tensor * out = soft_max(ctx, a, mask, sinks, inplace);
                ggml_cgraph * gf  = ggml_new_graph(ctx);
                ggml_build_forward_expand(gf, out);
                const size_t per_thread = type == GGML_TYPE_F32 ? 0 : 448 + kCacheLine; // 100 floats rounded up to 64 bytes
                EXPECT_EQ(ggml_graph_plan(gf, n, nullptr).work_size, per_thread * static_cast<size_t>(n));
                ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, n), GGML_STATUS_SUCCESS);
                expect_all_near(out, from_values(out, want), type == GGML_TYPE_F16 ? Tol{1e-4, 2e-3} : Tol{1e-6, 1e-5});
            }
        }
    }
}

} // namespace
