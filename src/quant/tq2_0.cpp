// TQ2_0: ternary weights (BitNet-style models), 256-element blocks of 2-bit codes and one fp16 scale, d = the
// block's largest magnitude. The reference quantizer rounds x / d to -1, 0 or 1, as upstream's does (the same
// bytes, NaN inputs included); quantizing with an importance matrix gives the same result (nothing to weigh).
#include "quant/blocks.h"
#include "quant/formats.h"

#include "base/fp16.h"

#include <climits>
#include <cmath>

namespace switchyard::quant {

namespace {

// lround as upstream's C code gets it on the platforms it runs on: out of range (NaN, inf) gives LONG_MIN
long round_to_long(float v) {
    return std::isfinite(v) && std::fabs(v) < 0x1p62f ? std::lround(v) : LONG_MIN;
}

void dequantize_tq2_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto  b = load_block<BlockTQ2_0>(x, i);
        const float d = fp16_to_fp32(b.d);
        float *     out = y + i * kQK_K;
        for (int h = 0; h < 2; ++h) {
            for (int l = 0; l < 4; ++l) {
                for (int m = 0; m < 32; ++m) {
                    const int q = (b.qs[32 * h + m] >> (2 * l)) & 3;
                    out[128 * h + 32 * l + m] = static_cast<float>(q - 1) * d;
                }
            }
        }
    }
}

void quantize_tq2_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * in   = x + i * kQK_K;
        float         amax = 0.0f;
        for (int j = 0; j < kQK_K; ++j) {
            const float a = std::fabs(in[j]);
            amax          = amax > a ? amax : a; // upstream's MAX: a NaN is kept only when it comes last
        }
        const float id = amax != 0.0f ? 1.0f / amax : 0.0f;
        BlockTQ2_0  b{};
        b.d = fp32_to_fp16(amax);
        for (int h = 0; h < 2; ++h) {
            for (int m = 0; m < 32; ++m) {
                unsigned q = 0;
                for (int l = 0; l < 4; ++l) {
                    const long xi = round_to_long(in[128 * h + 32 * l + m] * id) + 1;
                    q += static_cast<unsigned>(xi & 3) << (2 * l);
                }
                b.qs[32 * h + m] = static_cast<uint8_t>(q);
            }
        }
        store_block(y, i, b);
    }
}

} // namespace

const Format kFormatTQ2_0{GGML_TYPE_TQ2_0, dequantize_tq2_0, quantize_tq2_0_ref,
                          quantize_rows_by_ref<BlockTQ2_0, quantize_tq2_0_ref, kQK_K>, false,
                          {{ScaleKind::kHalf, offsetof(BlockTQ2_0, d), "d"}, {}}};

} // namespace switchyard::quant
