// The activation conversion of the matrix-vector path (src/cpu/quants/act_quant.h): the bytes upstream's CPU
// backend writes on x86 (tools/conformance/reference/activations.h states them from upstream's definitions), q8_K
// exactly our src/quant reference quantizer, and q8_0 / q8_1 apart from that reference only where upstream's x86
// rounding differs from its reference rounding (a level one apart, at a rounding tie).
#include "matvec_test_util.h"
#include "quant/formats.h"

#include "cpu/quants/act_quant.h"
#include "cpu/simd/isa.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using switchyard::cpu::quants::act_converter;
using switchyard::testing::reference::convert_activations;
using namespace switchyard::matvec_test;

// Random rows plus the cases that decide the rounding: all zeros, one non-zero, exact ties of x * 127 / amax
// (amax = 127: x * id = x), values at the clamp, tiny and huge magnitudes.
std::vector<float> activations(std::mt19937 & rng, int64_t k) {
    std::vector<float> x = normal_floats(rng, k);
    for (int j = 0; j < 32; ++j) {
        x[j] = 0.0f;                                              // block 0: zeros
        x[32 + j] = j == 5 ? -3.0f : 0.0f;                        // block 1: one value
        x[64 + j] = j == 0 ? 127.0f : static_cast<float>(j) + 0.5f; // block 2: ties at amax = 127
        x[96 + j] = (j % 2 ? 1e-30f : -1e-30f) * static_cast<float>(j + 1); // block 3: tiny
        x[128 + j] = (j % 2 ? 3e30f : -2e30f) * static_cast<float>(j + 1);  // block 4: huge
    }
    return x;
}

TEST(ActivationQuant, BytesAreUpstreamsForEveryFormat) {
    std::mt19937 rng(21);
    for (ggml_type act : {GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        SCOPED_TRACE(ggml_type_name(act));
        for (int64_t k : {256, 4096, 8448}) {
            const std::vector<float>   x    = activations(rng, k);
            const std::vector<uint8_t> want = convert_activations(act, x.data(), k);
            std::vector<uint8_t>       got(want.size(), 0xcd);
            act_converter(act)(x.data(), got.data(), k);
            ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << "k=" << k;
            // and the converter programs reach through ggml_get_type_traits_cpu: the entry of the weight's
            // vec_dot_type, as upstream's programs take it
            const ggml_type weight = act == GGML_TYPE_Q8_1 ? GGML_TYPE_Q4_1
                                   : act == GGML_TYPE_Q8_K ? GGML_TYPE_Q4_K
                                   : act == GGML_TYPE_Q8_0 ? GGML_TYPE_Q4_0
                                                           : act;
            std::fill(got.begin(), got.end(), 0xcd);
            ggml_get_type_traits_cpu(ggml_get_type_traits_cpu(weight)->vec_dot_type)->from_float(x.data(), got.data(), k);
            ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << "from_float, k=" << k;
        }
    }
}

TEST(ActivationQuant, Q8KIsTheReferenceQuantizer) {
    std::mt19937               rng(22);
    const int64_t              k = 4096;
    const std::vector<float>   x = activations(rng, k);
    std::vector<uint8_t>       got(ggml_row_size(GGML_TYPE_Q8_K, k)), want(got.size());
    act_converter(GGML_TYPE_Q8_K)(x.data(), got.data(), k);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_Q8_K)(x.data(), want.data(), k);
    EXPECT_EQ(got, want);
}

// The AVX-512 q8_K quantizer (where the CPU has it) against the reference, byte for byte, on blocks chosen for
// the edges: equal |x| of both signs (the first one sets the sign of the scale), NaN and infinities, all-zero and
// all-NaN blocks, subnormals, levels at exact ties of the rounding, one huge value, and random blocks.
TEST(ActivationQuant, Q8KVectorQuantizerIsTheReferenceOnEdgeBlocks) {
#if defined(__x86_64__)
    if (!switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAvx512)) {
        GTEST_SKIP() << "no AVX-512";
    }
    constexpr int64_t               kBlock = 256;
    std::mt19937                    rng(24);
    std::vector<std::vector<float>> blocks;
    auto random_block = [&] { return activations(rng, kBlock); };
    for (int i = 0; i < 8; ++i) {
        blocks.push_back(random_block());
    }
    std::vector<float> b(kBlock, 0.0f);
    blocks.push_back(b); // all zero
    b[3] = -2.0f, b[200] = 2.0f; // equal |x|, the negative one first
    blocks.push_back(b);
    b[3] = 2.0f, b[200] = -2.0f;
    blocks.push_back(b);
    b = random_block();
    b[17] = NAN, b[100] = -NAN;
    blocks.push_back(b);
    b[40] = INFINITY;
    blocks.push_back(b);
    b[40] = -INFINITY, b[41] = INFINITY;
    blocks.push_back(b);
    blocks.push_back(std::vector<float>(kBlock, NAN));
    b.assign(kBlock, 1e-40f); // subnormals
    b[9] = -3e-39f;
    blocks.push_back(b);
    for (int64_t i = 0; i < kBlock; ++i) { // iscale = 1: levels at exact halves (ties to even) and clamps
        b[static_cast<size_t>(i)] = static_cast<float>(i - 128) * 0.5f;
    }
    b[0] = -127.0f;
    blocks.push_back(b);
    b = random_block();
    b[255] = 3e38f;
    blocks.push_back(b);
    std::vector<float> x;
    for (const auto & blk : blocks) {
        x.insert(x.end(), blk.begin(), blk.end());
    }
    const int64_t        k = static_cast<int64_t>(x.size());
    std::vector<uint8_t> got(ggml_row_size(GGML_TYPE_Q8_K, k)), want(got.size());
    switchyard::cpu::quants::act_quantize_q8_K_avx512(x.data(), got.data(), k);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_Q8_K)(x.data(), want.data(), k);
    const size_t bb = ggml_type_size(GGML_TYPE_Q8_K);
    for (size_t i = 0; i < blocks.size(); ++i) {
        EXPECT_EQ(std::memcmp(got.data() + i * bb, want.data() + i * bb, bb), 0) << "block " << i;
    }
#else
    GTEST_SKIP() << "x86-64 only";
#endif
}

// q8_0: the scale is the reference's; a level differs from the reference's (x / d rounded half away from zero)
// only by one, where the two roundings straddle a tie. Block 2 holds exact ties: 1.5 becomes 2 both ways, 2.5
// becomes 2 here (to even) and 3 in the reference.
TEST(ActivationQuant, Q8_0DiffersFromTheReferenceOnlyAtTies) {
    std::mt19937             rng(23);
    const int64_t            k = 1 << 16;
    const std::vector<float> x = activations(rng, k);
    std::vector<uint8_t>     got(ggml_row_size(GGML_TYPE_Q8_0, k)), ref(got.size());
    act_converter(GGML_TYPE_Q8_0)(x.data(), got.data(), k);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_Q8_0)(x.data(), ref.data(), k);
    int64_t differing = 0;
    for (int64_t b = 0; b < k / 32; ++b) {
        const uint8_t * g = got.data() + b * 34;
        const uint8_t * r = ref.data() + b * 34;
        ASSERT_EQ(std::memcmp(g, r, 2), 0) << "scale of block " << b;
        for (int j = 0; j < 32; ++j) {
            const int gl = static_cast<int8_t>(g[2 + j]), rl = static_cast<int8_t>(r[2 + j]);
            if (gl != rl) {
                ASSERT_EQ(std::abs(gl - rl), 1) << "block " << b << " element " << j;
                ++differing;
            }
        }
    }
    // block 2: 2.5, 4.5, ..., 30.5 (15 ties that round down to even) ; random data: a few in 10^6
    EXPECT_GE(differing, 15);
    EXPECT_LE(differing, 15 + 10);
    const int8_t level_2_5 = static_cast<int8_t>(got[2 * 34 + 2 + 2]);
    EXPECT_EQ(level_2_5, 2);
}

} // namespace
