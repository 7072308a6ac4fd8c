// fp32 -> bf16 rows with AVX-512 BF16. vcvtneps2bf16 rounds to nearest even and quiets NaNs exactly like the
// scalar fp32_to_bf16, but it flushes subnormal inputs to zero. Lanes holding a subnormal are therefore redone
// with the integer rounding of the scalar code (add 0x7fff plus the lowest kept bit, keep the top half), so the
// row comes out bit-identical to the scalar conversion.
#include "base/fp16.h"
#include "base/fp16_isa.h"

#if defined(SWITCHYARD_FP16_X86)

#include <immintrin.h>

namespace switchyard::fp16_isa {

namespace {

// bf16 of 16 floats by integer rounding; right for every finite input, used for the subnormal lanes only.
// (The zero-masking forms with an all-ones mask are the plain instructions; they avoid g++ 12's false
// -Wmaybe-uninitialized on the unmasked intrinsics.)
__m256i round_to_bf16_integer(__m512i bits) {
    constexpr __mmask16 kAll        = 0xffff;
    const __m512i       lowest_kept = _mm512_and_si512(_mm512_maskz_srli_epi32(kAll, bits, 16), _mm512_set1_epi32(1));
    const __m512i       bias        = _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lowest_kept);
    return _mm512_maskz_cvtepi32_epi16(kAll, _mm512_maskz_srli_epi32(kAll, _mm512_add_epi32(bits, bias), 16));
}

} // namespace

void fp32_to_bf16_row_avx512bf16(const float * x, uint16_t * y, int64_t n) {
    const __m512i exponent = _mm512_set1_epi32(0x7f800000);
    const __m512i mantissa = _mm512_set1_epi32(0x007fffff);
    int64_t       i        = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512  f         = _mm512_loadu_ps(x + i);
        const __m512i bits      = _mm512_castps_si512(f);
        __m256i       out       = (__m256i) _mm512_cvtneps_pbh(f);
        const __mmask16 subnorm = _mm512_testn_epi32_mask(bits, exponent) & _mm512_test_epi32_mask(bits, mantissa);
        if (subnorm != 0) {
            out = _mm256_mask_blend_epi16(subnorm, out, round_to_bf16_integer(bits));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i), out);
    }
    for (; i < n; ++i) {
        y[i] = fp32_to_bf16(x[i]);
    }
}

} // namespace switchyard::fp16_isa

#endif
