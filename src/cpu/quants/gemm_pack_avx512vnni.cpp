// Packing of weight panels for the integer GEMM (gemm.h) with AVX-512: the formats' levels unpacked with vector
// instructions, 256 elements of the 16 rows at a time into a row-major buffer, then transposed into the panel's
// quads with one gather per quad. The biased level u of every format is the level as stored (q4_0's nibble,
// q5_0's five bits, q8_0's byte + 128, a table entry + bias), so unpacking never adds. The portable packer
// (gemm.cpp) does the formats not handled here (q2_K, q3_K).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm.h"
#include "cpu/quants/iq_levels_avx512.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/ternary_x86.h"
#include "cpu/quants/type_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace switchyard::cpu::quants {

namespace {

constexpr int kSpan = 256; // elements per step: one K-quant super-block, eight legacy blocks

// The levels of the 16 rows for one step, row-major, and the factors of its groups.
struct Step {
    alignas(64) uint8_t u[kGemmRows][kSpan];
    float s[kGemmRows][kSpan / 16];
    float m[kGemmRows][kSpan / 16];
};

inline __m256i load256(const void * p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }

inline void store256(uint8_t * p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }

// The 32 nibbles of 16 bytes: low nibbles (elements 0..15), then high ones (16..31).
inline __m256i nibbles(const uint8_t * qs) {
    const __m128i b = load128(qs);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(b, 4), b), _mm256_set1_epi8(0x0f));
}

// The lanes of v whose bit is set in `bits` (bit j: element j) plus `add`.
inline __m256i add_where(__m256i v, uint32_t bits, int add) {
    return _mm256_mask_add_epi8(v, static_cast<__mmask32>(bits), v, _mm256_set1_epi8(static_cast<char>(add)));
}

inline uint32_t load_u32(const void * p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// A 16-entry table of biased levels for a pshufb lookup.
__m256i biased_table(const int8_t * values, int bias) {
    alignas(16) int8_t t[16];
    for (int i = 0; i < 16; ++i) {
        t[i] = static_cast<int8_t>(values[i] + bias);
    }
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i *>(t)));
}

// ---- one row's 256 elements ------------------------------------------------------------------------------------
// Each writes u[0..256) and the factors of its groups (32 per legacy block, 16 or 32 for the K-quants).

// The 32-element formats, told apart by their fields: 8-bit levels (q8_0), a value table (iq4_nl, mxfp4; table:
// its biased pshufb form), a fifth bit (qh), a min (m), an E8M0 scale (e).
template <class Block>
void legacy_row(const void * row, int64_t b0, uint8_t * u, float * s, float * m, __m256i table) {
    const auto * blocks = static_cast<const Block *>(row) + b0;
    for (int b = 0; b < kSpan / kQK32; ++b) {
        const Block & blk = blocks[b];
        __m256i       v;
        if constexpr (sizeof(blk.qs) == kQK32) {
            v = _mm256_xor_si256(load256(blk.qs), _mm256_set1_epi8(static_cast<char>(0x80)));
            s[b] = fp16_to_fp32(blk.d);
            m[b] = 0.0f;
        } else if constexpr (quant::value_table<Block>() != nullptr) {
            v = _mm256_shuffle_epi8(table, nibbles(blk.qs));
            if constexpr (requires { blk.e; }) {
                s[b] = e8m0_half(blk.e);
            } else {
                s[b] = fp16_to_fp32(blk.d);
            }
            m[b] = 0.0f;
        } else {
            v = nibbles(blk.qs);
            if constexpr (requires { blk.qh; }) {
                v = add_where(v, load_u32(blk.qh), 16);
            }
            s[b] = fp16_to_fp32(blk.d);
            if constexpr (requires { blk.m; }) {
                m[b] = fp16_to_fp32(blk.m);
            } else {
                m[b] = 0.0f;
            }
        }
        store256(u + b * kQK32, v);
    }
}

// Q4_K / Q5_K: 64 elements per 32 bytes of qs (low nibbles first); Q5_K's fifth bit t of qh[i] for element
// 32 t + i. Groups of 32 with their 6-bit scale and min.
template <bool kFive, class Block>
void k4_row(const Block & blk, uint8_t * u, float * s, float * m) {
    for (int j = 0; j < 4; ++j) {
        const __m256i b  = load256(blk.qs + 32 * j);
        __m256i       lo = _mm256_and_si256(b, _mm256_set1_epi8(0x0f));
        __m256i       hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi8(0x0f));
        if constexpr (kFive) {
            const __m256i qh = load256(blk.qh);
            lo = _mm256_mask_add_epi8(lo, _mm256_test_epi8_mask(qh, _mm256_set1_epi8(static_cast<char>(1 << (2 * j)))),
                                      lo, _mm256_set1_epi8(16));
            hi = _mm256_mask_add_epi8(hi, _mm256_test_epi8_mask(qh, _mm256_set1_epi8(static_cast<char>(2 << (2 * j)))),
                                      hi, _mm256_set1_epi8(16));
        }
        store256(u + 64 * j, lo);
        store256(u + 64 * j + 32, hi);
    }
    const float d = fp16_to_fp32(blk.d), dmin = fp16_to_fp32(blk.dmin);
    for (int j = 0; j < 8; ++j) {
        uint8_t sc, mn;
        quant::unpack_scale_min_k4(j, blk.scales, sc, mn);
        s[j] = d * static_cast<float>(sc);
        m[j] = -dmin * static_cast<float>(mn);
    }
}

void kquant_row(const quant::BlockQ4_K & blk, uint8_t * u, float * s, float * m) { k4_row<false>(blk, u, s, m); }
void kquant_row(const quant::BlockQ5_K & blk, uint8_t * u, float * s, float * m) { k4_row<true>(blk, u, s, m); }

// Q6_K: per half h of 128 elements, element 32 t + i (t = 0..3) has the low nibble of ql[64 h + 32 (t % 2) + i]
// (high nibble for t >= 2) and bits 2t, 2t + 1 of qh[32 h + i]. Groups of 16 with int8 scales.
void kquant_row(const quant::BlockQ6_K & blk, uint8_t * u, float * s, float * m) {
    for (int h = 0; h < 2; ++h) {
        const __m256i qh = load256(blk.qh + 32 * h);
        for (int t = 0; t < 4; ++t) {
            const __m256i ql  = load256(blk.ql + 64 * h + 32 * (t % 2));
            const __m256i low = _mm256_and_si256(t < 2 ? ql : _mm256_srli_epi16(ql, 4), _mm256_set1_epi8(0x0f));
            const __m256i hb  = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * t), _mm256_set1_epi8(0x03));
            store256(u + 128 * h + 32 * t, _mm256_or_si256(low, _mm256_slli_epi16(hb, 4)));
        }
    }
    const float d = fp16_to_fp32(blk.d);
    for (int j = 0; j < 16; ++j) {
        s[j] = d * static_cast<float>(blk.scales[j]);
        m[j] = 0.0f;
    }
}

// The grid formats and iq1_s / iq1_m (iq_levels_avx512.h, shared with the repacked rows form's tile): s = d x
// (2 s_j + 1) per group of the form, as the portable packer computes it from grid_levels.h / ternary_levels.h.
template <class Block>
void iq_row(const Block & blk, uint8_t * u, float * s, float * m) {
    const auto * b = reinterpret_cast<const uint8_t *>(&blk);
    __m512i      v[4];
    iq_codes<Block>(b, v);
    for (int q = 0; q < 4; ++q) {
        _mm512_storeu_si512(u + 64 * q, v[q]);
    }
    alignas(16) uint8_t sj[16];
    _mm_store_si128(reinterpret_cast<__m128i *>(sj), iq_group_s<Block>(b));
    const float d = iq_d<Block>(b);
    for (int j = 0; j < kQK_K / cpu_type_row(Block::kType).gemm_group; ++j) {
        s[j] = d * static_cast<float>(2 * sj[j] + 1);
        m[j] = 0.0f;
    }
}

void kquant_row(const quant::BlockIQ2_XXS & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockIQ2_XS & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockIQ2_S & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockIQ3_XXS & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockIQ3_S & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }

// tq1_0 and tq2_0 (ternary_x86.h), 32 elements a piece: the trits t (u = v + 1, s = d), as the portable packer
// computes them from ternary_levels.h.
template <class Block>
void ternary_row(const Block & blk, uint8_t * u, float * s, float * m) {
    const auto * b = reinterpret_cast<const uint8_t *>(&blk);
    constexpr int kGroup = cpu_type_row(Block::kType).gemm_group;
    __m256i v[8];
    if constexpr (std::is_same_v<Block, quant::BlockTQ1_0>) {
        tq1_pieces(b, v);
    }
    for (int p = 0; p < 8; ++p) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(u + 32 * p),
                            std::is_same_v<Block, quant::BlockTQ1_0> ? v[p] : tq2_piece(b, p));
    }
    const float d = fp16_to_fp32(ternary_detail::u16_at(b + offsetof(Block, d)));
    std::fill(s, s + kQK_K / kGroup, d);
    std::fill(m, m + kQK_K / kGroup, 0.0f);
}

void kquant_row(const quant::BlockIQ1_S & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockIQ1_M & blk, uint8_t * u, float * s, float * m) { iq_row(blk, u, s, m); }
void kquant_row(const quant::BlockTQ1_0 & blk, uint8_t * u, float * s, float * m) { ternary_row(blk, u, s, m); }
void kquant_row(const quant::BlockTQ2_0 & blk, uint8_t * u, float * s, float * m) { ternary_row(blk, u, s, m); }

// ---- the step into the panel -----------------------------------------------------------------------------------

// Groups [g0, g0 + kSpan / group) of the panel from the step: quad q of row r is the dword at u[r][4 q].
void transpose_step(const GemmFormat & f, const Step & st, int64_t g0, uint8_t * panel) {
    const size_t  gb    = gemm_group_bytes(f);
    const __m512i rowsv = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(kSpan));
    for (int g = 0; g < kSpan / f.group; ++g) {
        uint8_t * out = panel + static_cast<size_t>(g0 + g) * gb;
        for (int q = 0; q < f.group / 4; ++q) {
            const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xffff, rowsv, &st.u[0][g * f.group + 4 * q], 1);
            _mm512_storeu_si512(out + q * 64, v);
        }
        auto * s = reinterpret_cast<float *>(out + static_cast<size_t>(f.group) * kGemmRows);
        for (int r = 0; r < kGemmRows; ++r) {
            s[r]             = st.s[r][g];
            s[kGemmRows + r] = st.m[r][g];
        }
    }
}

template <class Fill>
void pack_steps(const GemmFormat & f, int rows, int64_t k, void * panel, Fill fill) {
    Step st;
    for (int64_t i0 = 0; i0 < k; i0 += kSpan) {
        for (int r = 0; r < kGemmRows; ++r) {
            if (r < rows) {
                fill(r, i0, st.u[r], st.s[r], st.m[r]);
            } else {
                std::memset(st.u[r], 0, sizeof(st.u[r]));
                std::fill(st.s[r], st.s[r] + kSpan / 16, 0.0f);
                std::fill(st.m[r], st.m[r] + kSpan / 16, 0.0f);
            }
        }
        transpose_step(f, st, i0 / f.group, static_cast<uint8_t *>(panel));
    }
}

template <class Block>
void pack_legacy(const GemmFormat & f, const void * w, size_t w_row, int rows, int64_t k, void * panel, __m256i table) {
    pack_steps(f, rows, k, panel, [&](int r, int64_t i0, uint8_t * u, float * s, float * m) {
        legacy_row<Block>(static_cast<const char *>(w) + r * w_row, i0 / kQK32, u, s, m, table);
    });
}

template <class Block>
void pack_kquant(const GemmFormat & f, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    pack_steps(f, rows, k, panel, [&](int r, int64_t i0, uint8_t * u, float * s, float * m) {
        kquant_row(reinterpret_cast<const Block *>(static_cast<const char *>(w) + r * w_row)[i0 / kQK_K], u, s, m);
    });
}

} // namespace

bool gemm_pack_avx512vnni(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const GemmFormat f = gemm_format(weight);
    if (k % kSpan != 0) {
        return false;
    }
    bool packed = false;
    with_type_row(weight, [&]<ggml_type T>() {
        using Block = LevelsBlockOf<T>;
        if constexpr (cpu_type_row(T).gemm_group == 0) {
            return;
        } else if constexpr (kTypeTable[T].blck_size == quant::kQK_K) {
            // the K-quants with a row form here (kquant_row); the others decline and take the portable packer
            if constexpr (requires(const Block & b, uint8_t * u, float * x) { kquant_row(b, u, x, x); }) {
                pack_kquant<Block>(f, w, w_row, rows, k, panel);
                packed = true;
            }
        } else {
            const int8_t * values = quant::value_table<Block>();
            pack_legacy<Block>(f, w, w_row, rows, k, panel,
                               values != nullptr ? biased_table(values, f.bias) : _mm256_setzero_si256());
            packed = true;
        }
    });
    return packed;
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
