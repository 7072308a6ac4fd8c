// AVX2 row dequantizers (compiled with -mavx2 -mfma; called only through dequant_kernels() when the CPU has
// AVX2). Scales are computed in scalar code exactly as the references in src/quant do, then 16 levels at a
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

__m128i load16(const void * p) { return _mm_loadu_si128(static_cast<const __m128i *>(p)); }

// 16 unsigned (or signed) bytes minus offset, as floats, times scale, minus sub, into y[0..15]
template <bool kSigned, bool kSub>
void store16(__m128i bytes, int offset, __m256 scale, __m256 sub, float * y) {
    const __m128i halves[2] = {bytes, _mm_srli_si128(bytes, 8)};
    for (int h = 0; h < 2; ++h) {
        __m256i q = kSigned ? _mm256_cvtepi8_epi32(halves[h]) : _mm256_cvtepu8_epi32(halves[h]);
        q         = _mm256_sub_epi32(q, _mm256_set1_epi32(offset));
        __m256 v  = _mm256_mul_ps(_mm256_cvtepi32_ps(q), scale);
        if constexpr (kSub) {
            v = _mm256_sub_ps(v, sub);
        }
        _mm256_storeu_ps(y + 8 * h, v);
    }
}

uint16_t load_half(const uint16_t * p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof h);
    return h;
}

void dequant_q4_0(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ4_0 *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        const __m256  d  = _mm256_set1_ps(fp16_to_fp32(load_half(&blocks[i].d)));
        const __m128i qs = load16(blocks[i].qs);
        store16<false, false>(_mm_and_si128(qs, low), 8, d, d, y + i * kQK32);
        store16<false, false>(_mm_and_si128(_mm_srli_epi16(qs, 4), low), 8, d, d, y + i * kQK32 + 16);
    }
}

void dequant_q8_0(const void * x, float * y, int64_t n) {
    const auto * blocks = static_cast<const BlockQ8_0 *>(x);
    for (int64_t i = 0; i < n / kQK32; ++i) {
        const __m256 d = _mm256_set1_ps(fp16_to_fp32(load_half(&blocks[i].d)));
        store16<true, false>(load16(blocks[i].qs), 0, d, d, y + i * kQK32);
        store16<true, false>(load16(blocks[i].qs + 16), 0, d, d, y + i * kQK32 + 16);
    }
}

void dequant_q4_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ4_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const BlockQ4_K & b   = blocks[i];
        const float       d   = fp16_to_fp32(load_half(&b.d)), dmin = fp16_to_fp32(load_half(&b.dmin));
        float *           out = y + i * kQK_K;
        for (int j = 0; j < 8; ++j) {
            uint8_t sc = 0, m = 0;
            quant::unpack_scale_min_k4(j, b.scales, sc, m);
            const __m256  dl    = _mm256_set1_ps(d * static_cast<float>(sc));
            const __m256  ml    = _mm256_set1_ps(dmin * static_cast<float>(m));
            const __m128i shift = _mm_cvtsi32_si128((j % 2) * 4);
            for (int h = 0; h < 2; ++h) {
                const __m128i q = _mm_and_si128(_mm_srl_epi16(load16(b.qs + 32 * (j / 2) + 16 * h), shift), low);
                store16<false, true>(q, 0, dl, ml, out + 32 * j + 16 * h);
            }
        }
    }
}

void dequant_q6_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const BlockQ6_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    const __m128i two    = _mm_set1_epi8(0x03);
    for (int64_t i = 0; i < n / kQK_K; ++i) {
        const BlockQ6_K & b   = blocks[i];
        const float       d   = fp16_to_fp32(load_half(&b.d));
        float *           out = y + i * kQK_K;
        for (int s = 0; s < 16; ++s) { // sub-block of 16: one scale, one nibble half, one qh bit pair
            const int     e0 = 16 * s, h = e0 / 128, r = e0 % 128;
            const __m128i lo = _mm_and_si128(_mm_srl_epi16(load16(b.ql + 64 * h + r % 64), _mm_cvtsi32_si128(r < 64 ? 0 : 4)), low);
            const __m128i hi = _mm_and_si128(_mm_srl_epi16(load16(b.qh + 32 * h + r % 32), _mm_cvtsi32_si128(2 * (r / 32))), two);
            const __m256  dl = _mm256_set1_ps(d * static_cast<float>(b.scales[s]));
            store16<false, false>(_mm_or_si128(lo, _mm_slli_epi16(hi, 4)), 32, dl, dl, out + e0);
        }
    }
}

} // namespace

const DequantKernels & dequant_kernels_avx2() {
    static const DequantKernels k{dequant_q4_0, dequant_q8_0, dequant_q4_k, dequant_q6_k, "avx2"};
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
