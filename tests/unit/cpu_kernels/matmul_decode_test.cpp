// MUL_MAT and MUL_MAT_ID graphs for every weight type, computed by the CPU backend on 1 to 4 threads: token
// generation (1 column), small batches (3, 5, 8: the matrix-vector path, columns in groups of four) and a larger
// one (kMatVecMaxCols + 3: the integer GEMM where the CPU has its tile, else the float path, which rounds the
// activations the same way), with broadcasting and F16 activations.
// Every result must be upstream's product (tools/conformance/reference/activations.h) to float rounding.
#include "kernel_test_util.h"
#include "matvec_test_util.h"

#include "cpu/kernels/mul_mat/vec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using switchyard::testing::reference::upstream_product;
using namespace switchyard::kernel_test;
using namespace switchyard::matvec_test;
using switchyard::cpu::kernels::kMatVecMaxCols;

// The activations of src1 column (i1, i2, i3) as floats (src1: F32 or F16).
std::vector<float> column(const ggml_tensor * b, int64_t i1, int64_t i2, int64_t i3) {
    std::vector<float> x(static_cast<size_t>(b->ne[0]));
    for (int64_t k = 0; k < b->ne[0]; ++k) {
        x[k] = static_cast<float>(get(b, k, i1, i2, i3));
    }
    return x;
}

const char * row_of(const ggml_tensor * a, int64_t i1, int64_t i2, int64_t i3) {
    return static_cast<const char *>(a->data) + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3];
}

void fill_weights(ggml_tensor * a, std::mt19937 & rng) {
    const std::vector<uint8_t> bytes = quantized_rows(a->type, ggml_nrows(a), a->ne[0], rng);
    std::memcpy(a->data, bytes.data(), bytes.size());
}

// out = a * b (MUL_MAT) against upstream's product of every row and column.
void expect_upstream_products(const ggml_tensor * out, const ggml_tensor * a, const ggml_tensor * b,
                              const std::string & what) {
    const int64_t r2 = b->ne[2] / a->ne[2], r3 = b->ne[3] / a->ne[3];
    int           failures = 0;
    for (int64_t i3 = 0; i3 < out->ne[3]; ++i3) {
        for (int64_t i2 = 0; i2 < out->ne[2]; ++i2) {
            for (int64_t m = 0; m < out->ne[1]; ++m) {
                const std::vector<float> x = column(b, m, i2, i3);
                for (int64_t n = 0; n < out->ne[0]; ++n) {
                    const char * row  = row_of(a, n, i2 / r2, i3 / r3);
                    const double want = upstream_product(a->type, row, x.data(), a->ne[0]);
                    const double got  = get(out, n, m, i2, i3);
                    if (std::fabs(got - want) > tolerance(a->type, row, x.data(), a->ne[0]) && failures++ < 3) {
                        ADD_FAILURE() << what << " at (" << n << ", " << m << ", " << i2 << ", " << i3 << "): got "
                                      << got << ", want " << want;
                    }
                }
            }
        }
    }
    EXPECT_EQ(failures, 0) << what;
}

TEST(MatMulDecode, EveryTypeAndColumnCountIsUpstreamsProduct) {
    std::mt19937 rng(31);
    for (ggml_type type : weight_types()) {
        const int64_t k = ggml_blck_size(type) == 256 ? 512 : (ggml_blck_size(type) >= 64 ? 5 * ggml_blck_size(type) : 320);
        for (int64_t cols : {int64_t{1}, int64_t{3}, int64_t{5}, int64_t{8}, kMatVecMaxCols + 3}) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_2d(ctx, type, k, 37);
            ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, cols);
            fill_weights(a, rng);
            fill(b, rng);
            ggml_tensor * out = ggml_mul_mat(ctx, a, b);
            for (int nt : {1, 2, 3, 4}) {
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                expect_upstream_products(out, a, b, std::string(ggml_type_name(type)) + ", " + std::to_string(cols) +
                                                        " columns, " + std::to_string(nt) + " threads");
            }
        }
    }
}

TEST(MatMulDecode, BroadcastAndF16Activations) {
    std::mt19937 rng(32);
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q6_K, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        const int64_t k = ggml_blck_size(type) >= 64 ? ggml_blck_size(type) : 64;
        for (ggml_type b_type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_4d(ctx, type, k, 19, 2, 3);
            ggml_tensor * b = ggml_new_tensor_4d(ctx, b_type, k, 2, 4, 3);
            fill_weights(a, rng);
            fill(b, rng);
            ggml_tensor * out = ggml_mul_mat(ctx, a, b);
            for (int nt : {1, 3}) {
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                expect_upstream_products(out, a, b, std::string(ggml_type_name(type)) + " x " + ggml_type_name(b_type));
            }
        }
    }
}

// A column's results do not depend on the batch it shares (up to kMatVecMaxCols columns, the matrix-vector path):
// each column of a 1, 7, 9 and kMatVecMaxCols-column product equals, bit for bit, the same column multiplied
// alone, on 1 and 2 threads, for every weight type; the weights span several of the path's blocks of rows
// (512 KiB of f32 rows).
TEST(MatMulDecode, ColumnsGiveTheSameBitsInEveryBatchUpToTheMatVecLimit) {
    std::mt19937 rng(33);
    for (ggml_type type : weight_types()) {
        const int64_t k = 1024, rows = 300; // f32: 4 KiB rows, 128 rows per block of rows
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_2d(ctx, type, k, rows);
        fill_weights(a, rng);
        ggml_tensor * all = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, kMatVecMaxCols);
        fill(all, rng);
        std::vector<std::vector<float>> alone(static_cast<size_t>(kMatVecMaxCols));
        for (int64_t c = 0; c < kMatVecMaxCols; ++c) {
            ggml_tensor * col = ggml_view_2d(ctx, all, k, 1, all->nb[1], static_cast<size_t>(c) * all->nb[1]);
            ggml_tensor * out = ggml_mul_mat(ctx, a, col);
            ASSERT_EQ(compute(ctx, out, 1), GGML_STATUS_SUCCESS);
            const auto * o = static_cast<const float *>(out->data);
            alone[static_cast<size_t>(c)].assign(o, o + rows);
        }
        for (int64_t batch : {int64_t{7}, int64_t{9}, kMatVecMaxCols}) {
            ggml_tensor * b   = ggml_view_2d(ctx, all, k, batch, all->nb[1], 0);
            ggml_tensor * out = ggml_mul_mat(ctx, a, b);
            for (int nt : {1, 2}) {
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                int failures = 0;
                for (int64_t c = 0; c < batch; ++c) {
                    const auto * o = reinterpret_cast<const float *>(static_cast<const char *>(out->data) + c * out->nb[1]);
                    for (int64_t r = 0; r < rows; ++r) {
                        if (std::memcmp(&o[r], &alone[static_cast<size_t>(c)][static_cast<size_t>(r)], sizeof(float)) != 0 &&
                            failures++ < 3) {
                            ADD_FAILURE() << ggml_type_name(type) << ", batch " << batch << ", " << nt << " threads: row "
                                          << r << " column " << c << " is " << o[r] << ", alone "
                                          << alone[static_cast<size_t>(c)][static_cast<size_t>(r)];
                        }
                    }
                }
            }
        }
    }
}

// MUL_MAT_ID: as [k, 21, 4 experts], b [k, 2, 3 tokens], ids [2, 3] -> out [21, 2, 3].
TEST(MatMulDecode, MulMatIdIsUpstreamsProduct) {
    std::mt19937 rng(33);
    for (ggml_type type : weight_types()) {
        const int64_t k   = ggml_blck_size(type) >= 64 ? ggml_blck_size(type) : 96;
        Ctx           ctx;
        ggml_tensor * as  = ggml_new_tensor_3d(ctx, type, k, 21, 4);
        ggml_tensor * b   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, k, 2, 3);
        ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 3);
        fill_weights(as, rng);
        fill(b, rng);
        for (int64_t t = 0; t < 3; ++t) {
            set(ids, static_cast<double>((t + 1) % 4), 0, t);
            set(ids, static_cast<double>((3 * t) % 4), 1, t);
        }
        ggml_tensor * out = ggml_mul_mat_id(ctx, as, b, ids);
        for (int nt : {1, 2, 3}) {
            ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
            for (int64_t t = 0; t < 3; ++t) {
                for (int64_t e = 0; e < 2; ++e) {
                    const int64_t            expert = static_cast<int64_t>(get(ids, e, t));
                    const std::vector<float> x      = column(b, e, t, 0);
                    for (int64_t n = 0; n < 21; ++n) {
                        const char * row = row_of(as, n, expert, 0);
                        EXPECT_NEAR(get(out, n, e, t), upstream_product(type, row, x.data(), k),
                                    tolerance(type, row, x.data(), k))
                            << ggml_type_name(type) << " (" << n << ", " << e << ", " << t << "), " << nt << " threads";
                    }
                }
            }
        }
    }
}

// MUL_MAT_ID with the pairs of each expert multiplied together (vec.h): 300 rows (two runs of rows, the second of
// 44), 6 experts of which expert 0 takes 40 of the 80 pairs (two gathers: 32 + 8) and expert 5 none, src1 broadcast
// over the slots (n_b = 1). Each pair's output must be the bits its token gets alone, on 1 and 3 threads, and
// upstream's product.
TEST(MatMulDecode, MulMatIdPairsOfAnExpertTogetherGiveEachTokenItsOwnBits) {
    std::mt19937  rng(34);
    const int64_t k = 256, rows = 300, n_expert = 6, n_used = 2, n_tokens = 40;
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K,
                           GGML_TYPE_IQ4_NL}) {
        SCOPED_TRACE(ggml_type_name(type));
        Ctx           ctx;
        ggml_tensor * as  = ggml_new_tensor_3d(ctx, type, k, rows, n_expert);
        ggml_tensor * b   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, k, 1, n_tokens);
        ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, n_used, n_tokens);
        fill_weights(as, rng);
        fill(b, rng);
        for (int64_t t = 0; t < n_tokens; ++t) {
            set(ids, 0.0, 0, t);
            set(ids, static_cast<double>(1 + t % 4), 1, t);
        }
        ggml_tensor * out = ggml_mul_mat_id(ctx, as, b, ids);
        std::vector<float> batch(static_cast<size_t>(ggml_nelements(out)));
        for (int nt : {1, 3}) {
            std::memset(out->data, 0xff, ggml_nbytes(out)); // NaN: a row left unwritten shows
            ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
            if (nt == 1) {
                std::memcpy(batch.data(), out->data, ggml_nbytes(out));
            } else {
                EXPECT_EQ(std::memcmp(batch.data(), out->data, ggml_nbytes(out)), 0) << "1 and 3 threads differ";
            }
        }
        int mismatches = 0;
        for (int64_t t = 0; t < n_tokens; ++t) {
            Ctx           one;
            ggml_tensor * as1  = ggml_new_tensor_3d(one, type, k, rows, n_expert);
            ggml_tensor * b1   = ggml_new_tensor_3d(one, GGML_TYPE_F32, k, 1, 1);
            ggml_tensor * ids1 = ggml_new_tensor_2d(one, GGML_TYPE_I32, n_used, 1);
            std::memcpy(as1->data, as->data, ggml_nbytes(as));
            std::memcpy(b1->data, static_cast<const char *>(b->data) + t * b->nb[2], ggml_nbytes(b1));
            std::memcpy(ids1->data, static_cast<const char *>(ids->data) + t * ids->nb[1], ggml_nbytes(ids1));
            ggml_tensor * out1 = ggml_mul_mat_id(one, as1, b1, ids1);
            ASSERT_EQ(compute(one, out1, 2), GGML_STATUS_SUCCESS);
            for (int64_t e = 0; e < n_used; ++e) {
                const float * got  = batch.data() + (t * n_used + e) * rows;
                const auto *  want = reinterpret_cast<const float *>(static_cast<const char *>(out1->data) + e * out1->nb[1]);
                if (std::memcmp(got, want, static_cast<size_t>(rows) * sizeof(float)) != 0 && mismatches++ < 3) {
                    ADD_FAILURE() << "token " << t << ", slot " << e << ": the batch's bits differ from the token's alone";
                }
            }
        }
        for (int64_t t : {int64_t{0}, int64_t{13}, n_tokens - 1}) { // upstream's product, every row of a few tokens
            const std::vector<float> x = column(b, 0, t, 0);
            for (int64_t e = 0; e < n_used; ++e) {
                const auto expert = static_cast<int64_t>(get(ids, e, t));
                for (int64_t n = 0; n < rows; ++n) {
                    const char * row = row_of(as, n, expert, 0);
                    EXPECT_NEAR(batch[static_cast<size_t>((t * n_used + e) * rows + n)], upstream_product(type, row, x.data(), k),
                                tolerance(type, row, x.data(), k))
                        << "(" << n << ", " << e << ", " << t << ")";
                }
            }
        }
    }
}

} // namespace
