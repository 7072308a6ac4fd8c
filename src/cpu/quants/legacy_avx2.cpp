// AVX2 kernels of the 32-element formats (q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl, mxfp4) against q8_0 / q8_1
// activations. Each weight block is unpacked once into its 32 signed levels in element order, then multiplied
// with every column's 32 levels (int8 pair sums, sign trick), scaled by d_w * d_a into eight float lanes per
// column, lane l taking elements 4 l .. 4 l + 3: upstream's lanes, summed in upstream's float order
// (upstream_sums_x86.h; iq4_nl / mxfp4 alternate two accumulators as upstream does). The columns' f16 block scales
// are converted to floats once per call, for all its rows (the same values: 20 % fewer instructions at 4 columns,
// 7 % at one). Written once as a template over the format; the formats differ only in how levels and scales are
// read.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/levels.h"
#include "cpu/quants/upstream_sums_x86.h"
#include "cpu/simd/int_avx2.h"

namespace switchyard::cpu::quants {

namespace {

using namespace simd;

// A format: its row (type_rows.h: block bytes, activation block bytes and where it keeps its levels, kHasMin for
// q4_1 / q5_1; kPairs: blocks alternate between two sets of accumulators, upstream's iq4_nl / mxfp4), the 32
// levels, the scale, and the min where kHasMin.
struct Q4_0 : TypeRow<GGML_TYPE_Q4_0> {
    static __m256i levels(const uint8_t * b) { return _mm256_sub_epi8(nibbles32(b + 2), _mm256_set1_epi8(8)); }
    static float   scale(const uint8_t * b) { return half_to_float(b); }
};

struct Q4_1 : TypeRow<GGML_TYPE_Q4_1> {
    static __m256i levels(const uint8_t * b) { return nibbles32(b + 4); }
    static float   scale(const uint8_t * b) { return half_to_float(b); }
    static float   min(const uint8_t * b) { return half_to_float(b + 2); }
};

// q5_0: level - 16 = nibble | 0xf0 where the fifth bit is clear (two's complement), the nibble where it is set
struct Q5_0 : TypeRow<GGML_TYPE_Q5_0> {
    static __m256i levels(const uint8_t * b) {
        return _mm256_or_si256(nibbles32(b + 6), _mm256_andnot_si256(bits32(b + 2), _mm256_set1_epi8(-16)));
    }
    static float scale(const uint8_t * b) { return half_to_float(b); }
};

struct Q5_1 : TypeRow<GGML_TYPE_Q5_1> {
    static __m256i levels(const uint8_t * b) {
        return _mm256_or_si256(nibbles32(b + 8), _mm256_and_si256(bits32(b + 4), _mm256_set1_epi8(16)));
    }
    static float scale(const uint8_t * b) { return half_to_float(b); }
    static float min(const uint8_t * b) { return half_to_float(b + 2); }
};

struct Q8_0 : TypeRow<GGML_TYPE_Q8_0> {
    static __m256i levels(const uint8_t * b) { return load256(b + 2); }
    static float   scale(const uint8_t * b) { return half_to_float(b); }
};

// iq4_nl / mxfp4: the nibble indexes a table of 16 signed levels (one pshufb per 16 bytes)
inline __m256i table_levels(const int8_t (&table)[16], const uint8_t * qs) {
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(table));
    return _mm256_shuffle_epi8(_mm256_set_m128i(t, t), nibbles32(qs));
}

struct IQ4_NL : TypeRow<GGML_TYPE_IQ4_NL> {
    static __m256i levels(const uint8_t * b) { return table_levels(quant::kIq4nlValues, b + 2); }
    static float   scale(const uint8_t * b) { return half_to_float(b); }
};

struct MXFP4 : TypeRow<GGML_TYPE_MXFP4> {
    static __m256i levels(const uint8_t * b) { return table_levels(quant::kMxfp4Values, b + 1); }
    static float   scale(const uint8_t * b) { return e8m0_half(b[0]); }
};

// The activation blocks' scales as floats, converted once per call for all its rows: column c's block i at
// [c * nb + i]. Up to kScaleFloats of them (k = 32,768 at four columns); longer rows convert them per block.
constexpr int64_t kScaleFloats = 4096;

// One weight row times C columns. kConverted: the columns' block scales come from act_d (above), else from the
// activation blocks.
template <class F, int C, bool kConverted>
void row_times_columns(const MatVecArgs & a, const uint8_t * w, float * out, const float * act_d) {
    const auto * act = static_cast<const uint8_t *>(a.act);
    __m256       acc[C], acc_odd[C]; // acc_odd: the odd blocks where kPairs
    float        mins[C], last_d[C];
    int          last_sum[C];
    for (int c = 0; c < C; ++c) {
        acc[c] = acc_odd[c] = _mm256_setzero_ps();
        mins[c] = last_d[c] = 0.0f;
        last_sum[c]         = 0;
    }
    const int64_t nb     = a.k / kQK32;
    const int64_t paired = F::kPairs ? nb / 2 * 2 : nb; // kPairs: an odd last block is added after the lanes' sum
    // block i's products into `into` (acc, or where kPairs acc_odd for the odd blocks: a loop step takes one of
    // each, so that both stay in registers rather than being picked by address)
    const auto block = [&](int64_t i, __m256 (&into)[C]) __attribute__((always_inline)) {
        const uint8_t * wb = w + i * F::kBytes;
        prefetch_lines<static_cast<int64_t>(F::kBytes)>(wb + kPrefetchBytes);
        const __m256i v  = F::levels(wb);
        const __m256i av = _mm256_sign_epi8(v, v);
        const float   dw = F::scale(wb);
        for (int c = 0; c < C; ++c) {
            const uint8_t * ab = act + static_cast<size_t>(c) * a.act_col + i * F::kActBytes;
            const __m256i   sy = _mm256_sign_epi8(load256(ab + F::kActQs), v);
            const __m256i   p  = _mm256_madd_epi16(_mm256_maddubs_epi16(av, sy), _mm256_set1_epi16(1));
            const float     d  = dw * (kConverted ? act_d[c * nb + i] : half_to_float(ab));
            if (i >= paired) {
                last_d[c]   = d;
                last_sum[c] = sum_i32x8(p);
                continue;
            }
            into[c] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(p), into[c]);
            if constexpr (F::kHasMin) {
                mins[c] = fma_ss(F::min(wb), half_to_float(ab + 2), mins[c]);
            }
        }
    };
    if constexpr (F::kPairs) {
        for (int64_t i = 0; i < paired; i += 2) {
            block(i, acc);
            block(i + 1, acc_odd);
        }
        if (paired < nb) {
            block(paired, acc);
        }
    } else {
        for (int64_t i = 0; i < nb; ++i) {
            block(i, acc);
        }
    }
    for (int c = 0; c < C; ++c) {
        float r = sum_lanes8(F::kPairs ? _mm256_add_ps(acc[c], acc_odd[c]) : acc[c]);
        if constexpr (F::kHasMin) {
            r += mins[c];
        }
        if (paired < nb) {
            r = mul_add_ss(last_d[c], static_cast<float>(last_sum[c]), r);
        }
        out[c * a.out_col] = r;
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    const int64_t nb = a.k / kQK32;
    float         scales[kScaleFloats];
    const float * act_d = nullptr;
    if (nb * a.cols <= kScaleFloats) {
        const auto * act = static_cast<const uint8_t *>(a.act);
        for (int c = 0; c < a.cols; ++c) {
            for (int64_t i = 0; i < nb; ++i) {
                scales[c * nb + i] = half_to_float(act + static_cast<size_t>(c) * a.act_col + i * F::kActBytes);
            }
        }
        act_d = scales;
    }
    for_column_count(a, [&]<int C>() {
        each_weight_row(a, [&](const uint8_t * w, float * out) {
            if (act_d != nullptr) {
                row_times_columns<F, C, true>(a, w, out, act_d);
            } else {
                row_times_columns<F, C, false>(a, w, out, nullptr);
            }
        });
    });
}

} // namespace

MatVecFn legacy_avx2(ggml_type weight) {
    return kernel_for<Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, MXFP4>(weight, []<class F>() { return kernel<F>; });
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
