// The matrix kernels' fast dequantizers (every ISA table this CPU can run) against the reference to_float of
// the type traits, bit for bit, on blocks of random bytes: every level, every packed scale/min pattern, and
// half-precision scales across the finite range (subnormals and signed zeros included). The IQ grid formats'
// random bytes reach every grid point, sign pattern and sub-scale.
#include "cpu/simd/isa.h"
#include "cpu/kernels/mul_mat/dequant.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using switchyard::cpu::kernels::DequantKernels;

std::vector<const DequantKernels *> tables() {
    std::vector<const DequantKernels *> t;
#if defined(__x86_64__) // the ISA tables exist in x86-64 builds only
    using switchyard::cpu::simd::Isa;
    using switchyard::cpu::simd::isa_supported;
    if (isa_supported(Isa::kAvx2)) {
        t.push_back(&switchyard::cpu::kernels::dequant_kernels_avx2());
    }
    if (isa_supported(Isa::kAvx512)) {
        t.push_back(&switchyard::cpu::kernels::dequant_kernels_avx512());
    }
#endif
    t.push_back(&switchyard::cpu::kernels::dequant_kernels()); // the one the kernels use
    return t;
}

// Byte offsets of the fp16 scale fields in one block (IQ1_M spreads its scale over nibbles: random_blocks).
std::vector<size_t> half_fields(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q4_K:  return {0, 2};
        case GGML_TYPE_Q6_K:  return {208};
        case GGML_TYPE_IQ1_M: return {};
        default:              return {0};
    }
}

// n_blocks random blocks; half fields random but finite (NaN payloads are not what this test is about)
std::vector<uint8_t> random_blocks(ggml_type t, int64_t n_blocks, std::mt19937 & rng) {
    const size_t         bs = ggml_type_size(t);
    std::vector<uint8_t> data(bs * static_cast<size_t>(n_blocks));
    for (auto & b : data) {
        b = static_cast<uint8_t>(rng());
    }
    for (int64_t i = 0; i < n_blocks; ++i) {
        for (size_t off : half_fields(t)) {
            uint16_t h;
            std::memcpy(&h, &data[i * bs + off], sizeof h);
            if (((h >> 10) & 0x1f) == 0x1f) {
                h = static_cast<uint16_t>(h & ~0x4000u);
            }
            if (i % 7 == 3) {
                h = static_cast<uint16_t>(h & 0x83ffu); // subnormal or signed zero
            }
            std::memcpy(&data[i * bs + off], &h, sizeof h);
        }
        if (t == GGML_TYPE_IQ1_M) { // its fp16 scale's bit 14 (top exponent bit) is bit 14 of the last scale word
            data[i * bs + 55] = static_cast<uint8_t>(data[i * bs + 55] & ~0x40u);
        }
    }
    return data;
}

TEST(Dequant, MatchesReferenceBitForBit) {
    std::mt19937 rng(1234);
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_IQ2_XXS,
                        GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S,
                        GGML_TYPE_IQ1_M}) {
        const ggml_type_traits * tt = ggml_get_type_traits(t);
        ASSERT_NE(tt->to_float, nullptr);
        for (int64_t n_blocks : {1, 3, 64}) {
            const auto         data = random_blocks(t, n_blocks, rng);
            const int64_t      n    = n_blocks * tt->blck_size;
            std::vector<float> ref(static_cast<size_t>(n)), got(static_cast<size_t>(n));
            tt->to_float(data.data(), ref.data(), n);
            for (const DequantKernels * k : tables()) {
                const auto fn = switchyard::cpu::kernels::dequant_row(*k, t);
                if (!fn) {
                    continue;
                }
                std::fill(got.begin(), got.end(), -1.0f);
                fn(data.data(), got.data(), n);
                for (int64_t e = 0; e < n; ++e) {
                    uint32_t a, b;
                    std::memcpy(&a, &ref[e], 4);
                    std::memcpy(&b, &got[e], 4);
                    ASSERT_EQ(a, b) << ggml_type_name(t) << " isa " << k->isa << " element " << e << ": " << ref[e]
                                    << " vs " << got[e];
                }
            }
        }
    }
}

TEST(Dequant, OtherTypesHaveNoFastPath) {
    for (const DequantKernels * k : tables()) {
        EXPECT_EQ(switchyard::cpu::kernels::dequant_row(*k, GGML_TYPE_F32), nullptr);
        EXPECT_EQ(switchyard::cpu::kernels::dequant_row(*k, GGML_TYPE_Q5_K), nullptr);
    }
}

} // namespace
