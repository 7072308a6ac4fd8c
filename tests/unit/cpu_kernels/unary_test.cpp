// CPU kernels of the one-input element-wise ops (UNARY, SQR, SQRT, LOG, SIN, COS, LEAKY_RELU, CLAMP, SCALE) and
// GLU, through ggml_graph_compute_with_ctx at 1 and 3 threads, against scalar references: every unary sub-op,
// permuted (non-contiguous) inputs and outputs, in-place execution and F16 / BF16 data.
#include "kernel_test_util.h"
#include "ref_math.h"

#include "cpu/kernel.h"

#include <cstring>

namespace {

using namespace switchyard::kernel_test;

constexpr int64_t kNe0 = 37, kNe1 = 5, kNe2 = 3, kNe3 = 2;

ggml_tensor * new_input(ggml_context * ctx, ggml_type type, std::mt19937 & rng, double lo, double hi) {
    ggml_tensor * a = ggml_new_tensor_4d(ctx, type, kNe0, kNe1, kNe2, kNe3);
    fill(a, rng, lo, hi);
    return a;
}

// Computes out at every thread count and checks out[i] = f(a[i]) (a read before the first compute).
void check_map(ggml_context * ctx, ggml_tensor * a, ggml_tensor * out, const std::function<double(double)> & f) {
    const std::vector<double> src = values(a);
    for (int nt : thread_counts()) {
        if (out->data == a->data) { // in place: restore the input before each run
            int64_t k = 0;
            for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { set(a, src[k++], i0, i1, i2, i3); });
        }
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        int64_t k = 0;
        std::vector<double> want(src.size());
        for (size_t i = 0; i < src.size(); ++i) {
            want[i] = f(src[i]);
        }
        expect_all_near(out, [&](int64_t, int64_t, int64_t, int64_t) { return want[static_cast<size_t>(k++)]; });
    }
}

TEST(UnaryKernels, EveryUnaryOpF32) {
    std::mt19937 rng(1);
    for (int o = 0; o < GGML_UNARY_OP_COUNT; ++o) {
        const auto op = static_cast<ggml_unary_op>(o);
        if (op == GGML_UNARY_OP_XIELU) {
            continue; // parameters of its own: XieluUsesItsParameters
        }
        Ctx           ctx;
        ggml_tensor * a   = new_input(ctx, GGML_TYPE_F32, rng, -4.0, 4.0);
        ggml_tensor * out = ggml_unary(ctx, a, op);
        SCOPED_TRACE(ggml_unary_op_name(op));
        check_map(ctx, a, out, [op](double x) { return ref_unary(op, x); });
    }
}

TEST(UnaryKernels, XieluUsesItsParameters) {
    std::mt19937      rng(2);
    Ctx               ctx;
    ggml_tensor *     a   = new_input(ctx, GGML_TYPE_F32, rng, -3.0, 3.0);
    ggml_tensor *     out = ggml_unary(ctx, a, GGML_UNARY_OP_XIELU);
    const float       prm[4] = {0.8f, 0.6f, 0.5f, -1e-6f}; // alpha_n, alpha_p, beta, eps in op_params[1..4]
    std::memcpy(&out->op_params[1], prm, sizeof(prm));
    check_map(ctx, a, out, [&](double x) { return ref_xielu(x, XieluParams{prm[0], prm[1], prm[2], prm[3]}); });
}

TEST(UnaryKernels, F16AndBF16KeepTheirType) {
    std::mt19937 rng(3);
    for (ggml_type type : {GGML_TYPE_F16, GGML_TYPE_BF16}) {
        for (ggml_unary_op op : {GGML_UNARY_OP_SILU, GGML_UNARY_OP_GELU, GGML_UNARY_OP_NEG, GGML_UNARY_OP_EXP}) {
            Ctx           ctx;
            ggml_tensor * a   = new_input(ctx, type, rng, -3.0, 3.0);
            ggml_tensor * out = ggml_unary(ctx, a, op);
            ASSERT_EQ(out->type, type);
            SCOPED_TRACE(std::string(ggml_type_name(type)) + " " + ggml_unary_op_name(op));
            check_map(ctx, a, out, [op](double x) { return ref_unary(op, x); });
        }
    }
}

TEST(UnaryKernels, PermutedInput) {
    std::mt19937  rng(4);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, kNe0, kNe2, kNe1, kNe3);
    fill(base, rng, -4.0, 4.0);
    ggml_tensor * a   = ggml_permute(ctx, base, 0, 2, 1, 3); // [kNe0, kNe1, kNe2, kNe3], rows out of order
    ggml_tensor * out = ggml_tanh(ctx, a);
    ASSERT_FALSE(ggml_is_contiguous(a));
    check_map(ctx, a, out, [](double x) { return std::tanh(x); });
}

TEST(UnaryKernels, InPlaceOnAPaddedView) {
    std::mt19937  rng(5);
    Ctx           ctx;
    ggml_tensor * base = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 50, 23);
    fill(base, rng, -4.0, 4.0);
    const std::vector<double> before = values(base);
    ggml_tensor * a   = ggml_view_2d(ctx, base, 19, 23, base->nb[1], 3 * sizeof(float)); // columns 3..21
    ggml_tensor * out = ggml_sigmoid_inplace(ctx, a);
    ASSERT_EQ(out->data, a->data);
    check_map(ctx, a, out, ref_sigmoid);
    for (int64_t i1 = 0; i1 < 23; ++i1) { // the elements outside the view are untouched
        for (int64_t i0 : {0, 1, 2, 22, 49}) {
            EXPECT_EQ(get(base, i0, i1), before[static_cast<size_t>(i1 * 50 + i0)]);
        }
    }
}

TEST(UnaryKernels, OneLongRowIsSplitBetweenThreads) {
    std::mt19937 rng(12);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_BF16}) {
        Ctx           ctx;
        ggml_tensor * a = ggml_new_tensor_1d(ctx, type, 5000);
        fill(a, rng, -4.0, 4.0);
        SCOPED_TRACE(ggml_type_name(type));
        check_map(ctx, a, ggml_silu(ctx, a), ref_silu);
    }
}

TEST(UnaryKernels, InPlaceF16) {
    std::mt19937  rng(6);
    Ctx           ctx;
    ggml_tensor * a   = new_input(ctx, GGML_TYPE_F16, rng, -2.0, 2.0);
    ggml_tensor * out = ggml_gelu_inplace(ctx, a);
    check_map(ctx, a, out, ref_gelu);
}

TEST(UnaryKernels, MathOps) {
    std::mt19937 rng(7);
    struct Case {
        const char *                                       name;
        std::function<ggml_tensor *(ggml_context *, ggml_tensor *)> make;
        std::function<double(double)>                      ref;
        double                                             lo;
    };
    const Case cases[] = {
        {"sqr", ggml_sqr, [](double x) { return x * x; }, -3.0},
        {"sqrt", ggml_sqrt, [](double x) { return std::sqrt(x); }, 0.0},
        {"log", ggml_log, [](double x) { return std::log(x); }, 0.01},
        {"sin", ggml_sin, [](double x) { return std::sin(x); }, -3.0},
        {"cos", ggml_cos, [](double x) { return std::cos(x); }, -3.0},
        {"leaky_relu", [](ggml_context * c, ggml_tensor * t) { return ggml_leaky_relu(c, t, 0.1f, false); },
         [](double x) { return x > 0 ? x : 0.1 * x; }, -3.0},
        {"clamp", [](ggml_context * c, ggml_tensor * t) { return ggml_clamp(c, t, -0.5f, 0.75f); },
         [](double x) { return std::max(-0.5, std::min(0.75, x)); }, -3.0},
        {"scale", [](ggml_context * c, ggml_tensor * t) { return ggml_scale(c, t, 2.5f); },
         [](double x) { return 2.5 * x; }, -3.0},
        {"scale_bias", [](ggml_context * c, ggml_tensor * t) { return ggml_scale_bias(c, t, -1.5f, 0.25f); },
         [](double x) { return -1.5 * x + 0.25; }, -3.0},
    };
    for (const Case & c : cases) {
        for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx           ctx;
            ggml_tensor * a = new_input(ctx, type, rng, c.lo, 3.0);
            SCOPED_TRACE(std::string(c.name) + " " + ggml_type_name(type));
            check_map(ctx, a, c.make(ctx, a), c.ref);
        }
    }
}

TEST(UnaryKernels, ScaleInPlace) {
    std::mt19937  rng(8);
    Ctx           ctx;
    ggml_tensor * a   = new_input(ctx, GGML_TYPE_F32, rng, -3.0, 3.0);
    ggml_tensor * out = ggml_scale_inplace(ctx, a, 0.125f);
    check_map(ctx, a, out, [](double x) { return 0.125 * x; });
}

// ---- GLU ----

void check_glu(ggml_context * ctx, ggml_tensor * out, const ggml_tensor * x_src, int64_t x_off,
               const ggml_tensor * g_src, int64_t g_off, ggml_glu_op op, double alpha = 1.702, double limit = 7.0) {
    for (int nt : thread_counts()) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        expect_all_near(out, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
            return ref_glu(op, get(x_src, i0 + x_off, i1, i2, i3), get(g_src, i0 + g_off, i1, i2, i3), alpha, limit);
        });
    }
}

TEST(GluKernels, FusedHalvesAndSwapped) {
    std::mt19937 rng(9);
    for (int o = 0; o < GGML_GLU_OP_COUNT; ++o) {
        const auto op = static_cast<ggml_glu_op>(o);
        for (bool swapped : {false, true}) {
            Ctx           ctx;
            ggml_tensor * a   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 2 * 24, 5, 3);
            fill(a, rng, -4.0, 4.0);
            ggml_tensor * out = op == GGML_GLU_OP_SWIGLU_OAI && !swapped ? ggml_swiglu_oai(ctx, a, nullptr, 1.5f, 2.0f)
                                                                         : ggml_glu(ctx, a, op, swapped);
            ASSERT_EQ(out->ne[0], 24);
            SCOPED_TRACE(std::string(ggml_glu_op_name(op)) + (swapped ? " swapped" : ""));
            const bool oai = op == GGML_GLU_OP_SWIGLU_OAI && !swapped;
            check_glu(ctx, out, a, swapped ? 24 : 0, a, swapped ? 0 : 24, op, oai ? 1.5 : 0.0, oai ? 2.0 : 0.0);
        }
    }
}

TEST(GluKernels, SplitForm) {
    std::mt19937 rng(10);
    for (int o = 0; o < GGML_GLU_OP_COUNT; ++o) {
        const auto    op = static_cast<ggml_glu_op>(o);
        Ctx           ctx;
        ggml_tensor * a  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 300, 3, 2);
        ggml_tensor * b  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 300, 3, 2);
        fill(a, rng, -4.0, 4.0);
        fill(b, rng, -4.0, 4.0);
        // limit 7 (and alpha 1.702) for the two clamped forms: check_glu's defaults
        ggml_tensor * out = op == GGML_GLU_OP_SWIGLU_OAI     ? ggml_swiglu_oai(ctx, a, b, 1.702f, 7.0f)
                            : op == GGML_GLU_OP_SWIGLU_CLAMP ? ggml_swiglu_clamp(ctx, a, b, 7.0f)
                                                             : ggml_glu_split(ctx, a, b, op);
        SCOPED_TRACE(ggml_glu_op_name(op));
        check_glu(ctx, out, a, 0, b, 0, op);
    }
}

TEST(GluKernels, OneLongRow) {
    std::mt19937  rng(13);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2 * 3000);
    fill(a, rng, -3.0, 3.0);
    check_glu(ctx, ggml_geglu_swapped(ctx, a), a, 3000, a, 0, GGML_GLU_OP_GEGLU);
}

TEST(GluKernels, F16) {
    std::mt19937  rng(11);
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 2 * 40, 7);
    fill(a, rng, -3.0, 3.0);
    ggml_tensor * out = ggml_swiglu(ctx, a);
    ASSERT_EQ(out->type, GGML_TYPE_F16);
    check_glu(ctx, out, a, 0, a, 40, GGML_GLU_OP_SWIGLU);
}

TEST(UnaryKernels, SupportsRejectsOtherTypes) {
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32);
    ggml_tensor * out = ggml_relu(ctx, a);
    EXPECT_TRUE(switchyard::cpu::supports_node(out));
    out->type = GGML_TYPE_Q8_0; // a block-format result is not something the kernel writes
    EXPECT_FALSE(switchyard::cpu::supports_node(out));
    out->type = GGML_TYPE_I32;
    EXPECT_FALSE(switchyard::cpu::supports_node(out));
}

} // namespace
