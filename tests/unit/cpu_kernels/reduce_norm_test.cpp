// CPU kernels of the reductions (SUM, SUM_ROWS, MEAN, ARGMAX) and the normalisations (NORM, RMS_NORM, L2_NORM,
// GROUP_NORM) through ggml_graph_compute_with_ctx at 1 and 3 threads, against scalar references in double:
// permuted inputs, in-place execution and F16 / BF16 data.
#include "kernel_test_util.h"

#include <cmath>

namespace {

using namespace switchyard::kernel_test;

// Sum of row (i1, i2, i3) of t, in double.
double row_sum(const ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    double s = 0;
    for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
        s += get(t, i0, i1, i2, i3);
    }
    return s;
}

TEST(ReduceKernels, SumOfEveryType) {
    std::mt19937 rng(1);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_4d(ctx, type, 300, 3, 2, 2);
        fill(a, rng, -1.0, 2.0);
        ggml_tensor * out = ggml_sum(ctx, a);
        ASSERT_EQ(out->type, type);
        double want = 0;
        for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { want += get(a, i0, i1, i2, i3); });
        for (int nt : thread_counts()) {
            ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
            EXPECT_NEAR(get(out, 0), want, tol_for(type).rel * std::fabs(want) + 1e-3) << ggml_type_name(type);
        }
    }
}

TEST(ReduceKernels, SumRowsAndMeanOfAPermutedInput) {
    std::mt19937  rng(2);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 7, 290, 3);
    fill(base, rng, -1.0, 2.0);
    ggml_tensor * a    = ggml_permute(ctx, base, 1, 0, 2, 3); // rows of 290 elements, 28 bytes apart
    ggml_tensor * sums = ggml_sum_rows(ctx, a);
    ggml_tensor * mean = ggml_mean(ctx, a);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, sums, nt), GGML_STATUS_SUCCESS);
        ASSERT_EQ(compute(ctx, mean, nt), GGML_STATUS_SUCCESS);
        expect_all_near(sums, [&](int64_t, int64_t i1, int64_t i2, int64_t i3) { return row_sum(a, i1, i2, i3); });
        expect_all_near(mean, [&](int64_t, int64_t i1, int64_t i2, int64_t i3) { return row_sum(a, i1, i2, i3) / 290.0; });
    }
}

// Sums in double, as upstream's: 2^24 + 1 + ... + 1 - 2^24 loses every 1 in a float accumulator (2^24 + 1 rounds to
// 2^24) and none in double. The result is exact, so the expectation is exact, for SUM, SUM_ROWS and MEAN, in
// rows long enough for the vector loop and short enough for the tail only.
TEST(ReduceKernels, SumsAccumulateInDouble) {
    for (int64_t n : {int64_t{5}, int64_t{43}, int64_t{1000}}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, 2);
        for (int64_t r = 0; r < 2; ++r) {
            for (int64_t i = 0; i < n; ++i) {
                set(a, i == 0 ? 16777216.0 : (i == n - 1 ? -16777216.0 : 1.0), i, r);
            }
        }
        ggml_tensor * sum  = ggml_sum(ctx, a);
        ggml_tensor * rows = ggml_sum_rows(ctx, a);
        ggml_tensor * mean = ggml_mean(ctx, a);
        for (int nt : thread_counts()) {
            ASSERT_EQ(compute(ctx, sum, nt), GGML_STATUS_SUCCESS);
            ASSERT_EQ(compute(ctx, rows, nt), GGML_STATUS_SUCCESS);
            ASSERT_EQ(compute(ctx, mean, nt), GGML_STATUS_SUCCESS);
            EXPECT_EQ(get(sum, 0), static_cast<double>(2 * (n - 2))) << n;
            for (int64_t r = 0; r < 2; ++r) {
                EXPECT_EQ(get(rows, 0, r), static_cast<double>(n - 2)) << n;
                EXPECT_FLOAT_EQ(static_cast<float>(get(mean, 0, r)), static_cast<float>(n - 2) / static_cast<float>(n)) << n;
            }
        }
    }
}

TEST(ReduceKernels, SumRowsF16) {
    std::mt19937  rng(3);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 9);
    fill(a, rng);
    ggml_tensor * out = ggml_sum_rows(ctx, a);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, [&](int64_t, int64_t i1, int64_t i2, int64_t i3) { return row_sum(a, i1, i2, i3); },
                        Tol{5e-3, 2e-3});
    }
}

TEST(ReduceKernels, ArgmaxTakesTheFirstMaximum) {
    std::mt19937  rng(4);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 517, 11);
    fill(a, rng);
    set(a, 5.0, 100, 0); // ties: the first wins
    set(a, 5.0, 400, 0);
    set(a, 7.0, 516, 1); // the last element
    set(a, 7.0, 0, 2);   // the first element
    ggml_tensor * out = ggml_argmax(ctx, a);
    ASSERT_EQ(out->type, GGML_TYPE_I32);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        EXPECT_EQ(get(out, 0), 100);
        EXPECT_EQ(get(out, 1), 516);
        EXPECT_EQ(get(out, 2), 0);
        for (int64_t i1 = 0; i1 < 11; ++i1) {
            int64_t best = 0;
            for (int64_t i0 = 1; i0 < 517; ++i0) {
                best = get(a, i0, i1) > get(a, best, i1) ? i0 : best;
            }
            EXPECT_EQ(get(out, i1), best) << "row " << i1;
        }
    }
}

// ---- norms ----

enum class Norm { kNorm, kRms, kL2 };

// Reference of one element of a row-normalised tensor.
double norm_ref(Norm kind, const ggml_tensor * a, float eps, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const double n = static_cast<double>(a->ne[0]);
    double       s = 0, sq = 0;
    for (int64_t k = 0; k < a->ne[0]; ++k) {
        const double v = get(a, k, i1, i2, i3);
        s += v;
        sq += v * v;
    }
    const double x = get(a, i0, i1, i2, i3);
    switch (kind) {
        case Norm::kNorm: {
            const double mean = s / n;
            return (x - mean) / std::sqrt(sq / n - mean * mean + eps);
        }
        case Norm::kRms: return x / std::sqrt(sq / n + eps);
        default:         return x / std::max(std::sqrt(sq), static_cast<double>(eps));
    }
}

ggml_tensor * make_norm(ggml_context * ctx, Norm kind, ggml_tensor * a, float eps, bool inplace) {
    switch (kind) {
        case Norm::kNorm: return inplace ? ggml_norm_inplace(ctx, a, eps) : ggml_norm(ctx, a, eps);
        case Norm::kRms:  return inplace ? ggml_rms_norm_inplace(ctx, a, eps) : ggml_rms_norm(ctx, a, eps);
        default:          return inplace ? ggml_l2_norm_inplace(ctx, a, eps) : ggml_l2_norm(ctx, a, eps);
    }
}

// Checks out against the references computed from a copy of a taken before computing (a may be out's memory).
void check_norm(ggml_context * ctx, Norm kind, ggml_tensor * a, float eps, bool inplace) {
    Ctx           ref_ctx(4);
    ggml_tensor * copy = ggml_new_tensor(ref_ctx, GGML_TYPE_F32, GGML_MAX_DIMS, a->ne);
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(copy, get(a, i0, i1, i2, i3), i0, i1, i2, i3); });
    ggml_tensor * out = make_norm(ctx, kind, a, eps, inplace);
    for (int nt : thread_counts()) {
        for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(a, get(copy, i0, i1, i2, i3), i0, i1, i2, i3); });
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
            return norm_ref(kind, copy, eps, i0, i1, i2, i3);
        });
    }
}

TEST(NormKernels, RowNormsF32) {
    std::mt19937 rng(5);
    for (Norm kind : {Norm::kNorm, Norm::kRms, Norm::kL2}) {
        for (float eps : {1e-5f, 0.25f}) { // a large eps changes the result visibly
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 300, 4, 3, 2);
            fill(a, rng, -2.0, 3.0);
            SCOPED_TRACE(std::to_string(static_cast<int>(kind)) + " eps " + std::to_string(eps));
            check_norm(ctx, kind, a, kind == Norm::kL2 ? eps * 100 : eps, false);
        }
    }
}

TEST(NormKernels, L2NormEpsFloorsTheNorm) {
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    for (int64_t i = 0; i < 4; ++i) {
        set(a, 1e-4, i); // ||a|| = 2e-4 < eps: divided by eps instead
    }
    ggml_tensor * out = ggml_l2_norm(ctx, a, 1e-2f);
    ASSERT_EQ(compute(ctx, out, 1), GGML_STATUS_SUCCESS);
    EXPECT_NEAR(get(out, 2), 1e-2, 1e-7);
}

TEST(NormKernels, PermutedAndInPlace) {
    std::mt19937 rng(6);
    for (Norm kind : {Norm::kNorm, Norm::kRms, Norm::kL2}) {
        for (bool inplace : {false, true}) {
            Ctx           ctx;
            ggml_tensor * base = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 6, 129, 2);
            fill(base, rng, -2.0, 3.0);
            ggml_tensor * a = ggml_permute(ctx, base, 1, 0, 2, 3);
            SCOPED_TRACE(std::to_string(static_cast<int>(kind)) + (inplace ? " in place" : ""));
            check_norm(ctx, kind, a, 1e-6f, inplace);
        }
    }
}

TEST(NormKernels, HalfPrecision) {
    std::mt19937 rng(7);
    for (ggml_type type : {GGML_TYPE_F16, GGML_TYPE_BF16}) {
        for (Norm kind : {Norm::kNorm, Norm::kRms}) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_2d(ctx, type, 96, 5);
            fill(a, rng, -2.0, 3.0);
            SCOPED_TRACE(ggml_type_name(type));
            check_norm(ctx, kind, a, 1e-5f, false);
        }
    }
}

TEST(NormKernels, GroupNormWithAnUnevenLastGroup) {
    std::mt19937  rng(8);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 6, 4, 5, 2); // 5 channels, 2 groups: 3 + 2
    fill(a, rng, -2.0, 3.0);
    const float   eps = 1e-5f;
    ggml_tensor * out = ggml_group_norm(ctx, a, 2, eps);
    auto          ref = [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const int64_t c0 = i2 < 3 ? 0 : 3, c1 = i2 < 3 ? 3 : 5;
        double        s = 0, sq = 0, n = 0;
        for (int64_t c = c0; c < c1; ++c) {
            for (int64_t j1 = 0; j1 < 4; ++j1) {
                for (int64_t j0 = 0; j0 < 6; ++j0) {
                    const double v = get(a, j0, j1, c, i3);
                    s += v;
                    sq += v * v;
                    n += 1;
                }
            }
        }
        const double mean = s / n;
        return (get(a, i0, i1, i2, i3) - mean) / std::sqrt(sq / n - mean * mean + eps);
    };
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, ref);
    }
}

} // namespace
