// Q1_0 and Q2_0 (ggml 0.25.1): low-bit formats with one fp16 scale per block and no search.
//
// Q1_0: 128 elements a block, one sign bit each; d = the mean magnitude of the block (summed in float, in element
//   order), bit set for x >= 0. A value is +d or -d.
// Q2_0: 64 elements a block, 2 bits each; d = the largest magnitude, q = round(x / d) + 1 (half away from zero)
//   clamped to 0..3, so the reference writes -1, 0 or 1 times d (q = 3, +2 d, is valid data but never chosen).
//
// Both reference quantizers give upstream's bytes (NaN inputs included: a NaN is never the largest magnitude, and
// its code is the lowest); an importance matrix changes nothing (no choice to weigh).
#include "quant/blocks.h"
#include "quant/formats.h"

#include "base/fp16.h"

#include <climits>
#include <cmath>

namespace switchyard::quant {

namespace {

constexpr int kQK1 = 128;
constexpr int kQK2 = 64;

void dequantize_q1_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK1; ++i) {
        const auto  b = load_block<BlockQ1_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < kQK1; ++j) {
            y[i * kQK1 + j] = (b.qs[j / 8] >> (j % 8)) & 1 ? d : -d;
        }
    }
}

void quantize_q1_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK1; ++i) {
        const float * in  = x + i * kQK1;
        float         sum = 0.0f;
        for (int j = 0; j < kQK1; ++j) {
            sum += std::fabs(in[j]);
        }
        BlockQ1_0 b{};
        b.d = fp32_to_fp16(sum / kQK1);
        for (int j = 0; j < kQK1; ++j) {
            if (in[j] >= 0.0f) {
                b.qs[j / 8] = static_cast<uint8_t>(b.qs[j / 8] | (1u << (j % 8)));
            }
        }
        store_block(y, i, b);
    }
}

void dequantize_q2_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK2; ++i) {
        const auto  b = load_block<BlockQ2_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < kQK2; ++j) {
            const int q     = (b.qs[j / 4] >> (2 * (j % 4))) & 3;
            y[i * kQK2 + j] = static_cast<float>(q - 1) * d;
        }
    }
}

// round(v) as upstream's C gets it from (int) roundf(v) on x86: out of int's range (NaN included) gives INT_MIN.
int round_to_int(float v) {
    return std::isfinite(v) && std::fabs(v) < 0x1p30f ? static_cast<int>(std::lround(v)) : INT_MIN;
}

void quantize_q2_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK2; ++i) {
        const float * in   = x + i * kQK2;
        float         amax = 0.0f;
        for (int j = 0; j < kQK2; ++j) {
            if (std::fabs(in[j]) > amax) {
                amax = std::fabs(in[j]);
            }
        }
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        BlockQ2_0   b{};
        b.d = fp32_to_fp16(amax);
        for (int j = 0; j < kQK2; ++j) {
            const int r = round_to_int(in[j] * id);
            const int q = r < 0 ? 0 : (r > 2 ? 3 : r + 1); // r + 1 clamped to 0..3, without overflow at INT_MIN
            b.qs[j / 4] = static_cast<uint8_t>(b.qs[j / 4] | (q << (2 * (j % 4))));
        }
        store_block(y, i, b);
    }
}

} // namespace

const Format kFormatQ1_0{GGML_TYPE_Q1_0, dequantize_q1_0, quantize_q1_0_ref,
                         quantize_rows_by_ref<BlockQ1_0, quantize_q1_0_ref, kQK1>, false,
                         {{ScaleKind::kHalf, offsetof(BlockQ1_0, d), "d"}, {}}};
const Format kFormatQ2_0{GGML_TYPE_Q2_0, dequantize_q2_0, quantize_q2_0_ref,
                         quantize_rows_by_ref<BlockQ2_0, quantize_q2_0_ref, kQK2>, false,
                         {{ScaleKind::kHalf, offsetof(BlockQ2_0, d), "d"}, {}}};

} // namespace switchyard::quant
