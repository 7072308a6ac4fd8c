// TQ1_0: ternary weights (BitNet-style models) packed five to a byte, 256-element blocks with one fp16 scale
// d = the block's largest magnitude (1.6875 bits per weight against TQ2_0's 2.0625). A byte holds the five trits
// as a base-3 number scaled to 0..255, so the trits come back by multiplying instead of dividing: the top digit
// of byte * 3^n (mod 256) is trit n. The reference quantizer rounds x / d to -1, 0 or 1 as upstream's does (the
// same bytes, NaN inputs included); an importance matrix changes nothing (nothing to weigh).
#include "quant/iq_blocks.h"
#include "quant/iq_grids.h"

#include "base/fp16.h"

#include <climits>
#include <cmath>
#include <cstring>

namespace switchyard::quant {

namespace {

constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};

// Where the trits of each byte go: qs[m] for m < 32 spreads over elements m + 32n, qs[32 + m] for m < 16 over
// 160 + m + 16n, qh[m] over 240 + m + 4n.
struct Span {
    int first_byte; // in qs followed by qh, as stored
    int bytes;      // bytes in the span = the element stride between a byte's trits
    int trits;      // trits per byte
    int first_elem;
};
constexpr Span kSpans[3] = {{0, 32, 5, 0}, {32, 16, 5, 160}, {48, 4, 4, 240}};

// lround as upstream's C code gets it on the platforms it runs on: out of range (NaN, inf) gives LONG_MIN
long round_to_long(float v) {
    return std::isfinite(v) && std::fabs(v) < 0x1p62f ? std::lround(v) : LONG_MIN;
}

// Trit n (0, 1 or 2) of a packed byte.
int trit(uint8_t byte, int n) {
    const auto shifted = static_cast<uint8_t>(byte * kPow3[n]);
    return (shifted * 3) >> 8;
}

void dequantize_tq1_0(const void * x, float * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const auto b = load_block<BlockTQ1_0>(x, i);
        uint8_t    packed[sizeof(b.qs) + sizeof(b.qh)];
        std::memcpy(packed, b.qs, sizeof(b.qs));
        std::memcpy(packed + sizeof(b.qs), b.qh, sizeof(b.qh));
        const float d   = fp16_to_fp32(b.d);
        float *     out = y + i * kQK_K;
        for (const Span & s : kSpans) {
            for (int n = 0; n < s.trits; ++n) {
                for (int m = 0; m < s.bytes; ++m) {
                    out[s.first_elem + s.bytes * n + m] =
                        static_cast<float>(trit(packed[s.first_byte + m], n) - 1) * d;
                }
            }
        }
    }
}

void quantize_tq1_0_ref(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK_K; ++i) {
        const float * in   = x + i * kQK_K;
        float         amax = 0.0f;
        for (int j = 0; j < kQK_K; ++j) {
            const float a = std::fabs(in[j]);
            amax          = amax > a ? amax : a; // upstream's MAX: a NaN is kept only when it comes last
        }
        const float id = amax != 0.0f ? 1.0f / amax : 0.0f;
        uint8_t     packed[sizeof(BlockTQ1_0::qs) + sizeof(BlockTQ1_0::qh)];
        for (const Span & s : kSpans) {
            for (int m = 0; m < s.bytes; ++m) {
                // base 3, first trit most significant, arithmetic mod 256 as in upstream's uint8_t (only a NaN
                // or infinite x / d gives a digit outside 0..2); a 4-trit byte gets a zero lowest digit
                unsigned q = 0;
                for (int n = 0; n < 5; ++n) {
                    const long t = n < s.trits ? round_to_long(in[s.first_elem + s.bytes * n + m] * id) + 1 : 0;
                    q            = (q * 3 + static_cast<unsigned>(t)) & 0xffu;
                }
                packed[s.first_byte + m] = static_cast<uint8_t>((q * 256 + 242) / 243); // ceil(q * 256 / 243)
            }
        }
        BlockTQ1_0 b{};
        std::memcpy(b.qs, packed, sizeof(b.qs));
        std::memcpy(b.qh, packed + sizeof(b.qs), sizeof(b.qh));
        b.d = fp32_to_fp16(amax);
        store_block(y, i, b);
    }
}

} // namespace

const Format kFormatTQ1_0{GGML_TYPE_TQ1_0, dequantize_tq1_0, quantize_tq1_0_ref,
                          quantize_rows_by_ref<BlockTQ1_0, quantize_tq1_0_ref, kQK_K>, false,
                          {{ScaleKind::kHalf, offsetof(BlockTQ1_0, d), "d"}, {}}};

} // namespace switchyard::quant
