// The AVX-512 level's q8_K activation quantizer (act_quant.h): the reference quantizer's bytes, sixteen elements
// (one sub-block of bsums) per vector. Per block of 256: max |x| over the lanes (a NaN never wins, as the
// reference's `>` skips it), the first element in index order whose |x| is that maximum (the reference keeps the
// first of equals), iscale = -127 / that element, q = iscale * x clamped to +-4194303 (a NaN to the low end, as
// the reference's comparisons send it there), rounded to nearest even (vcvtps2dq under the default rounding, which
// the reference's magic-number addition also is below 2^22), saturated to [-128, 127]; bsums the sums of the
// saturated levels; d = 1 / iscale. Compiled with the AVX-512 flags; called only through the kernel registry.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/act_quant.h"

#include "cpu/simd/intrinsics.h"
#include "quant/blocks.h"

#include <cstring>

namespace switchyard::cpu::quants {

namespace {

constexpr int      kVectors = quant::kQK_K / 16;
constexpr __mmask16 kAll    = 0xffff;

// The reference's max: the first element of largest |x| (0 when every |x| is 0 or NaN).
float first_of_largest(const __m512 * v) {
    const __m512 sign = _mm512_set1_ps(-0.0f);
    __m512       amax = _mm512_setzero_ps();
    for (int j = 0; j < kVectors; ++j) {
        amax = _mm512_max_ps(_mm512_andnot_ps(sign, v[j]), amax); // max(NaN, a) is a: a NaN never wins
    }
    const float m = _mm512_reduce_max_ps(amax);
    if (!(m > 0.0f)) {
        return 0.0f;
    }
    const __m512 mv = _mm512_set1_ps(m);
    for (int j = 0; j < kVectors; ++j) {
        const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_andnot_ps(sign, v[j]), mv, _CMP_EQ_OQ);
        if (hit != 0) {
            alignas(64) float lanes[16];
            _mm512_store_ps(lanes, v[j]);
            return lanes[__builtin_ctz(hit)];
        }
    }
    return 0.0f; // not reached: m is some lane's |x|
}

void quantize_block(const float * x, uint8_t * out) {
    __m512 v[kVectors];
    for (int j = 0; j < kVectors; ++j) {
        v[j] = _mm512_loadu_ps(x + 16 * j);
    }
    const float max = first_of_largest(v);
    if (max == 0.0f) {
        std::memset(out, 0, sizeof(quant::BlockQ8_K));
        return;
    }
    const float  iscale = -127.0f / max;
    const __m512 is     = _mm512_set1_ps(iscale);
    const __m512 lo = _mm512_set1_ps(-4194303.0f), hi = _mm512_set1_ps(4194303.0f);
    int16_t      bsums[kVectors];
    for (int j = 0; j < kVectors; ++j) {
        __m512 q = _mm512_max_ps(_mm512_mul_ps(is, v[j]), lo); // max(NaN, lo) is lo
        q        = _mm512_min_ps(q, hi);
        __m512i n = _mm512_maskz_cvtps_epi32(kAll, q);
        n         = _mm512_min_epi32(_mm512_max_epi32(n, _mm512_set1_epi32(-128)), _mm512_set1_epi32(127));
        bsums[j]  = static_cast<int16_t>(_mm512_reduce_add_epi32(n));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + offsetof(quant::BlockQ8_K, qs) + 16 * j),
                         _mm512_cvtepi32_epi8(n));
    }
    const float d = 1.0f / iscale;
    std::memcpy(out + offsetof(quant::BlockQ8_K, d), &d, sizeof d);
    std::memcpy(out + offsetof(quant::BlockQ8_K, bsums), bsums, sizeof bsums);
}

} // namespace

void act_quantize_q8_K_avx512(const float * x, void * y, int64_t k) {
    auto * out = static_cast<uint8_t *>(y);
    for (int64_t i = 0; i < k / quant::kQK_K; ++i) {
        quantize_block(x + i * quant::kQK_K, out + static_cast<size_t>(i) * sizeof(quant::BlockQ8_K));
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
