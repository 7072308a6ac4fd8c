// CPU kernels of ADD, SUB, MUL, DIV, ADD1, ADD_ID and ACC through ggml_graph_compute_with_ctx at 1 and 3 threads,
// against scalar references: broadcasting in every dimension, permuted inputs, in-place execution, F16 / BF16
// mixes and a block-format src0.
#include "kernel_test_util.h"

#include "cpu/kernel.h"

#include <functional>

namespace {

using namespace switchyard::kernel_test;

using MakeOp = ggml_tensor * (*)(ggml_context *, ggml_tensor *, ggml_tensor *);

struct BinaryOp {
    const char *                           name;
    MakeOp                                 make;
    MakeOp                                 make_inplace;
    std::function<double(double, double)> ref;
};

const BinaryOp kOps[] = {
    {"add", ggml_add, ggml_add_inplace, [](double a, double b) { return a + b; }},
    {"sub", ggml_sub, ggml_sub_inplace, [](double a, double b) { return a - b; }},
    {"mul", ggml_mul, ggml_mul_inplace, [](double a, double b) { return a * b; }},
    {"div", ggml_div, ggml_div_inplace, [](double a, double b) { return a / b; }},
};

// b's values stay away from 0 so that DIV is well conditioned.
void fill_b(ggml_tensor * b, std::mt19937 & rng) {
    fill(b, rng, 0.5, 2.0);
}

// out[i] = op(a[i], b[i mod b->ne]) with a and b read before the computation.
void check_binary(ggml_context * ctx, ggml_tensor * out, const ggml_tensor * a, const ggml_tensor * b,
                  const BinaryOp & op) {
    const std::vector<double> av = values(a);
    std::vector<double>       want;
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        want.push_back(op.ref(get(a, i0, i1, i2, i3),
                              get(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3])));
    });
    for (int nt : thread_counts()) {
        if (out->data == a->data) {
            int64_t k = 0;
            for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                set(const_cast<ggml_tensor *>(a), av[static_cast<size_t>(k++)], i0, i1, i2, i3);
            });
        }
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        int64_t k = 0;
        expect_all_near(out, [&](int64_t, int64_t, int64_t, int64_t) { return want[static_cast<size_t>(k++)]; });
    }
}

TEST(BinaryKernels, SameShape) {
    std::mt19937 rng(1);
    for (const BinaryOp & op : kOps) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 300, 3, 2, 2);
        ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 300, 3, 2, 2);
        fill(a, rng);
        fill_b(b, rng);
        SCOPED_TRACE(op.name);
        check_binary(ctx, op.make(ctx, a, b), a, b, op);
    }
}

TEST(BinaryKernels, BroadcastInEveryDimension) {
    std::mt19937  rng(2);
    const int64_t shapes[][4] = {{16, 1, 4, 1}, {1, 6, 1, 3}, {8, 3, 2, 1}, {1, 1, 1, 1}, {16, 6, 4, 3}, {4, 2, 1, 3}};
    for (const BinaryOp & op : kOps) {
        for (const auto & s : shapes) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 16, 6, 4, 3);
            ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, s[0], s[1], s[2], s[3]);
            fill(a, rng);
            fill_b(b, rng);
            SCOPED_TRACE(std::string(op.name) + " b [" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," +
                         std::to_string(s[2]) + "," + std::to_string(s[3]) + "]");
            check_binary(ctx, op.make(ctx, a, b), a, b, op);
        }
    }
}

TEST(BinaryKernels, OneLongRowIsSplitBetweenThreads) {
    std::mt19937 rng(11);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_1d(ctx, type, 3000);
        ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000); // repeats 3 times; spans start mid-repeat
        fill(a, rng);
        fill_b(b, rng);
        SCOPED_TRACE(ggml_type_name(type));
        check_binary(ctx, ggml_mul(ctx, a, b), a, b, kOps[2]);
    }
}

TEST(BinaryKernels, PermutedOperands) {
    std::mt19937  rng(3);
    Ctx           ctx;
    ggml_tensor * abase = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 12, 20, 3);
    ggml_tensor * bbase = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1, 20);
    fill(abase, rng);
    fill_b(bbase, rng);
    ggml_tensor * a = ggml_permute(ctx, abase, 1, 0, 2, 3); // [20, 12, 3], elements 48 bytes apart
    ggml_tensor * b = ggml_transpose(ctx, bbase);           // [20, 1], elements 4 bytes apart but transposed
    for (const BinaryOp & op : kOps) {
        SCOPED_TRACE(op.name);
        check_binary(ctx, op.make(ctx, a, b), a, b, op);
    }
}

TEST(BinaryKernels, InPlace) {
    std::mt19937 rng(4);
    for (const BinaryOp & op : kOps) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 33, 7, 2);
        ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 33, 1, 2);
        fill(a, rng);
        fill_b(b, rng);
        ggml_tensor * out = op.make_inplace(ctx, a, b);
        ASSERT_EQ(out->data, a->data);
        SCOPED_TRACE(op.name);
        check_binary(ctx, out, a, b, op);
    }
}

TEST(BinaryKernels, HalfPrecisionMixes) {
    std::mt19937    rng(5);
    const ggml_type pairs[][2] = {{GGML_TYPE_F16, GGML_TYPE_F16},  {GGML_TYPE_F16, GGML_TYPE_F32},
                                  {GGML_TYPE_BF16, GGML_TYPE_BF16}, {GGML_TYPE_BF16, GGML_TYPE_F32},
                                  {GGML_TYPE_F32, GGML_TYPE_F16}};
    for (const BinaryOp & op : kOps) {
        for (const auto & tp : pairs) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_3d(ctx, tp[0], 40, 5, 2);
            ggml_tensor * b = ggml_new_tensor_3d(ctx, tp[1], 40, 1, 2);
            fill(a, rng);
            fill_b(b, rng);
            ggml_tensor * out = op.make(ctx, a, b);
            ASSERT_EQ(out->type, tp[0]);
            SCOPED_TRACE(std::string(op.name) + " " + ggml_type_name(tp[0]) + " " + ggml_type_name(tp[1]));
            check_binary(ctx, out, a, b, op);
        }
    }
}

TEST(BinaryKernels, AddCastToF32) {
    std::mt19937  rng(6);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 3);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
    fill(a, rng);
    fill(b, rng);
    ggml_tensor * out = ggml_add_cast(ctx, a, b, GGML_TYPE_F32);
    ASSERT_EQ(out->type, GGML_TYPE_F32);
    check_binary(ctx, out, a, b, kOps[0]);
}

// ADD with a Q8_0 src0: the result keeps the block format (decoded, added, re-encoded).
void check_add_to_q8_0(int64_t ne0, int64_t ne1) {
    std::mt19937  rng(7);
    Ctx           ctx;
    ggml_tensor * a  = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, ne0, ne1);
    ggml_tensor * b  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
    const auto *  tt = ggml_get_type_traits(GGML_TYPE_Q8_0);
    tt->from_float_ref(random_floats(rng, ne0 * ne1).data(), a->data, ne0 * ne1);
    fill(b, rng);
    std::vector<float> a_vals(static_cast<size_t>(ne0 * ne1));
    tt->to_float(a->data, a_vals.data(), ne0 * ne1);
    ggml_tensor * out = ggml_add(ctx, a, b);
    ASSERT_EQ(out->type, GGML_TYPE_Q8_0);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        std::vector<float> got(static_cast<size_t>(ne0 * ne1));
        tt->to_float(out->data, got.data(), ne0 * ne1);
        for (int64_t i1 = 0; i1 < ne1; ++i1) {
            double row_max = 0; // Q8_0 error: half a step of max|x| / 127 per 32-element block, bound by the row max
            for (int64_t i0 = 0; i0 < ne0; ++i0) {
                row_max = std::max(row_max, std::fabs(a_vals[i1 * ne0 + i0] + get(b, i0, i1)));
            }
            for (int64_t i0 = 0; i0 < ne0; ++i0) {
                EXPECT_NEAR(got[i1 * ne0 + i0], a_vals[i1 * ne0 + i0] + get(b, i0, i1), row_max / 127.0 * 0.51 + 1e-6);
            }
        }
    }
}

TEST(BinaryKernels, AddToBlockFormatSrc0) { check_add_to_q8_0(64, 5); }
TEST(BinaryKernels, AddToBlockFormatSrc0OneLongRow) { check_add_to_q8_0(2048, 1); }

TEST(BinaryKernels, Add1) {
    std::mt19937 rng(8);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 21, 4, 3);
        ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
        fill(a, rng);
        set(b, 0.625, 0);
        SCOPED_TRACE(ggml_type_name(type));
        check_binary(ctx, ggml_add1(ctx, a, b), a, b, kOps[0]);
    }
}

TEST(BinaryKernels, AddId) {
    std::mt19937  rng(9);
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 24, 3, 5); // [ne0, n_used, n_tokens]
    ggml_tensor * b   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 24, 4);    // [ne0, n_experts]
    ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 5);
    fill(a, rng);
    fill(b, rng);
    std::uniform_int_distribution<int> pick(0, 3);
    for_each(ids, [&](int64_t i0, int64_t i1, int64_t, int64_t) { set(ids, pick(rng), i0, i1); });
    ggml_tensor * out = ggml_add_id(ctx, a, b, ids);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t) {
            return get(a, i0, i1, i2) + get(b, i0, static_cast<int64_t>(get(ids, i1, i2)));
        });
    }
}

// ACC: dst = a, then the view (nb1, nb2, offset) of dst += b.
void check_acc(bool inplace) {
    std::mt19937  rng(10);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 6, 2);
    ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 3, 2, 2);
    fill(a, rng);
    fill(b, rng);
    const std::vector<double> av     = values(a);
    const size_t              offset = 2 * sizeof(float) + 1 * a->nb[1];
    ggml_tensor *             out    = inplace ? ggml_acc_inplace(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset)
                                               : ggml_acc(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset);
    for (int nt : thread_counts()) {
        int64_t k = 0;
        for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(a, av[static_cast<size_t>(k++)], i0, i1, i2, i3); });
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t) {
            const double base = av[static_cast<size_t>((i2 * 6 + i1) * 8 + i0)];
            const bool   in   = i0 >= 2 && i0 < 5 && i1 >= 1 && i1 < 3;
            return in ? base + get(b, i0 - 2, i1 - 1, i2) : base;
        });
    }
}

TEST(BinaryKernels, Acc) { check_acc(false); }
TEST(BinaryKernels, AccInPlace) { check_acc(true); }

TEST(BinaryKernels, SupportsTellsTheTruth) {
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 2);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 2);
    ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 32, 2);
    EXPECT_TRUE(switchyard::cpu::supports_node(ggml_add(ctx, a, b)));
    EXPECT_TRUE(switchyard::cpu::supports_node(ggml_add(ctx, q, b)));  // decoded, added, re-encoded
    EXPECT_FALSE(switchyard::cpu::supports_node(ggml_mul(ctx, q, b))); // only ADD takes a block-format src0
    ggml_tensor * bad = ggml_add(ctx, a, b);
    bad->src[1]       = q; // a block-format src1 is not read by the kernel
    EXPECT_FALSE(switchyard::cpu::supports_node(bad));
}

} // namespace
