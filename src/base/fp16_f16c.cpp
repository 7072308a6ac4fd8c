// fp16 <-> fp32 rows with F16C. vcvtps2ph with immediate 0 rounds to nearest even regardless of MXCSR, keeps
// subnormals, and turns NaNs quiet keeping the payload's top bits; vcvtph2ps is exact and quiets NaNs too:
// the scalar conversions in fp16.h are written to match, and the tails use them.
#include "base/fp16.h"
#include "base/fp16_isa.h"

#if defined(SWITCHYARD_FP16_X86)

#include <immintrin.h>

namespace switchyard::fp16_isa {

void fp16_to_fp32_row_f16c(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(x + i));
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) {
        y[i] = fp16_to_fp32(x[i]);
    }
}

void fp32_to_fp16_row_f16c(const float * x, uint16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_loadu_ps(x + i);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(y + i), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) {
        y[i] = fp32_to_fp16(x[i]);
    }
}

} // namespace switchyard::fp16_isa

#endif
