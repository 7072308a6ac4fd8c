// AVX-512 row dequantizers (compiled with -mavx512f...; called only through dequant_kernels() when the CPU has
// AVX-512F). Scales are computed in scalar code exactly as the references in src/quant do, then 16 levels at a
// time go int -> float -> multiply (and subtract) with separate, unfused instructions.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant.h"

#include "base/fp16.h"
#include "quant/blocks.h"

#include <immintrin.h>

#include <cstring>

namespace switchyard::cpu::kernels {

namespace {

using quant::BlockQ4_0;
using quant::BlockQ4_K;
using quant::BlockQ6_K;
using quant::BlockQ8_0;
using quant::kQK32;
using quant::kQK_K;

// full mask for the masked forms of the conversions: GCC 12's headers warn (-Wmaybe-uninitialized) on the
// unmasked ones
constexpr __mmask16 kAll = 0xffff;

// 16 unsigned bytes to int32 lanes, minus offset
__m512i widen_u8(__m128i bytes, int offset) {
    return _mm512_sub_epi32(_mm512_maskz_cvtepu8_epi32(kAll, bytes), _mm512_set1_epi32(offset));
}

__m128i load16(const uint8_t * p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }

void dequant_q4_0(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ4_0 *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        uint16_t dh;
        std::memcpy(&dh, &blocks[i].d, sizeof dh);
        const __m512  d  = _mm512_set1_ps(fp16_to_fp32(dh));
        const __m128i qs = load16(blocks[i].qs);
        const __m128i lo = _mm_and_si128(qs, low), hi = _mm_and_si128(_mm_srli_epi16(qs, 4), low);
        _mm512_storeu_ps(y + i * kQK32, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAll, widen_u8(lo, 8)), d));
        _mm512_storeu_ps(y + i * kQK32 + 16, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAll, widen_u8(hi, 8)), d));
    }
}

void dequant_q8_0(const void * x, float * y, int64_t n) {
    const auto * blocks = static_cast<const BlockQ8_0 *>(x);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        uint16_t dh;
        std::memcpy(&dh, &blocks[i].d, sizeof dh);
        const __m512 d = _mm512_set1_ps(fp16_to_fp32(dh));
        for (int h = 0; h < 2; ++h) {
            const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i *>(blocks[i].qs + 16 * h));
            _mm512_storeu_ps(y + i * kQK32 + 16 * h, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepi8_epi32(kAll, q)), d));
        }
    }
}

void dequant_q4_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ4_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const BlockQ4_K & b = blocks[i];
        uint16_t          dh, mh;
        std::memcpy(&dh, &b.d, sizeof dh);
        std::memcpy(&mh, &b.dmin, sizeof mh);
        const float d = fp16_to_fp32(dh), dmin = fp16_to_fp32(mh);
        float *     out = y + i * kQK_K;
        for (int j = 0; j < 8; ++j) {
            uint8_t sc = 0, m = 0;
            quant::unpack_scale_min_k4(j, b.scales, sc, m);
            const __m512 dl = _mm512_set1_ps(d * static_cast<float>(sc));
            const __m512 ml = _mm512_set1_ps(dmin * static_cast<float>(m));
            const int    shift = (j % 2) * 4;
            for (int h = 0; h < 2; ++h) {
                const __m128i raw = load16(b.qs + 32 * (j / 2) + 16 * h);
                const __m128i q   = _mm_and_si128(_mm_srl_epi16(raw, _mm_cvtsi32_si128(shift)), low);
                const __m512  v   = _mm512_mul_ps(dl, _mm512_maskz_cvtepi32_ps(kAll, _mm512_maskz_cvtepu8_epi32(kAll, q)));
                _mm512_storeu_ps(out + 32 * j + 16 * h, _mm512_sub_ps(v, ml));
            }
        }
    }
}

void dequant_q6_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ6_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    const __m128i two    = _mm_set1_epi8(0x03);
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const BlockQ6_K & b = blocks[i];
        uint16_t          dh;
        std::memcpy(&dh, &b.d, sizeof dh);
        const float d   = fp16_to_fp32(dh);
        float *     out = y + i * kQK_K;
        for (int s = 0; s < 16; ++s) { // sub-block of 16: one scale, one nibble half, one qh bit pair
            const int     e0 = 16 * s, h = e0 / 128, r = e0 % 128;
            const __m128i ql = load16(b.ql + 64 * h + r % 64);
            const __m128i qh = load16(b.qh + 32 * h + r % 32);
            const __m128i lo = _mm_and_si128(_mm_srl_epi16(ql, _mm_cvtsi32_si128(r < 64 ? 0 : 4)), low);
            const __m128i hi = _mm_and_si128(_mm_srl_epi16(qh, _mm_cvtsi32_si128(2 * (r / 32))), two);
            const __m128i q  = _mm_or_si128(lo, _mm_slli_epi16(hi, 4));
            const __m512  dl = _mm512_set1_ps(d * static_cast<float>(b.scales[s]));
            _mm512_storeu_ps(out + e0, _mm512_mul_ps(dl, _mm512_maskz_cvtepi32_ps(kAll, widen_u8(q, 32))));
        }
    }
}

} // namespace

const DequantKernels & dequant_kernels_avx512() {
    static const DequantKernels k{dequant_q4_0, dequant_q8_0, dequant_q4_k, dequant_q6_k, "avx512"};
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
