// CPU kernels of GET_ROWS, SET_ROWS and DIAG_MASK_INF through ggml_graph_compute_with_ctx at 1 and 3 threads:
// float and block-format sources, 3-d indexing and index broadcasting, I32 / I64 indices, out-of-range indices
// (the computation fails), in-place masking.
#include "kernel_test_util.h"

#include <cmath>

namespace {

using namespace switchyard::kernel_test;

void check(ggml_context * ctx, ggml_tensor * out, const RefFn & ref) {
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, ref);
    }
}

void fill_indices(ggml_tensor * ids, std::mt19937 & rng, int64_t n) {
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    for_each(ids, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        set(ids, static_cast<double>(pick(rng)), i0, i1, i2, i3);
    });
}

TEST(RowsKernels, GetRowsFromFloatTypes) {
    std::mt19937 rng(1);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        Ctx           ctx;
        ggml_tensor * a   = ggml_new_tensor_2d(ctx, type, 300, 10);
        ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 7);
        fill(a, rng);
        fill_indices(ids, rng, 10);
        ggml_tensor * out = ggml_get_rows(ctx, a, ids);
        ASSERT_EQ(out->type, GGML_TYPE_F32);
        SCOPED_TRACE(ggml_type_name(type));
        check(ctx, out, [&](int64_t i0, int64_t i1, int64_t, int64_t) {
            return get(a, i0, static_cast<int64_t>(get(ids, i1)));
        });
    }
}

TEST(RowsKernels, GetRows3dIndexing) {
    std::mt19937  rng(2);
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 10, 3, 2);
    ggml_tensor * ids = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 4, 3, 2);
    fill(a, rng);
    fill_indices(ids, rng, 10);
    ggml_tensor * out = ggml_get_rows(ctx, a, ids);
    ASSERT_EQ(out->ne[1], 4);
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return get(a, i0, static_cast<int64_t>(get(ids, i1, i2, i3)), i2, i3);
    });
}

TEST(RowsKernels, GetRowsI32KeepsI32) {
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 4);
    ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    for_each(a, [&](int64_t i0, int64_t i1, int64_t, int64_t) { set(a, static_cast<double>(100 * i1 + i0), i0, i1); });
    set(ids, 3, 0);
    set(ids, 1, 1);
    ggml_tensor * out = ggml_get_rows(ctx, a, ids);
    ASSERT_EQ(out->type, GGML_TYPE_I32);
    check(ctx, out, [](int64_t i0, int64_t i1, int64_t, int64_t) { return (i1 == 0 ? 300.0 : 100.0) + i0; });
}

TEST(RowsKernels, GetRowsFromBlockFormats) {
    std::mt19937 rng(3);
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K}) {
        Ctx           ctx;
        const int64_t ne0 = 256, ne1 = 6;
        ggml_tensor * a   = ggml_new_tensor_2d(ctx, type, ne0, ne1);
        ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 5);
        const auto *  tt  = ggml_get_type_traits(type);
        tt->from_float_ref(random_floats(rng, ne0 * ne1).data(), a->data, ne0 * ne1);
        std::vector<float> decoded(static_cast<size_t>(ne0 * ne1));
        tt->to_float(a->data, decoded.data(), ne0 * ne1);
        fill_indices(ids, rng, ne1);
        SCOPED_TRACE(ggml_type_name(type));
        check(ctx, ggml_get_rows(ctx, a, ids), [&](int64_t i0, int64_t i1, int64_t, int64_t) {
            return decoded[static_cast<size_t>(static_cast<int64_t>(get(ids, i1)) * ne0 + i0)];
        });
    }
}

// An index out of range is a data error: the computation fails (tests/unit/cpu/data_error_test.cpp has the
// details: the log, memory outside the tensors, the other ops, the backend path).
TEST(RowsKernels, GetRowsOutOfRangeIndexFails) {
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    for_each(a, [&](int64_t i0, int64_t i1, int64_t, int64_t) { set(a, 1.0 + i0 + 10.0 * i1, i0, i1); });
    ggml_tensor * out = ggml_get_rows(ctx, a, ids);
    for (int bad : {7, -1}) {
        set(ids, 2, 0);
        set(ids, bad, 1);
        set(ids, 0, 2);
        for (int nt : thread_counts()) {
            EXPECT_EQ(compute(ctx, out, nt), GGML_STATUS_FAILED) << "index " << bad << ", " << nt << " threads";
        }
    }
    set(ids, 1, 1); // all in range again
    check(ctx, out, [](int64_t i0, int64_t i1, int64_t, int64_t) {
        return (i1 == 0 ? 21.0 : i1 == 1 ? 11.0 : 1.0) + i0; // rows 2, 1, 0 of a
    });
}

// The values of row (i1, i2, i3) of t (block formats decoded).
std::vector<double> row_values(const ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    std::vector<double> out(static_cast<size_t>(t->ne[0]));
    if (ggml_is_quantized(t->type)) {
        std::vector<float> f(out.size());
        ggml_get_type_traits(t->type)->to_float(addr(t, 0, i1, i2, i3), f.data(), t->ne[0]);
        std::copy(f.begin(), f.end(), out.begin());
        return out;
    }
    for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
        out[static_cast<size_t>(i0)] = get(t, i0, i1, i2, i3);
    }
    return out;
}

// SET_ROWS reference: dst starts as `before`, then row i of src goes to row ids[i, i2 % ne11, i3 % ne12].
void check_set_rows(ggml_type dst_type, ggml_type idx_type) {
    std::mt19937  rng(4);
    Ctx           ctx;
    ggml_tensor * dst = ggml_new_tensor_4d(ctx, dst_type, 64, 9, 4, 2);
    ggml_tensor * src = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 3, 4, 2);
    ggml_tensor * ids = ggml_new_tensor_3d(ctx, idx_type, 3, 2, 1); // broadcast over dims 2 (4 / 2) and 3 (2 / 1)
    std::memset(dst->data, 0, ggml_nbytes(dst));
    fill(src, rng);
    // distinct rows per (i2 % 2): rows 0..2 map to distinct destinations
    const int64_t rows[2][3] = {{5, 0, 8}, {2, 7, 3}};
    for (int64_t j = 0; j < 2; ++j) {
        for (int64_t i = 0; i < 3; ++i) {
            set(ids, static_cast<double>(rows[j][i]), i, j);
        }
    }
    ggml_tensor * out = ggml_set_rows(ctx, dst, src, ids);
    ASSERT_EQ(out->data, dst->data);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        for (int64_t i3 = 0; i3 < 2; ++i3) {
            for (int64_t i2 = 0; i2 < 4; ++i2) {
                for (int64_t r = 0; r < 9; ++r) {
                    int64_t from = -1;
                    for (int64_t i = 0; i < 3; ++i) {
                        from = rows[i2 % 2][i] == r ? i : from;
                    }
                    const std::vector<double> got = row_values(dst, r, i2, i3);
                    for (int64_t i0 = 0; i0 < 64; ++i0) {
                        const double want = from < 0 ? 0.0 : get(src, i0, from, i2, i3);
                        const double tol  = dst_type == GGML_TYPE_Q8_0 ? 1.0 / 127 : tol_for(dst_type).rel + 1e-6;
                        EXPECT_NEAR(got[static_cast<size_t>(i0)], want, tol) << "row " << r << " (" << i2 << ", " << i3 << ")";
                    }
                }
            }
        }
    }
}

TEST(RowsKernels, SetRowsF32I64) { check_set_rows(GGML_TYPE_F32, GGML_TYPE_I64); }
TEST(RowsKernels, SetRowsF16I32) { check_set_rows(GGML_TYPE_F16, GGML_TYPE_I32); }
TEST(RowsKernels, SetRowsBF16I64) { check_set_rows(GGML_TYPE_BF16, GGML_TYPE_I64); }
TEST(RowsKernels, SetRowsQ8_0I64) { check_set_rows(GGML_TYPE_Q8_0, GGML_TYPE_I64); }

TEST(RowsKernels, DiagMaskInf) {
    std::mt19937 rng(5);
    for (bool inplace : {false, true}) {
        for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 9, 6, 3);
            fill(a, rng);
            const std::vector<double> av  = values(a);
            const int                 n_past = 2;
            ggml_tensor * out = inplace ? ggml_diag_mask_inf_inplace(ctx, a, n_past) : ggml_diag_mask_inf(ctx, a, n_past);
            SCOPED_TRACE(std::string(ggml_type_name(type)) + (inplace ? " in place" : ""));
            check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t) {
                return i0 > n_past + i1 ? -INFINITY : av[static_cast<size_t>((i2 * 6 + i1) * 9 + i0)];
            });
        }
    }
}

} // namespace
