// The fast row dequantizers of dequant.h written once over the Vec lanes (simd/vec_scalar.h; the x86 levels'
// V::from_bytes turns sixteen bytes into lanes); dequant_avx2.cpp and dequant_avx512.cpp instantiate them. Scales
// are computed in scalar code exactly as the references in src/quant do, then sixteen levels at a time go
// int -> float -> multiply (and subtract) with separate, unfused instructions: the reference's floats at every
// level. Included only by those files, inside their ISA flags: everything here sits in an unnamed namespace.
#pragma once

#include "cpu/kernels/mul_mat/dequant.h"

#include "base/fp16.h"
#include "quant/blocks.h"
#include "quant/iq_grid_walk.h"

#include <immintrin.h>

#include <cstring>

namespace switchyard::cpu::kernels {
namespace {

inline __m128i load16(const void * p) { return _mm_loadu_si128(static_cast<const __m128i *>(p)); }

inline float load_half(const uint16_t * p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof h);
    return fp16_to_fp32(h);
}

// Sixteen unsigned (or signed) bytes minus offset, as floats, times scale, minus sub (kSub), into y[0..15].
template <class V, bool kSigned, bool kSub>
void store16(__m128i bytes, int offset, V scale, V sub, float * y) {
    for (int part = 0; part < 16 / V::kLanes; ++part) {
        V v = V::template from_bytes<kSigned>(bytes, part, offset) * scale;
        if constexpr (kSub) {
            v = v - sub;
        }
        v.store(y + V::kLanes * part);
    }
}

template <class V>
void dequant_q4_0(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const quant::BlockQ4_0 *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / quant::kQK32; ++i) {
        const V       d  = V::splat(load_half(&blocks[i].d));
        const __m128i qs = load16(blocks[i].qs);
        store16<V, false, false>(_mm_and_si128(qs, low), 8, d, d, y + i * quant::kQK32);
        store16<V, false, false>(_mm_and_si128(_mm_srli_epi16(qs, 4), low), 8, d, d, y + i * quant::kQK32 + 16);
    }
}

template <class V>
void dequant_q8_0(const void * x, float * y, int64_t n) {
    const auto * blocks = static_cast<const quant::BlockQ8_0 *>(x);
    for (int64_t i = 0; i < n / quant::kQK32; ++i) {
        const V d = V::splat(load_half(&blocks[i].d));
        store16<V, true, false>(load16(blocks[i].qs), 0, d, d, y + i * quant::kQK32);
        store16<V, true, false>(load16(blocks[i].qs + 16), 0, d, d, y + i * quant::kQK32 + 16);
    }
}

template <class V>
void dequant_q4_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const quant::BlockQ4_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < n / quant::kQK_K; ++i) {
        const quant::BlockQ4_K & b   = blocks[i];
        const float              d   = load_half(&b.d), dmin = load_half(&b.dmin);
        float *                  out = y + i * quant::kQK_K;
        for (int j = 0; j < 8; ++j) {
            uint8_t sc = 0, m = 0;
            quant::unpack_scale_min_k4(j, b.scales, sc, m);
            const V       dl    = V::splat(d * static_cast<float>(sc));
            const V       ml    = V::splat(dmin * static_cast<float>(m));
            const __m128i shift = _mm_cvtsi32_si128((j % 2) * 4);
            for (int h = 0; h < 2; ++h) {
                const __m128i q = _mm_and_si128(_mm_srl_epi16(load16(b.qs + 32 * (j / 2) + 16 * h), shift), low);
                store16<V, false, true>(q, 0, dl, ml, out + 32 * j + 16 * h);
            }
        }
    }
}

template <class V>
void dequant_q6_k(const void * x, float * y, int64_t n) {
    const auto *  blocks = static_cast<const quant::BlockQ6_K *>(x);
    const __m128i low    = _mm_set1_epi8(0x0f);
    const __m128i two    = _mm_set1_epi8(0x03);
    for (int64_t i = 0; i < n / quant::kQK_K; ++i) {
        const quant::BlockQ6_K & b   = blocks[i];
        const float              d   = load_half(&b.d);
        float *                  out = y + i * quant::kQK_K;
        for (int s = 0; s < 16; ++s) { // sub-block of 16: one scale, one nibble half, one qh bit pair
            const int     e0 = 16 * s, h = e0 / 128, r = e0 % 128;
            const __m128i lo = _mm_and_si128(_mm_srl_epi16(load16(b.ql + 64 * h + r % 64), _mm_cvtsi32_si128(r < 64 ? 0 : 4)), low);
            const __m128i hi = _mm_and_si128(_mm_srl_epi16(load16(b.qh + 32 * h + r % 32), _mm_cvtsi32_si128(2 * (r / 32))), two);
            const V       dl = V::splat(d * static_cast<float>(b.scales[s]));
            store16<V, false, false>(_mm_or_si128(lo, _mm_slli_epi16(hi, 4)), 32, dl, dl, out + e0);
        }
    }
}

// The IQ grid formats: their block walks (quant/iq_grid_walk.h) with the level's steps Put, which must perform the
// reference steps' float operations (a grid point's bytes widened and converted, times the scale, the signs flipped
// by an XOR of the sign bit; IQ1's int8 bytes plus delta, times dl).
template <class V, class Put>
DequantKernels dequant_table(const char * isa) {
    namespace walk = quant::iq_walk;
    DequantKernels k;
    k.isa                              = isa;
    k.by_type[quant::BlockQ4_0::kType] = dequant_q4_0<V>;
    k.by_type[quant::BlockQ8_0::kType] = dequant_q8_0<V>;
    k.by_type[quant::BlockQ4_K::kType] = dequant_q4_k<V>;
    k.by_type[quant::BlockQ6_K::kType] = dequant_q6_k<V>;
    k.by_type[GGML_TYPE_IQ2_XXS]       = walk::dequantize_iq2_xxs<Put>;
    k.by_type[GGML_TYPE_IQ2_XS]        = walk::dequantize_iq2_xs<Put>;
    k.by_type[GGML_TYPE_IQ2_S]         = walk::dequantize_iq2_s<Put>;
    k.by_type[GGML_TYPE_IQ3_XXS]       = walk::dequantize_iq3_xxs<Put>;
    k.by_type[GGML_TYPE_IQ3_S]         = walk::dequantize_iq3_s<Put>;
    k.by_type[GGML_TYPE_IQ1_S]         = walk::dequantize_iq1_s<Put>;
    k.by_type[GGML_TYPE_IQ1_M]         = walk::dequantize_iq1_m<Put>;
    return k;
}

// IQ1's step on eight float lanes (AVX2 and AVX-512 alike): int8 bytes, plus delta, times dl.
inline void iq1_shifted_8(uint64_t point, float delta, float dl, float * y) {
    const __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(static_cast<long long>(point))));
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_set1_ps(dl), _mm256_add_ps(q, _mm256_set1_ps(delta))));
}

} // namespace
} // namespace switchyard::cpu::kernels
