// The matrix-vector kernels (src/cpu/quants/matvec.h), every entry of the table this CPU can run called directly
// (scalar, AVX2, AVX-512, AVX-512 VNNI, AVX-512 BF16): each product equals upstream's product, the dequantized
// weights times the activations converted the way upstream's CPU backend converts them (tools/conformance/reference/
// activations.h, written from upstream's definitions), to float rounding. Rows of several lengths (tails of every
// kind), 1..4 columns, weights quantized from random floats and made of random bytes; results land exactly in
// their slots.
#include "matvec_test_util.h"

#include "cpu/quants/act_quant.h"
#include "cpu/quants/matvec.h"
#include "cpu/simd/isa.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using switchyard::cpu::quants::kMaxCols;
using switchyard::cpu::quants::MatVecArgs;
using switchyard::cpu::quants::MatVecKernel;
using switchyard::cpu::simd::Isa;
using switchyard::isa_level_name;
using switchyard::cpu::simd::isa_supported;
using switchyard::testing::reference::activation_type;
using switchyard::testing::reference::upstream_product;
using namespace switchyard::matvec_test;

// Row lengths: one block, odd block counts, a multiple of every kernel's group, long rows past a kernel's chunk.
std::vector<int64_t> lengths(ggml_type type) {
    if (ggml_blck_size(type) == 256) {
        return {256, 768, 1280, 4096, 8448};
    }
    if (ggml_blck_size(type) == 32) {
        return {32, 96, 160, 4096, 4192, 8224};
    }
    if (ggml_is_quantized(type)) { // q1_0 (128), q2_0 and nvfp4 (64)
        const int64_t b = ggml_blck_size(type);
        return {b, 3 * b, 4096, 4096 + b, 8192 + 3 * b};
    }
    return {1, 7, 64, 100, 4096, 4111};
}

// The levels this CPU runs that have a kernel of their own for `type`.
std::vector<Isa> levels_with_kernel(ggml_type type) {
    std::vector<Isa> out;
    for (size_t i = 0; i < switchyard::cpu::simd::kIsaCount; ++i) {
        const auto isa = static_cast<Isa>(i);
        if (isa_supported(isa) && switchyard::cpu::quants::matvec_entry(type, isa).fn != nullptr) {
            out.push_back(isa);
        }
    }
    return out;
}

// Runs entry k on `rows` weight rows and `cols` activation columns (converted with the entry's converter) and
// checks every result against upstream's product; results go to a grid with spare slots, which must stay as
// they were.
void check_products(const MatVecKernel & k, ggml_type type, const std::vector<uint8_t> & w, int64_t rows, int64_t len,
                    int cols, std::mt19937 & rng, const std::string & what) {
    const size_t                    w_row = ggml_row_size(type, len);
    const size_t                    a_col = k.act_row_bytes(len) + 8; // columns not back to back
    std::vector<std::vector<float>> x;
    std::vector<uint8_t>            act(a_col * static_cast<size_t>(cols), 0xcd);
    for (int c = 0; c < cols; ++c) {
        x.push_back(normal_floats(rng, len));
        k.convert(x.back().data(), act.data() + static_cast<size_t>(c) * a_col, len);
    }
    const int64_t      out_row = cols + 1, out_col = 1;
    std::vector<float> out(static_cast<size_t>(rows * out_row), -12345.0f);
    MatVecArgs         a{len, w.data(), w_row, rows, act.data(), a_col, cols, out.data(), out_row, out_col};
    k.fn(a);
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t * row = w.data() + static_cast<size_t>(r) * w_row;
        for (int c = 0; c < cols; ++c) {
            const double want = upstream_product(type, row, x[c].data(), len);
            const double got  = out[static_cast<size_t>(r * out_row + c)];
            ASSERT_NEAR(got, want, tolerance(type, row, x[c].data(), len))
                << what << " row " << r << " column " << c << " of " << cols;
        }
        ASSERT_EQ(out[static_cast<size_t>(r * out_row + cols)], -12345.0f) << what << ": wrote past its columns";
    }
}

std::string describe(ggml_type type, Isa isa, int64_t len) {
    return std::string(ggml_type_name(type)) + " " + isa_level_name(isa) + " k=" + std::to_string(len);
}

TEST(MatVecTable, ActivationFormatsAreUpstreams) {
    // upstream's ggml-cpu.c type_traits_cpu[].vec_dot_type
    const std::vector<std::pair<ggml_type, ggml_type>> want = {
        {GGML_TYPE_F32, GGML_TYPE_F32},     {GGML_TYPE_F16, GGML_TYPE_F16},     {GGML_TYPE_BF16, GGML_TYPE_BF16},
        {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0},   {GGML_TYPE_Q4_1, GGML_TYPE_Q8_1},   {GGML_TYPE_Q5_0, GGML_TYPE_Q8_0},
        {GGML_TYPE_Q5_1, GGML_TYPE_Q8_1},   {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0},   {GGML_TYPE_Q2_K, GGML_TYPE_Q8_K},
        {GGML_TYPE_Q3_K, GGML_TYPE_Q8_K},   {GGML_TYPE_Q4_K, GGML_TYPE_Q8_K},   {GGML_TYPE_Q5_K, GGML_TYPE_Q8_K},
        {GGML_TYPE_Q6_K, GGML_TYPE_Q8_K},   {GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0}, {GGML_TYPE_MXFP4, GGML_TYPE_Q8_0},
    };
    for (const auto & [weight, act] : want) {
        SCOPED_TRACE(ggml_type_name(weight));
        EXPECT_EQ(switchyard::cpu::quants::act_type_for(weight), act);
        EXPECT_EQ(ggml_get_type_traits_cpu(weight)->vec_dot_type, act);
        const MatVecKernel & k = switchyard::cpu::quants::matvec_kernel(weight);
        EXPECT_EQ(k.act_type, act);
        EXPECT_NE(k.fn, nullptr);
        EXPECT_NE(switchyard::cpu::quants::matvec_entry(weight, Isa::kScalar).fn, nullptr) << "no scalar kernel";
    }
    EXPECT_EQ(switchyard::cpu::quants::matvec_kernel(GGML_TYPE_Q8_K).fn, nullptr);
    EXPECT_EQ(switchyard::cpu::quants::matvec_kernel(GGML_TYPE_I32).fn, nullptr);
}

// The kernels read every activation format in its own bytes, except f16 on the AVX-512 levels, where it arrives
// as f32 holding the f16 values (each value rounded to f16 and back, as the scalar conversions do it, bit for bit;
// ties to even). Every level that has an f16 kernel is asked, this machine's or not.
TEST(MatVecTable, F16ActivationsArriveAsF32HoldingF16ValuesOnAvx512) {
    for (size_t i = 0; i < switchyard::cpu::simd::kIsaCount; ++i) {
        const auto isa = static_cast<Isa>(i);
        const bool wide = isa == Isa::kAvx512 || isa == Isa::kAvx512Vnni || isa == Isa::kAvx512Bf16 || isa == Isa::kAmx;
        EXPECT_EQ(switchyard::cpu::quants::act_layout_for(GGML_TYPE_F16, isa), wide ? GGML_TYPE_F32 : GGML_TYPE_F16)
            << isa_level_name(isa);
        for (ggml_type act : {GGML_TYPE_F32, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K}) {
            EXPECT_EQ(switchyard::cpu::quants::act_layout_for(act, isa), act) << isa_level_name(isa);
        }
        if (isa_supported(isa) && switchyard::cpu::quants::matvec_entry(GGML_TYPE_F16, isa).fn != nullptr) {
            const MatVecKernel k = switchyard::cpu::quants::matvec_entry(GGML_TYPE_F16, isa);
            EXPECT_EQ(k.act_layout, wide ? GGML_TYPE_F32 : GGML_TYPE_F16) << isa_level_name(isa);
            EXPECT_EQ(k.act_row_bytes(96), 96 * (wide ? sizeof(float) : sizeof(uint16_t))) << isa_level_name(isa);
        }
    }
    std::mt19937       rng(15);
    std::vector<float> x = normal_floats(rng, 300, 100.0f);
    x[0] = 1.0f + 1.0f / 2048; // halfway between two f16 values: ties to even (1.0)
    x[1] = 1.0f + 3.0f / 2048; // halfway: to even (1 + 2 / 1024)
    x[2] = 70000.0f;           // beyond f16's range: infinity
    std::vector<float> y(x.size(), -1.0f);
    switchyard::cpu::quants::act_widen_f16(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(y[i], ggml_fp16_to_fp32(ggml_fp32_to_fp16(x[i]))) << "element " << i << " of " << x[i];
    }
    EXPECT_EQ(y[0], 1.0f);
    EXPECT_EQ(y[1], 1.0f + 2.0f / 1024);
    EXPECT_TRUE(std::isinf(y[2]));
}

TEST(MatVecKernels, EveryLevelGivesUpstreamsProductOfQuantizedWeights) {
    std::mt19937 rng(11);
    for (ggml_type type : weight_types()) {
        for (Isa isa : levels_with_kernel(type)) {
            const MatVecKernel k = switchyard::cpu::quants::matvec_entry(type, isa);
            for (int64_t len : lengths(type)) {
                const int64_t              rows = 5;
                const std::vector<uint8_t> w    = quantized_rows(type, rows, len, rng);
                for (int cols = 1; cols <= kMaxCols; ++cols) {
                    check_products(k, type, w, rows, len, cols, rng, describe(type, isa, len));
                }
            }
        }
    }
}

TEST(MatVecKernels, EveryLevelGivesUpstreamsProductOfRandomBlocks) {
    std::mt19937 rng(12);
    for (ggml_type type : weight_types()) {
        if (!ggml_is_quantized(type)) {
            continue;
        }
        for (Isa isa : levels_with_kernel(type)) {
            const MatVecKernel k = switchyard::cpu::quants::matvec_entry(type, isa);
            for (int64_t len : lengths(type)) {
                const std::vector<uint8_t> w = random_block_rows(type, 3, len, rng);
                check_products(k, type, w, 3, len, 1 + static_cast<int>(len % kMaxCols), rng, describe(type, isa, len));
            }
        }
    }
}

// Every level reads only the bytes of its rows: the last row ends where the memory does (a guard page would
// catch an over-read; here the rows sit at the very end of an exactly sized vector, checked under ASan).
TEST(MatVecKernels, RowsAtTheEndOfTheirMemory) {
    std::mt19937 rng(13);
    for (ggml_type type : weight_types()) {
        for (Isa isa : levels_with_kernel(type)) {
            const MatVecKernel k   = switchyard::cpu::quants::matvec_entry(type, isa);
            const int64_t      len = ggml_blck_size(type) >= 64 ? 2 * ggml_blck_size(type) : 96;
            const auto         w   = quantized_rows(type, 1, len, rng);
            const auto         x   = normal_floats(rng, len);
            std::vector<uint8_t> act(k.act_row_bytes(len));
            k.convert(x.data(), act.data(), len);
            float      out = 0.0f;
            MatVecArgs a{len, w.data(), w.size(), 1, act.data(), act.size(), 1, &out, 1, 1};
            k.fn(a);
            EXPECT_NEAR(out, upstream_product(type, w.data(), x.data(), len), tolerance(type, w.data(), x.data(), len))
                << describe(type, isa, len);
        }
    }
}

// ggml_get_type_traits_cpu gives the same kernels and converters to programs that call vec_dot themselves, used
// as upstream's own programs use it (test-quantize-fns): the activations converted by the entry of vec_dot_type.
TEST(MatVecTable, TypeTraitsCpuVecDotIsUpstreamsProduct) {
    std::mt19937 rng(14);
    for (ggml_type type : weight_types()) {
        SCOPED_TRACE(ggml_type_name(type));
        const ggml_type_traits_cpu * tt  = ggml_get_type_traits_cpu(type);
        const int64_t                len = 512;
        const auto                   w   = quantized_rows(type, 1, len, rng);
        const auto                   x   = normal_floats(rng, len);
        std::vector<uint8_t>         act(ggml_row_size(tt->vec_dot_type, len));
        ggml_get_type_traits_cpu(tt->vec_dot_type)->from_float(x.data(), act.data(), len);
        float s = 0.0f;
        tt->vec_dot(static_cast<int>(len), &s, 0, w.data(), 0, act.data(), 0, 1);
        EXPECT_NEAR(s, upstream_product(type, w.data(), x.data(), len), tolerance(type, w.data(), x.data(), len));
        EXPECT_EQ(activation_type(type) == GGML_TYPE_F32 ? GGML_TYPE_F32 : activation_type(type), tt->vec_dot_type);
    }
}

} // namespace
