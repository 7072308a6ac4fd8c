// NVFP4 (ggml 0.25.1): 64-element blocks of four 16-element sub-blocks, each with an unsigned E4M3 scale byte and
// 4-bit E2M1 codes (blocks.h: BlockNVFP4, ue4m3_half_scale). The reference takes each sub-block's scale byte
// from its largest magnitude over 6 (the largest E2M1 value), rounded to E4M3 as upstream rounds it, and each
// value the nearest code at that scale (the lower code on a tie). The bytes are upstream's; an importance matrix
// changes nothing.
#include "quant/blocks.h"
#include "quant/formats.h"

#include <cmath>
#include <cstring>

namespace switchyard::quant {

namespace {

constexpr int kQK  = 64;
constexpr int kSub = BlockNVFP4::kSub;

// The E4M3 byte for a positive scale, as upstream encodes it: 0 for x <= 0 or NaN; 448 at most; below 2^-6 the
// subnormal steps of 2^-9 (rounded half up, 0 below half a step); otherwise the top 3 mantissa bits rounded by
// the next one. An exponent that reaches 15 gives 0x7e, whatever the mantissa.
uint8_t ue4m3_from_scale(float x) {
    if (!(x > 0.0f)) {
        return 0;
    }
    x = x > 448.0f ? 448.0f : x;
    uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof(bits));
    int exp = static_cast<int>((bits >> 23) & 0xff) - 127 + 7;
    if (exp <= 0) {
        const int man = static_cast<int>(x * 512.0f + 0.5f);
        return static_cast<uint8_t>(man > 7 ? 7 : (man < 1 ? 0 : man));
    }
    if (exp >= 15) {
        return 0x7e;
    }
    int man = static_cast<int>((bits >> 20) & 0x7) + static_cast<int>((bits >> 19) & 1);
    if (man > 7) {
        man = 0;
        if (++exp >= 15) {
            return 0x7e;
        }
    }
    return static_cast<uint8_t>((exp << 3) | man);
}

void dequantize_nvfp4(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK; ++i) {
        const auto b = load_block<BlockNVFP4>(x, i);
        for (int s = 0; s < kQK / kSub; ++s) {
            const float d   = ue4m3_half_scale(b.d[s]);
            float *     out = y + i * kQK + s * kSub;
            for (int j = 0; j < kSub / 2; ++j) {
                const uint8_t q   = b.qs[s * kSub / 2 + j];
                out[j]            = static_cast<float>(kMxfp4Values[q & 0xf]) * d;
                out[j + kSub / 2] = static_cast<float>(kMxfp4Values[q >> 4]) * d;
            }
        }
    }
}

void quantize_nvfp4_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK; ++i) {
        BlockNVFP4 b{};
        for (int s = 0; s < kQK / kSub; ++s) {
            const float * in   = x + i * kQK + s * kSub;
            float         amax = 0.0f;
            for (int j = 0; j < kSub; ++j) {
                if (amax < std::fabs(in[j])) {
                    amax = std::fabs(in[j]);
                }
            }
            b.d[s]        = ue4m3_from_scale(amax / 6.0f);
            const float d = ue4m3_half_scale(b.d[s]);
            for (int j = 0; j < kSub / 2; ++j) {
                const uint8_t lo = nearest_fp4_code(in[j], d), hi = nearest_fp4_code(in[j + kSub / 2], d);
                b.qs[s * kSub / 2 + j] = static_cast<uint8_t>(lo | (hi << 4));
            }
        }
        store_block(y, i, b);
    }
}

} // namespace

// every scale byte is valid data (ggml_validate_row_data checks none)
const Format kFormatNVFP4{GGML_TYPE_NVFP4, dequantize_nvfp4, quantize_nvfp4_ref,
                          quantize_rows_by_ref<BlockNVFP4, quantize_nvfp4_ref, kQK>, false, {{}, {}}};

} // namespace switchyard::quant
