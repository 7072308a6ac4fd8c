// The AVX2 row dequantizers (dequant.h): dequant_lanes.h over eight-float lanes, the IQ grid formats' signs
// flipped by an XOR with the sign bits their mask selects. Compiled with -mavx2 -mfma; called only through
// dequant_kernels() when the CPU has AVX2.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/kernels/mul_mat/dequant_lanes.h"
#include "cpu/simd/vec_avx2.h"

namespace switchyard::cpu::kernels {

namespace {

struct Avx2Put {
    static void signed_values(uint64_t point, int n, unsigned signs, float scale, float * y) {
        const __m128i bytes = _mm_cvtsi64_si128(static_cast<long long>(point));
        const __m256i bit   = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        const __m256i mask  = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(signs)), bit);
        const __m256i set   = _mm256_cmpeq_epi32(mask, bit);
        const __m256  flip  = _mm256_castsi256_ps(_mm256_and_si256(set, _mm256_set1_epi32(INT32_MIN)));
        if (n == 8) {
            const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)), _mm256_set1_ps(scale));
            _mm256_storeu_ps(y, _mm256_xor_ps(v, flip));
        } else { // 4
            const __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(_mm_cvtepu8_epi32(bytes)), _mm_set1_ps(scale));
            _mm_storeu_ps(y, _mm_xor_ps(v, _mm256_castps256_ps128(flip)));
        }
    }
    static void shifted(uint64_t point, float delta, float dl, float * y) { iq1_shifted_8(point, delta, dl, y); }
};

} // namespace

const DequantKernels & dequant_kernels_avx2() {
    static const DequantKernels k = dequant_table<simd::VecAvx2, Avx2Put>("avx2");
    return k;
}

} // namespace switchyard::cpu::kernels

#endif // __x86_64__
