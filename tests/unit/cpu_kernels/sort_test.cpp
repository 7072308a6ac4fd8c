// CPU kernels of ARGSORT and TOP_K, which sort in dst's rows without work memory: the order of a stable sort
// (ties keep index order, -0 ties with +0), F32 / F16 / I32 sources, NaN placed after every number, and TOP_K
// equal to the first k indices of the stable descending sort. Expected orders come from std::stable_sort on the
// values, in the test.
#include "kernel_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace {

using namespace switchyard::kernel_test;

// Rows of values with many ties (integers in [-3, 3]).
void fill_ties(ggml_tensor * a, std::mt19937 & rng) {
    std::uniform_int_distribution<int> dist(-3, 3);
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(a, dist(rng), i0, i1, i2, i3); });
}

// The stable order of row (i1, i2) of a; NaNs after every number, in index order.
std::vector<int32_t> stable_order(const ggml_tensor * a, int64_t i1, int64_t i2, bool descending) {
    std::vector<int32_t> idx(static_cast<size_t>(a->ne[0]));
    std::iota(idx.begin(), idx.end(), 0);
    const auto v = [&](int32_t i) { return get(a, i, i1, i2); };
    std::stable_sort(idx.begin(), idx.end(), [&](int32_t x, int32_t y) {
        if (std::isnan(v(x)) || std::isnan(v(y))) {
            return !std::isnan(v(x)) && std::isnan(v(y));
        }
        return descending ? v(x) > v(y) : v(x) < v(y);
    });
    return idx;
}

void expect_rows(const ggml_tensor * a, const ggml_tensor * out, bool descending) {
    for (int64_t i2 = 0; i2 < a->ne[2]; ++i2) {
        for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
            const std::vector<int32_t> want = stable_order(a, i1, i2, descending);
            for (int64_t i0 = 0; i0 < out->ne[0]; ++i0) {
                ASSERT_EQ(get(out, i0, i1, i2), want[static_cast<size_t>(i0)]) << "row (" << i1 << ", " << i2 << "), " << i0;
            }
        }
    }
}

TEST(SortKernels, ArgsortIsStableForEverySourceType) {
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_I32}) {
        for (ggml_sort_order order : {GGML_SORT_ORDER_ASC, GGML_SORT_ORDER_DESC}) {
            for (int n : thread_counts()) {
                SCOPED_TRACE(std::string(ggml_type_name(type)) + (order == GGML_SORT_ORDER_DESC ? " desc, " : " asc, ") +
                             std::to_string(n) + " threads");
                Ctx           ctx;
                std::mt19937  rng(11);
                ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 37, 5, 2);
                fill_ties(a, rng);
                ggml_tensor * out = ggml_argsort(ctx, a, order);
                ASSERT_EQ(compute(ctx, out, n), GGML_STATUS_SUCCESS);
                expect_rows(a, out, order == GGML_SORT_ORDER_DESC);
            }
        }
    }
}

TEST(SortKernels, ArgsortPutsNanLastAndTiesSignedZeros) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float row[] = {1.0f, nan, -0.0f, 2.0f, 0.0f, nan, -1.0f, 0.0f, -0.0f, nan, 2.0f};
    for (ggml_sort_order order : {GGML_SORT_ORDER_ASC, GGML_SORT_ORDER_DESC}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 11);
        std::copy(std::begin(row), std::end(row), static_cast<float *>(a->data));
        ggml_tensor * out = ggml_argsort(ctx, a, order);
        ASSERT_EQ(compute(ctx, out, 1), GGML_STATUS_SUCCESS);
        const std::vector<double> want = order == GGML_SORT_ORDER_ASC
                                             ? std::vector<double>{6, 2, 4, 7, 8, 0, 3, 10, 1, 5, 9}
                                             : std::vector<double>{3, 10, 0, 2, 4, 7, 8, 6, 1, 5, 9};
        EXPECT_EQ(values(out), want);
    }
}

TEST(SortKernels, TopKIsTheStartOfTheStableDescendingOrder) {
    for (int k : {1, 4, 37}) {
        for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            for (int n : thread_counts()) {
                SCOPED_TRACE("k " + std::to_string(k) + ", " + ggml_type_name(type) + ", " + std::to_string(n) + " threads");
                Ctx           ctx;
                std::mt19937  rng(12);
                ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 37, 6, 1);
                fill_ties(a, rng);
                ggml_tensor * out = ggml_top_k(ctx, a, k);
                ASSERT_EQ(out->ne[0], k);
                ASSERT_EQ(compute(ctx, out, n), GGML_STATUS_SUCCESS);
                expect_rows(a, out, true);
            }
        }
    }
}

TEST(SortKernels, NeedNoWorkMemory) {
    Ctx           ctx;
    ggml_tensor * a  = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 4096, 8);
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, ggml_argsort(ctx, a, GGML_SORT_ORDER_ASC));
    ggml_build_forward_expand(gf, ggml_top_k(ctx, a, 40));
    EXPECT_EQ(ggml_graph_plan(gf, 4, nullptr).work_size, 0u);
}

} // namespace
