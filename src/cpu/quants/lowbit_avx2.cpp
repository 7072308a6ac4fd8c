// AVX2 kernels of ggml 0.25.1's formats against q8_0 activations: q1_0 (128 sign bits and one scale), q2_0
// (2-bit levels -1..2, 64 a block) and nvfp4 (E2M1 codes, an E4M3 scale per 16). Each weight block is decoded
// once (signed levels in element order; q1_0 a byte mask that negates activations) and used for every column
// (int8 pair sums); the float steps are those of the scalar kernels (matvec_scalar.cpp), which restate upstream's
// x86 order:
//   q1_0   per block, eight lanes: d_a0 * sums_0, then fma(d_aK, sums_K, .) for the other three activation blocks,
//          then acc = fma(d_w, block, acc); the lanes summed as upstream's hsum at the end;
//   q2_0   per activation block one integer sum; sum = fma(d_a, int, sum), total = fma(d_w, sum, total);
//   nvfp4  per activation block acc = fma(scale(sub-block of the lane) * d_a, lanes, acc), lanes 0-3 the first
//          sub-block, 4-7 the second.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/upstream_sums_x86.h"
#include "cpu/simd/int_avx2.h"
#include "quant/blocks.h"

#include <array>

namespace switchyard::cpu::quants {

namespace {

using namespace simd;

constexpr size_t kQ8Bytes = 34; // a q8_0 block: fp16 d, 32 levels

// The activation block i of column c.
inline const uint8_t * act_block(const MatVecArgs & a, int c, int64_t i) {
    return static_cast<const uint8_t *>(a.act) + static_cast<size_t>(c) * a.act_col + static_cast<size_t>(i) * kQ8Bytes;
}

// q1_0: with the 32 bits for an activation block as a byte mask, 0xff where the bit is clear (the level is -1:
// clear_bits32), the signed activations are (y ^ clear) - clear, their sums of four a pair-sum with ones.
inline __m256i q1_sums(__m256i clear, __m256i y) {
    const __m256i sy = _mm256_sub_epi8(_mm256_xor_si256(y, clear), clear);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), sy), _mm256_set1_epi16(1));
}

template <int64_t kBytes>
inline void prefetch_block(const uint8_t * wb) {
    prefetch_lines<kBytes>(wb + kPrefetchBytes);
}

struct Q1Rows {
    template <int C>
    static void row(const MatVecArgs & a, const uint8_t * w, float * out) {
        __m256 acc[C];
        for (int c = 0; c < C; ++c) acc[c] = _mm256_setzero_ps();
        for (int64_t i = 0; i < a.k / 128; ++i) {
            const uint8_t * wb = w + i * sizeof(quant::BlockQ1_0);
            prefetch_block<sizeof(quant::BlockQ1_0)>(wb);
            __m256 block[C];
            for (int kb = 0; kb < 4; ++kb) {
                const __m256i clear = clear_bits32(wb + 2 + 4 * kb);
                for (int c = 0; c < C; ++c) {
                    const uint8_t * ab = act_block(a, c, 4 * i + kb);
                    const __m256    s  = _mm256_cvtepi32_ps(q1_sums(clear, load256(ab + 2)));
                    const __m256    da = _mm256_set1_ps(half_to_float(ab));
                    block[c]           = kb == 0 ? _mm256_mul_ps(da, s) : _mm256_fmadd_ps(da, s, block[c]);
                }
            }
            const __m256 dw = _mm256_set1_ps(half_to_float(wb));
            for (int c = 0; c < C; ++c) acc[c] = _mm256_fmadd_ps(dw, block[c], acc[c]);
        }
        for (int c = 0; c < C; ++c) out[c * a.out_col] = sum_lanes8(acc[c]);
    }
};

// q2_0: the 32 levels (code - 1) of bytes qs[0..7], four codes a byte from its low bits up. Each byte is spread
// over its four elements, then each element tests its two bits: level = -1 - bit0 - 2 bit1 with bits as -1 / 0.
inline __m256i q2_levels(const uint8_t * qs) {
    int64_t bytes;
    std::memcpy(&bytes, qs, sizeof(bytes));
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi64x(bytes),
                                               _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4,
                                                                4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7));
    const __m256i low  = _mm256_set1_epi32(0x40100401);            // bit 2 k of byte k of each group of four
    const __m256i high = _mm256_set1_epi32(static_cast<int>(0x80200802u)); // bit 2 k + 1
    const __m256i b0   = _mm256_cmpeq_epi8(_mm256_and_si256(spread, low), low);
    const __m256i b1   = _mm256_cmpeq_epi8(_mm256_and_si256(spread, high), high);
    return _mm256_sub_epi8(_mm256_sub_epi8(_mm256_sub_epi8(_mm256_set1_epi8(-1), b0), b1), b1);
}

struct Q2Rows {
    template <int C>
    static void row(const MatVecArgs & a, const uint8_t * w, float * out) {
        float total[C] = {};
        for (int64_t i = 0; i < a.k / 64; ++i) {
            const uint8_t * wb = w + i * sizeof(quant::BlockQ2_0);
            prefetch_block<sizeof(quant::BlockQ2_0)>(wb);
            float sum[C] = {};
            for (int kb = 0; kb < 2; ++kb) {
                const __m256i v = q2_levels(wb + 2 + 8 * kb);
                for (int c = 0; c < C; ++c) {
                    const uint8_t * ab = act_block(a, c, 2 * i + kb);
                    const int       ints = hsum_i32x8(dot_i8(v, load256(ab + 2)));
                    sum[c]               = fma_ss(half_to_float(ab), static_cast<float>(ints), sum[c]);
                }
            }
            const float dw = half_to_float(wb);
            for (int c = 0; c < C; ++c) total[c] = fma_ss(dw, sum[c], total[c]);
        }
        for (int c = 0; c < C; ++c) out[c * a.out_col] = total[c];
    }
};

// nvfp4: the scale bytes' values, looked up (256 entries).
const std::array<float, 256> & fp4_scales() {
    static const std::array<float, 256> t = [] {
        std::array<float, 256> s{};
        for (int b = 0; b < 256; ++b) s[static_cast<size_t>(b)] = quant::ue4m3_half_scale(static_cast<uint8_t>(b));
        return s;
    }();
    return t;
}

// nvfp4: the 32 levels of sub-blocks 2 kb and 2 kb + 1 (qs[16 kb .. 16 kb + 15]) in element order: per sub-block
// the low nibbles of its 8 bytes (elements 0..7), then the high ones (8..15).
inline __m256i fp4_levels(const uint8_t * qs) {
    const __m128i b     = load128(qs);
    const __m128i m     = _mm_set1_epi8(0x0f);
    const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i *>(quant::kMxfp4Values));
    const __m128i lo    = _mm_shuffle_epi8(table, _mm_and_si128(b, m));
    const __m128i hi    = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(b, 4), m));
    return _mm256_set_m128i(_mm_unpackhi_epi64(lo, hi), _mm_unpacklo_epi64(lo, hi));
}

struct Fp4Rows {
    template <int C>
    static void row(const MatVecArgs & a, const uint8_t * w, float * out) {
        const std::array<float, 256> & scale = fp4_scales();
        __m256                         acc[C];
        for (int c = 0; c < C; ++c) acc[c] = _mm256_setzero_ps();
        for (int64_t i = 0; i < a.k / 64; ++i) {
            const uint8_t * wb = w + i * sizeof(quant::BlockNVFP4);
            prefetch_block<sizeof(quant::BlockNVFP4)>(wb);
            for (int kb = 0; kb < 2; ++kb) {
                const __m256i v  = fp4_levels(wb + 4 + 16 * kb);
                const float   s0 = scale[wb[2 * kb]], s1 = scale[wb[2 * kb + 1]];
                for (int c = 0; c < C; ++c) {
                    const uint8_t * ab = act_block(a, c, 2 * i + kb);
                    const float     da = half_to_float(ab);
                    const __m256    sc = _mm256_set_m128(_mm_set1_ps(s1 * da), _mm_set1_ps(s0 * da));
                    acc[c] = _mm256_fmadd_ps(sc, _mm256_cvtepi32_ps(dot_i8(v, load256(ab + 2))), acc[c]);
                }
            }
        }
        for (int c = 0; c < C; ++c) out[c * a.out_col] = sum_lanes8(acc[c]);
    }
};

// Every weight row times the a.cols columns, the count a compile-time constant (matvec_driver.h).
template <class Rows>
void kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) { Rows::template row<C>(a, w, out); });
    });
}

} // namespace

MatVecFn lowbit_avx2(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_Q1_0:  return kernel<Q1Rows>;
        case GGML_TYPE_Q2_0:  return kernel<Q2Rows>;
        case GGML_TYPE_NVFP4: return kernel<Fp4Rows>;
        default:              return nullptr;
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
