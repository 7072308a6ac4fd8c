// CPU kernels of SET, REPEAT, CONCAT, PAD, ARANGE and TIMESTEP_EMBEDDING through ggml_graph_compute_with_ctx at
// 1 and 3 threads, against references written out index by index.
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

// SET: b written into the view (nb1, offset) of a copy of a / of a itself.
void check_set(bool inplace, ggml_type type) {
    std::mt19937  rng(1);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 8, 6, 2);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, type, 3, 4);
    fill(a, rng, -5.0, 5.0);
    fill(b, rng, -5.0, 5.0);
    const std::vector<double> av     = values(a);
    const size_t              offset = 4 * a->nb[0] + 1 * a->nb[1] + 1 * a->nb[2];
    ggml_tensor * out = inplace ? ggml_set_inplace(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset)
                                : ggml_set(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset);
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t) {
        const bool in = i2 == 1 && i1 >= 1 && i1 < 5 && i0 >= 4 && i0 < 7;
        return in ? get(b, i0 - 4, i1 - 1) : av[static_cast<size_t>((i2 * 6 + i1) * 8 + i0)];
    });
    if (!inplace) {
        EXPECT_EQ(values(a), av); // the source is left alone
    }
}

TEST(LayoutKernels, Set) { check_set(false, GGML_TYPE_F32); }
TEST(LayoutKernels, SetInPlace) { check_set(true, GGML_TYPE_F32); }
TEST(LayoutKernels, SetI32) { check_set(false, GGML_TYPE_I32); }

TEST(LayoutKernels, Set1d) {
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 3);
    for (int64_t i = 0; i < 10; ++i) {
        set(a, static_cast<double>(i), i);
    }
    for (int64_t i = 0; i < 3; ++i) {
        set(b, -1.0 - static_cast<double>(i), i);
    }
    check(ctx, ggml_set_1d(ctx, a, b, 5 * sizeof(float)), [](int64_t i0, int64_t, int64_t, int64_t) {
        return i0 >= 5 && i0 < 8 ? -1.0 - static_cast<double>(i0 - 5) : static_cast<double>(i0);
    });
}

TEST(LayoutKernels, RepeatInEveryDimension) {
    std::mt19937 rng(2);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_I32}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_3d(ctx, type, 3, 1, 2);
        fill(a, rng, -10.0, 10.0);
        ggml_tensor * out = ggml_repeat_4d(ctx, a, 6, 4, 2, 3);
        SCOPED_TRACE(ggml_type_name(type));
        check(ctx, out, [&](int64_t i0, int64_t, int64_t i2, int64_t) { return get(a, i0 % 3, 0, i2 % 2); });
    }
}

TEST(LayoutKernels, RepeatOfAPermutedSource) {
    std::mt19937  rng(3);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 5);
    fill(base, rng);
    ggml_tensor * a   = ggml_transpose(ctx, base); // [5, 2]
    ggml_tensor * out = ggml_repeat_4d(ctx, a, 10, 4, 1, 1);
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t, int64_t) { return get(a, i0 % 5, i1 % 2); });
}

TEST(LayoutKernels, ConcatAlongEachDimension) {
    std::mt19937 rng(4);
    for (int dim = 0; dim < 4; ++dim) {
        for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx     ctx;
            int64_t na[4] = {4, 3, 2, 2}, nb[4] = {4, 3, 2, 2};
            nb[dim]       = 5;
            ggml_tensor * a = ggml_new_tensor(ctx, type, 4, na);
            ggml_tensor * b = ggml_new_tensor(ctx, type, 4, nb);
            fill(a, rng);
            fill(b, rng);
            ggml_tensor * out = ggml_concat(ctx, a, b, dim);
            SCOPED_TRACE("dim " + std::to_string(dim) + " " + ggml_type_name(type));
            check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                int64_t i[4] = {i0, i1, i2, i3};
                if (i[dim] < na[dim]) {
                    return get(a, i0, i1, i2, i3);
                }
                i[dim] -= na[dim];
                return get(b, i[0], i[1], i[2], i[3]);
            });
        }
    }
}

TEST(LayoutKernels, ConcatOfPermutedInputs) {
    std::mt19937  rng(5);
    Ctx           ctx;
    ggml_tensor * abase = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 7);
    ggml_tensor * b     = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 2);
    fill(abase, rng);
    fill(b, rng);
    ggml_tensor * a   = ggml_transpose(ctx, abase); // [7, 3]
    ggml_tensor * out = ggml_concat(ctx, a, b, 1);
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t, int64_t) { return i1 < 3 ? get(a, i0, i1) : get(b, i0, i1 - 3); });
}

TEST(LayoutKernels, ConcatOfBlockFormatRows) {
    std::mt19937  rng(6);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 2);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 3);
    const auto *  tt = ggml_get_type_traits(GGML_TYPE_Q8_0);
    tt->from_float_ref(random_floats(rng, 128).data(), a->data, 128);
    tt->from_float_ref(random_floats(rng, 192).data(), b->data, 192);
    for (int dim : {0, 1}) {
        ggml_tensor * out = dim == 0 ? ggml_concat(ctx, a, ggml_view_2d(ctx, b, 64, 2, b->nb[1], 0), 0)
                                     : ggml_concat(ctx, a, b, 1);
        for (int nt : thread_counts()) {
            ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
            const size_t row = ggml_row_size(GGML_TYPE_Q8_0, 64);
            for (int64_t r = 0; r < (dim == 0 ? 2 : 5); ++r) {
                const char * got = static_cast<const char *>(out->data) + r * out->nb[1];
                if (dim == 0) { // row r = a row r then b row r
                    EXPECT_EQ(std::memcmp(got, static_cast<const char *>(a->data) + r * row, row), 0);
                    EXPECT_EQ(std::memcmp(got + row, static_cast<const char *>(b->data) + r * row, row), 0);
                } else {
                    const char * want = r < 2 ? static_cast<const char *>(a->data) + r * row
                                              : static_cast<const char *>(b->data) + (r - 2) * row;
                    EXPECT_EQ(std::memcmp(got, want, row), 0) << "row " << r;
                }
            }
        }
    }
}

// PAD: element of a at i - lp when inside, else 0 (or a at (i - lp) mod ne when circular)
double pad_ref(const ggml_tensor * a, const int lp[4], bool circular, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    int64_t i[4] = {i0 - lp[0], i1 - lp[1], i2 - lp[2], i3 - lp[3]};
    for (int k = 0; k < 4; ++k) {
        if (circular) {
            i[k] = ((i[k] % a->ne[k]) + a->ne[k]) % a->ne[k];
        } else if (i[k] < 0 || i[k] >= a->ne[k]) {
            return 0.0;
        }
    }
    return get(a, i[0], i[1], i[2], i[3]);
}

TEST(LayoutKernels, PadAtTheEnd) {
    std::mt19937  rng(7);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 3, 2);
    fill(a, rng, 1.0, 2.0);
    ggml_tensor * out  = ggml_pad(ctx, a, 2, 1, 0, 1);
    const int     lp[4] = {0, 0, 0, 0};
    ASSERT_EQ(out->ne[0], 7);
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { return pad_ref(a, lp, false, i0, i1, i2, i3); });
}

TEST(LayoutKernels, PadExtBothSidesAndPermuted) {
    std::mt19937  rng(8);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 3, 5, 2);
    fill(base, rng, 1.0, 2.0);
    ggml_tensor * a    = ggml_permute(ctx, base, 1, 0, 2, 3); // [5, 3, 2]
    ggml_tensor * out  = ggml_pad_ext(ctx, a, 1, 2, 0, 1, 2, 0, 1, 1);
    const int     lp[4] = {1, 0, 2, 1};
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { return pad_ref(a, lp, false, i0, i1, i2, i3); });
}

TEST(LayoutKernels, PadCircular) {
    std::mt19937  rng(9);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 4, 3);
    fill(a, rng, 1.0, 2.0);
    ggml_tensor * out = ggml_pad_ext(ctx, a, 3, 6, 2, 1, 0, 0, 0, 0);
    out->op_params[8] = 1; // circular
    const int lp[4]   = {3, 2, 0, 0};
    check(ctx, out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { return pad_ref(a, lp, true, i0, i1, i2, i3); });
}

TEST(LayoutKernels, Arange) {
    Ctx           ctx;
    ggml_tensor * out = ggml_arange(ctx, 1.5f, 9.0f, 0.75f);
    ASSERT_EQ(out->ne[0], 10);
    check(ctx, out, [](int64_t i0, int64_t, int64_t, int64_t) { return 1.5 + 0.75 * static_cast<double>(i0); });
}

TEST(LayoutKernels, TimestepEmbeddingEvenAndOddDim) {
    for (int dim : {8, 7}) {
        Ctx           ctx;
        ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 3);
        set(t, 0.0, 0);
        set(t, 1.5, 1);
        set(t, 100.0, 2);
        ggml_tensor * out  = ggml_timestep_embedding(ctx, t, dim, 10000);
        const int     half = dim / 2;
        SCOPED_TRACE("dim " + std::to_string(dim));
        check(ctx, out, [&](int64_t i0, int64_t i1, int64_t, int64_t) {
            if (i0 >= 2 * half) {
                return 0.0;
            }
            const int64_t j    = i0 < half ? i0 : i0 - half;
            const double  freq = std::exp(-std::log(10000.0) * static_cast<double>(j) / half);
            const double  arg  = get(t, i1) * freq;
            return i0 < half ? std::cos(arg) : std::sin(arg);
        });
    }
}

} // namespace
