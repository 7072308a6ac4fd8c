// The AVX-512 row dequantizers (dequant.h): dequant_lanes.h over sixteen-float lanes, the IQ grid formats' signs
// flipped by a masked XOR. Compiled with the AVX-512 flags; called only through dequant_kernels() when the CPU has
// AVX-512F.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant_lanes.h"
#include "cpu/simd/vec_avx512.h"

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
    static void shifted(uint64_t point, float delta, float dl, float * y) { iq1_shifted_8(point, delta, dl, y); }
};

} // namespace

const DequantKernels & dequant_kernels_avx512() {
    static const DequantKernels k = dequant_table<simd::VecAvx512, Avx512Put>("avx512");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
