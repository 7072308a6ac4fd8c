// CPU kernels of DUP, CPY and CONT through ggml_graph_compute_with_ctx at 1 and 3 threads: conversions between
// F32 / F16 / BF16 / I32, copies between different shapes and strides, same-type block-format copies, F32 to every
// block format with a reference quantizer (bytes must equal the quantizer's output for the same rows) and block
// formats back to F32.
#include "kernel_test_util.h"

#include "cpu/kernel.h"

namespace {

using namespace switchyard::kernel_test;

// Checks that dst holds src's values in logical order (after compute at each thread count).
void check_copy(ggml_context * ctx, ggml_tensor * out, const ggml_tensor * src, Tol tol) {
    const std::vector<double> want = values(src);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        int64_t k = 0;
        expect_all_near(out, [&](int64_t, int64_t, int64_t, int64_t) { return want[static_cast<size_t>(k++)]; }, tol);
    }
}

TEST(CopyKernels, ConversionsBetweenFloatTypes) {
    std::mt19937    rng(1);
    const ggml_type types[] = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16};
    for (ggml_type from : types) {
        for (ggml_type to : types) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_3d(ctx, from, 300, 3, 2);
            fill(a, rng, -3.0, 3.0);
            ggml_tensor * out = ggml_cast(ctx, a, to);
            SCOPED_TRACE(std::string(ggml_type_name(from)) + " -> " + ggml_type_name(to));
            check_copy(ctx, out, a, tol_for(to));
        }
    }
}

TEST(CopyKernels, I32AndF32) {
    Ctx           ctx;
    ggml_tensor * f = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 6);
    ggml_tensor * i = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 6);
    const double  in[6] = {2.7, -2.7, 0.0, 123456.0, -1.0, 0.5};
    for (int64_t k = 0; k < 6; ++k) {
        set(f, in[k], k);
        set(i, static_cast<double>(k * 1000 - 2500), k);
    }
    ggml_tensor * to_i = ggml_cast(ctx, f, GGML_TYPE_I32);
    ggml_tensor * to_f = ggml_cast(ctx, i, GGML_TYPE_F32);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, to_i, nt), GGML_STATUS_SUCCESS);
        ASSERT_EQ(compute(ctx, to_f, nt), GGML_STATUS_SUCCESS);
        const double truncated[6] = {2, -2, 0, 123456, -1, 0};
        for (int64_t k = 0; k < 6; ++k) {
            EXPECT_EQ(get(to_i, k), truncated[k]);
            EXPECT_EQ(get(to_f, k), static_cast<double>(k * 1000 - 2500));
        }
    }
}

TEST(CopyKernels, ContOfPermutedAndTransposed) {
    std::mt19937  rng(2);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 7, 3, 2);
    fill(base, rng);
    ggml_tensor * p = ggml_permute(ctx, base, 2, 0, 3, 1);
    ggml_tensor * t = ggml_transpose(ctx, ggml_reshape_2d(ctx, base, 35, 6));
    check_copy(ctx, ggml_cont(ctx, p), p, tol_for(GGML_TYPE_F32));
    check_copy(ctx, ggml_cont(ctx, t), t, tol_for(GGML_TYPE_F32));
    check_copy(ctx, ggml_dup(ctx, p), p, tol_for(GGML_TYPE_F32));
}

TEST(CopyKernels, DupInPlaceKeepsTheValues) {
    std::mt19937  rng(7);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 40, 3);
    fill(a, rng);
    ggml_tensor * out = ggml_dup_inplace(ctx, a);
    ASSERT_EQ(out->data, a->data);
    check_copy(ctx, out, a, tol_for(GGML_TYPE_F32));
}

TEST(CopyKernels, CpyBetweenDifferentShapesAndStrides) {
    std::mt19937  rng(3);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 6, 4, 2);
    fill(base, rng);
    ggml_tensor * src  = ggml_permute(ctx, base, 1, 2, 0, 3);                // [2, 6, 4], scattered
    ggml_tensor * big  = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 10, 6);
    ggml_tensor * dst  = ggml_view_2d(ctx, big, 8, 6, big->nb[1], 2 * big->nb[0]); // [8, 6] inside padded rows
    fill(big, rng, 100.0, 101.0);
    ggml_tensor * out = ggml_cpy(ctx, src, dst);
    check_copy(ctx, out, src, tol_for(GGML_TYPE_F16));
    for (int64_t i1 = 0; i1 < 6; ++i1) { // the padding columns are untouched
        EXPECT_GE(get(big, 0, i1), 100.0);
        EXPECT_GE(get(big, 1, i1), 100.0);
    }
}

// Types with a reference quantizer / a decoder.
std::vector<ggml_type> block_types(bool need_encoder) {
    std::vector<ggml_type> out;
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const auto *       tt = ggml_get_type_traits(static_cast<ggml_type>(t));
        const bool ok = tt && tt->is_quantized && tt->to_float && (!need_encoder || tt->from_float_ref);
        if (ok && tt->blck_size <= 256) {
            out.push_back(static_cast<ggml_type>(t));
        }
    }
    return out;
}

TEST(CopyKernels, F32ToEveryBlockFormatMatchesTheQuantizer) {
    std::mt19937 rng(4);
    const auto   types = block_types(true);
    ASSERT_FALSE(types.empty());
    for (ggml_type type : types) {
        Ctx           ctx;
        const int64_t ne0 = 512, ne1 = 3;
        ggml_tensor * base = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne1, ne0);
        fill(base, rng, -2.0, 2.0);
        ggml_tensor * src = ggml_transpose(ctx, base); // [512, 3], elements 12 bytes apart
        ggml_tensor * out = ggml_cast(ctx, src, type);
        std::vector<float> flat;
        for (double v : values(src)) {
            flat.push_back(static_cast<float>(v));
        }
        std::vector<char> want(ggml_row_size(type, ne0) * ne1);
        for (int64_t r = 0; r < ne1; ++r) {
            ggml_get_type_traits(type)->from_float_ref(flat.data() + r * ne0, want.data() + r * ggml_row_size(type, ne0), ne0);
        }
        SCOPED_TRACE(ggml_type_name(type));
        for (int nt : thread_counts()) {
            ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
            EXPECT_EQ(std::memcmp(out->data, want.data(), want.size()), 0);
        }
    }
}

TEST(CopyKernels, BlockFormatsToF32AndF16) {
    std::mt19937 rng(5);
    for (ggml_type type : block_types(false)) {
        for (ggml_type to : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx           ctx;
            const int64_t bs  = ggml_blck_size(type);
            ggml_tensor * src = ggml_new_tensor_2d(ctx, type, 2 * bs, 3);
            // valid blocks (random bytes may hold NaN scales): a quantizer's output, or zero blocks
            const auto * tt = ggml_get_type_traits(type);
            std::vector<float> x = random_floats(rng, 6 * bs);
            if (tt->from_float_ref) {
                tt->from_float_ref(x.data(), src->data, 6 * bs);
            } else {
                std::memset(src->data, 0, ggml_nbytes(src));
            }
            std::vector<float> decoded(static_cast<size_t>(6 * bs));
            tt->to_float(src->data, decoded.data(), 6 * bs);
            ggml_tensor * dst = ggml_new_tensor_3d(ctx, to, bs / 2 > 0 ? bs / 2 : 1, 4, 3); // other shape
            ASSERT_EQ(ggml_nelements(dst), 6 * bs);
            ggml_tensor * out = ggml_cpy(ctx, src, dst);
            SCOPED_TRACE(std::string(ggml_type_name(type)) + " -> " + ggml_type_name(to));
            for (int nt : thread_counts()) {
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                int64_t k = 0;
                expect_all_near(out, [&](int64_t, int64_t, int64_t, int64_t) { return decoded[static_cast<size_t>(k++)]; });
            }
        }
    }
}

TEST(CopyKernels, SameBlockFormatIntoAView) {
    std::mt19937             rng(6);
    Ctx                      ctx;
    ggml_tensor *            src = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 4);
    ggml_tensor *            big = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 10);
    const std::vector<float> x   = random_floats(rng, 64 * 4);
    ggml_get_type_traits(GGML_TYPE_Q4_0)->from_float_ref(x.data(), src->data, 64 * 4);
    std::memset(big->data, 0x11, ggml_nbytes(big));
    ggml_tensor * dst = ggml_view_2d(ctx, big, 64, 4, big->nb[1], 3 * big->nb[1]);
    ggml_tensor * out = ggml_cpy(ctx, src, dst);
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        EXPECT_EQ(std::memcmp(static_cast<char *>(big->data) + 3 * big->nb[1], src->data, ggml_nbytes(src)), 0);
        const auto * bytes = static_cast<const unsigned char *>(big->data);
        EXPECT_EQ(bytes[3 * big->nb[1] - 1], 0x11); // the rows before and after are untouched
        EXPECT_EQ(bytes[7 * big->nb[1]], 0x11);
    }
}

TEST(CopyKernels, SupportsTellsTheTruth) {
    Ctx           ctx;
    ggml_tensor * f = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 2);
    ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 2);
    EXPECT_TRUE(switchyard::cpu::supports_node(ggml_cpy(ctx, f, q)));
    EXPECT_TRUE(switchyard::cpu::supports_node(ggml_cpy(ctx, q, f)));
    ggml_tensor * i8  = ggml_new_tensor_2d(ctx, GGML_TYPE_I8, 64, 2);
    EXPECT_TRUE(switchyard::cpu::supports_node(ggml_cpy(ctx, i8, ggml_new_tensor_2d(ctx, GGML_TYPE_I8, 32, 4))));
    EXPECT_FALSE(switchyard::cpu::supports_node(ggml_cpy(ctx, i8, f))); // I8 is only copied as bytes
}

} // namespace
