// Shared by the matrix-vector tests: random weight rows of every supported type (quantized from random floats, or
// random bytes with finite scales so that every level and packed scale pattern occurs), the weight types, and the
// tolerance of a product: float rounding of the sums, relative to the sum of |w_i * a_i|.
#pragma once

#include "conformance/reference/activations.h"

#include "cpu/quants/gemm.h"

#include "ggml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace switchyard::matvec_test {

// Every weight type with a matrix-vector kernel.
inline const std::vector<ggml_type> & weight_types() {
    static const std::vector<ggml_type> types = {
        GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0,
        GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,
        GGML_TYPE_Q6_K, GGML_TYPE_IQ4_NL, GGML_TYPE_MXFP4, GGML_TYPE_IQ4_XS, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS,
        GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M, GGML_TYPE_TQ1_0,
        GGML_TYPE_TQ2_0, GGML_TYPE_Q1_0, GGML_TYPE_Q2_0, GGML_TYPE_NVFP4,
    };
    return types;
}

// The weight types among them with an integer GEMM form (cpu/quants/gemm.h).
inline std::vector<ggml_type> gemm_types() {
    std::vector<ggml_type> out;
    for (ggml_type t : weight_types()) {
        if (switchyard::cpu::quants::gemm_format(t).act_type != GGML_TYPE_COUNT) {
            out.push_back(t);
        }
    }
    return out;
}

inline std::vector<float> normal_floats(std::mt19937 & rng, int64_t n, float sigma = 1.0f) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float>              v(static_cast<size_t>(n));
    for (float & x : v) {
        x = dist(rng);
    }
    return v;
}

inline std::vector<uint8_t> random_block_rows(ggml_type type, int64_t rows, int64_t k, std::mt19937 & rng);

// rows x k weights of `type`, rows back to back: quantized from normal floats; random blocks (random_block_rows) for
// the types without a quantizer (the grid formats).
inline std::vector<uint8_t> quantized_rows(ggml_type type, int64_t rows, int64_t k, std::mt19937 & rng) {
    if (ggml_is_quantized(type) && ggml_get_type_traits(type)->from_float_ref == nullptr) {
        return random_block_rows(type, rows, k, rng);
    }
    const std::vector<float> x = normal_floats(rng, rows * k);
    std::vector<uint8_t>     out(ggml_row_size(type, k) * static_cast<size_t>(rows));
    switch (type) {
        case GGML_TYPE_F32: std::memcpy(out.data(), x.data(), out.size()); break;
        case GGML_TYPE_F16: ggml_fp32_to_fp16_row(x.data(), reinterpret_cast<ggml_fp16_t *>(out.data()), rows * k); break;
        case GGML_TYPE_BF16: ggml_fp32_to_bf16_row(x.data(), reinterpret_cast<ggml_bf16_t *>(out.data()), rows * k); break;
        default: ggml_quantize_chunk(type, x.data(), out.data(), 0, rows, k, nullptr); break;
    }
    return out;
}

// Byte offsets of the fp16 scale fields of one block (E8M0 for mxfp4: offset 0, one byte).
inline std::vector<size_t> half_fields(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K: return {0, 2};
        case GGML_TYPE_Q2_K: return {80, 82};
        case GGML_TYPE_Q3_K: return {108};
        case GGML_TYPE_Q6_K: return {208};
        case GGML_TYPE_MXFP4: return {};
        case GGML_TYPE_IQ1_M: return {}; // d in the top nibbles of the scale words (random_block_rows)
        case GGML_TYPE_TQ1_0: return {52};
        case GGML_TYPE_TQ2_0: return {64};
        default:             return {0};
    }
}

// rows x k weights of a block format made of random bytes, scales replaced by moderate finite values.
inline std::vector<uint8_t> random_block_rows(ggml_type type, int64_t rows, int64_t k, std::mt19937 & rng) {
    const size_t                    bs = ggml_type_size(type);
    const int64_t                   nb = rows * k / ggml_blck_size(type);
    std::vector<uint8_t>            out(bs * static_cast<size_t>(nb));
    std::normal_distribution<float> scale(0.0f, 0.05f);
    for (auto & b : out) {
        b = static_cast<uint8_t>(rng());
    }
    for (int64_t i = 0; i < nb; ++i) {
        uint8_t * blk = out.data() + static_cast<size_t>(i) * bs;
        if (type == GGML_TYPE_MXFP4) {
            blk[0] = static_cast<uint8_t>(118 + rng() % 16);
        }
        if (type == GGML_TYPE_IQ1_M) { // nibble n of d is the top nibble of scale word n (bytes 48..55)
            const uint16_t d = ggml_fp32_to_fp16(scale(rng));
            for (int n = 0; n < 4; ++n) {
                blk[49 + 2 * n] = static_cast<uint8_t>((blk[49 + 2 * n] & 0x0f) | (((d >> (4 * n)) & 0xf) << 4));
            }
        }
        for (size_t off : half_fields(type)) {
            const ggml_fp16_t h = ggml_fp32_to_fp16(scale(rng));
            std::memcpy(blk + off, &h, sizeof(h));
        }
    }
    return out;
}

// The weights of one row as floats (the reference dequantizers).
inline std::vector<float> dequantized(ggml_type type, const void * row, int64_t k) {
    std::vector<float> w(static_cast<size_t>(k));
    const auto *       p = static_cast<const uint8_t *>(row);
    for (int64_t i = 0; i < k && (type == GGML_TYPE_F16 || type == GGML_TYPE_BF16); ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        w[i] = type == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp16_t{h}) : ggml_bf16_to_fp32(ggml_bf16_t{h});
    }
    if (type == GGML_TYPE_F32) {
        std::memcpy(w.data(), row, static_cast<size_t>(k) * sizeof(float));
    } else if (type != GGML_TYPE_F16 && type != GGML_TYPE_BF16) {
        ggml_get_type_traits(type)->to_float(row, w.data(), k);
    }
    return w;
}

// Allowed |got - want| for the product of a weight row with activations x: 1e-5 of sum |w_i * a_i| (a: the
// converted activations), the float rounding of sums over up to a few thousand blocks, plus a tiny absolute part.
inline double tolerance(ggml_type type, const void * row, const float * x, int64_t k) {
    const std::vector<float> w = dequantized(type, row, k);
    const auto               a = testing::reference::converted_activations(type, x, k);
    double                   l1 = 0.0;
    for (int64_t i = 0; i < k; ++i) {
        l1 += std::fabs(static_cast<double>(w[i]) * a.values[i]);
    }
    return 1e-5 * l1 + 1e-6;
}

} // namespace switchyard::matvec_test
