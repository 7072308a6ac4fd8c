// The AVX-512 row dequantizers (dequant.h): dequant_lanes.h over sixteen-float lanes, and the IQ grid formats'
// block walks (quant/iq_grid_walk.h) with vector steps: a grid point's 8 (or 4) bytes widened and converted,
// times the scale, the signs flipped by a masked XOR of the sign bit; IQ1's int8 bytes plus delta, times dl. The
// same float operations as the reference steps, so the same floats. Compiled with the AVX-512 flags; called only
// through dequant_kernels() when the CPU has AVX-512F.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant_lanes.h"
#include "cpu/simd/vec_avx512.h"

#include "quant/iq_grid_walk.h"

#include <immintrin.h>

namespace switchyard::cpu::kernels {

namespace {

struct Avx512Put {
    static void signed_values(uint64_t point, int n, unsigned signs, float scale, float * y) {
        const __m128i bytes = _mm_cvtsi64_si128(static_cast<long long>(point));
        if (n == 8) {
            __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)), _mm256_set1_ps(scale));
            v        = _mm256_mask_xor_ps(v, static_cast<__mmask8>(signs), v, _mm256_set1_ps(-0.0f));
            _mm256_storeu_ps(y, v);
        } else { // 4
            __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(_mm_cvtepu8_epi32(bytes)), _mm_set1_ps(scale));
            v        = _mm_mask_xor_ps(v, static_cast<__mmask8>(signs & 0xfu), v, _mm_set1_ps(-0.0f));
            _mm_storeu_ps(y, v);
        }
    }
    static void shifted(uint64_t point, float delta, float dl, float * y) {
        const __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(static_cast<long long>(point))));
        _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_set1_ps(dl), _mm256_add_ps(q, _mm256_set1_ps(delta))));
    }
};

DequantKernels table_avx512() {
    namespace walk = quant::iq_walk;
    DequantKernels k                = dequant_table<simd::VecAvx512>("avx512");
    k.by_type[GGML_TYPE_IQ2_XXS]    = walk::dequantize_iq2_xxs<Avx512Put>;
    k.by_type[GGML_TYPE_IQ2_XS]     = walk::dequantize_iq2_xs<Avx512Put>;
    k.by_type[GGML_TYPE_IQ2_S]      = walk::dequantize_iq2_s<Avx512Put>;
    k.by_type[GGML_TYPE_IQ3_XXS]    = walk::dequantize_iq3_xxs<Avx512Put>;
    k.by_type[GGML_TYPE_IQ3_S]      = walk::dequantize_iq3_s<Avx512Put>;
    k.by_type[GGML_TYPE_IQ1_S]      = walk::dequantize_iq1_s<Avx512Put>;
    k.by_type[GGML_TYPE_IQ1_M]      = walk::dequantize_iq1_m<Avx512Put>;
    return k;
}

} // namespace

const DequantKernels & dequant_kernels_avx512() {
    static const DequantKernels k = table_avx512();
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
