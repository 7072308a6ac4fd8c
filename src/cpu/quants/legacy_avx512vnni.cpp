// AVX-512 VNNI kernels of the 32-element formats (q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl, mxfp4) against q8_0 /
// q8_1 activations, four blocks (128 elements) per step:
//
//  - the weights: two 64-byte loads cover the four blocks; one byte permute (VBMI) gathers their 4 x 16 level
//    bytes, low and high nibbles give levels 0..15 and 16..31 of each block as unsigned codes (q5: the fifth bit
//    added from qh, tested through a byte gather; iq4_nl / mxfp4: looked up in their table shifted by +128;
//    q8_0: the levels with the sign bit flipped), one more byte permute gathers the four fp16 scales, spread
//    over the four int32 lanes of their block;
//  - the activations: rearranged once per call (a chunk of the row at a time, on the stack) into the same lane
//    order, with per block the scale, the correction -offset * sum(levels) that turns the unsigned codes back
//    into levels, and for q8_1 its s;
//  - vpdpbusd (unsigned codes x signed levels) into int32 lanes that start from the correction, then
//    d_w * d_a per lane into float lanes. One horizontal sum per row and column.
//
// The row's end is read with masked loads, so a kernel never touches memory past its rows.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/matvec_driver.h"
#include "cpu/quants/matvec_isa.h"

#include "cpu/quants/levels.h"
#include "cpu/simd/int_avx512.h"

#include <cstddef>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using namespace simd;


constexpr int     kGroupBlocks = 4;                // blocks per step
constexpr int64_t kChunkBlocks = 128;              // blocks of activations rearranged at a time (4096 elements)
constexpr int     kGroups      = kChunkBlocks / kGroupBlocks;

// ---- index tables -----------------------------------------------------------------------------------------------

// Byte 16 i + j: byte `first + j` of block i (j < 16), for blocks of `bytes` bytes.
constexpr std::array<uint8_t, 64> block_bytes(int bytes, int first) {
    std::array<uint8_t, 64> t{};
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 16; ++j) {
            t[16 * i + j] = static_cast<uint8_t>(i * bytes + first + j);
        }
    }
    return t;
}

// Bytes 2 l, 2 l + 1 (l < 16): the 16-bit field at byte `offset` of block l / 4.
constexpr std::array<uint8_t, 64> block_halves(int bytes, int offset) {
    std::array<uint8_t, 64> t{};
    for (int l = 0; l < 16; ++l) {
        t[2 * l]     = static_cast<uint8_t>((l / 4) * bytes + offset);
        t[2 * l + 1] = static_cast<uint8_t>((l / 4) * bytes + offset + 1);
    }
    return t;
}

// Byte 16 i + j: the qh byte holding the fifth bit of element `first + j` of block i; and the bit's position.
constexpr std::array<uint8_t, 64> fifth_bit_bytes(int bytes, int qh, int first) {
    std::array<uint8_t, 64> t{};
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 16; ++j) {
            t[16 * i + j] = static_cast<uint8_t>(i * bytes + qh + (first + j) / 8);
        }
    }
    return t;
}

constexpr std::array<uint8_t, 64> fifth_bit_masks() {
    std::array<uint8_t, 64> t{};
    for (int b = 0; b < 64; ++b) {
        t[b] = static_cast<uint8_t>(1u << (b % 8));
    }
    return t;
}

// Byte 4 l (l < 16): the byte at `offset` of block l / 4 (the other bytes are zeroed by the mask).
constexpr std::array<uint8_t, 64> block_byte_per_lane(int bytes, int offset) {
    std::array<uint8_t, 64> t{};
    for (int l = 0; l < 16; ++l) {
        t[4 * l] = static_cast<uint8_t>((l / 4) * bytes + offset);
    }
    return t;
}

// A table of 16 signed levels + 128 (unsigned codes), repeated in every 128-bit lane for vpshufb.
inline __m512i shifted_table(const int8_t * levels) {
    alignas(16) uint8_t t[16];
    for (int i = 0; i < 16; ++i) {
        t[i] = static_cast<uint8_t>(levels[i] + 128);
    }
    return _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i *>(t)));
}

// ---- formats ----------------------------------------------------------------------------------------------------

enum class Codes { kNibbles, kTable, kBytes };

// A 32-element format as this level reads it, all from its block struct (quant/blocks.h) and its row: where its
// levels (kQs), scale (kD) and fifth bits (kQh, -1: none) are; whether its codes are nibbles, bytes (q8_0) or
// indexes into a value table (iq4_nl, mxfp4: their biased table); the offset that makes a code its level (the
// GEMM bias; 128 for the table formats, whose table is biased by 128); an E8M0 scale (mxfp4).
template <ggml_type T>
struct Legacy : TypeRow<T> {
    using Block                             = quant::BlockOf<T>;
    static constexpr const int8_t * kValues = quant::value_table<Block>();
    static_assert(offsetof(Block, qs) > 0, "a scale or exponent leads the block");

    static constexpr int   kQs     = offsetof(Block, qs);
    static constexpr int   kD      = 0; // the scale (mxfp4: its exponent) leads every block
    static constexpr int   kQh     = [] {
        if constexpr (requires { Block::qh; }) {
            return static_cast<int>(offsetof(Block, qh));
        } else {
            return -1;
        }
    }();
    static constexpr Codes kCodes  = kValues != nullptr                   ? Codes::kTable
                                     : sizeof(Block::qs) == quant::kQK32 ? Codes::kBytes
                                                                         : Codes::kNibbles;
    static constexpr int   kOffset = kValues != nullptr ? 128 : cpu_type_row(T).gemm_bias;
    static constexpr bool  kE8M0   = requires { Block::e; };
};

// Bytes a step reads from its first block on: 128 (two loads), q8_0 136 (levels 16..31 from a second window).
template <class F>
constexpr int64_t window() {
    return F::kCodes == Codes::kBytes ? 136 : 128;
}

// The constants of a format's step, loaded once per call.
template <class F>
struct Consts {
    __m512i qs_lo, qs_hi, halves, mins, qh_lo, qh_hi, bit_masks, table, e_bytes;
    Consts() {
        if constexpr (F::kCodes == Codes::kBytes) {
            qs_lo = vector_of(block_bytes(F::kBytes, F::kQs));
            qs_hi = vector_of(block_bytes(F::kBytes, F::kQs + 16 - 8)); // from the window at +8
        } else {
            qs_lo = vector_of(block_bytes(F::kBytes, F::kQs));
        }
        if constexpr (F::kE8M0) {
            e_bytes = vector_of(block_byte_per_lane(F::kBytes, F::kD));
        } else {
            halves = vector_of(block_halves(F::kBytes, F::kD));
        }
        if constexpr (F::kHasMin) {
            mins = vector_of(block_halves(F::kBytes, F::kD + 2));
        }
        if constexpr (F::kQh >= 0) {
            qh_lo     = vector_of(fifth_bit_bytes(F::kBytes, F::kQh, 0));
            qh_hi     = vector_of(fifth_bit_bytes(F::kBytes, F::kQh, 16));
            bit_masks = vector_of(fifth_bit_masks());
        }
        if constexpr (F::kCodes == Codes::kTable) {
            table = shifted_table(F::kValues);
        }
    }
};

// One step's weights: codes of levels 0..15 (lo) and 16..31 (hi) of four blocks, scales (and mins) per lane.
struct Step {
    __m512i lo, hi;
    __m512  d, m;
};

// Four blocks at wb, of which `left` bytes may be read (>= window<F>() on the fast path).
template <class F, bool kTail>
Step weights(const uint8_t * wb, int64_t left, const Consts<F> & k) {
    const __m512i v0 = kTail ? load_bytes(wb, left) : load512(wb);
    const __m512i v1 = kTail ? load_bytes(wb + 64, left - 64) : load512(wb + 64);
    Step          s;
    if constexpr (F::kCodes == Codes::kBytes) {
        const __m512i w0   = kTail ? load_bytes(wb + 8, left - 8) : load512(wb + 8);
        const __m512i w1   = kTail ? load_bytes(wb + 72, left - 72) : load512(wb + 72);
        const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
        s.lo               = _mm512_xor_si512(_mm512_permutex2var_epi8(v0, k.qs_lo, v1), flip);
        s.hi               = _mm512_xor_si512(_mm512_permutex2var_epi8(w0, k.qs_hi, w1), flip);
    } else {
        const __m512i qs   = _mm512_permutex2var_epi8(v0, k.qs_lo, v1);
        const __m512i low4 = _mm512_set1_epi8(0x0f);
        s.lo               = _mm512_and_si512(qs, low4);
        s.hi               = _mm512_and_si512(_mm512_srli_epi16(qs, 4), low4);
        if constexpr (F::kCodes == Codes::kTable) {
            s.lo = _mm512_shuffle_epi8(k.table, s.lo);
            s.hi = _mm512_shuffle_epi8(k.table, s.hi);
        }
        if constexpr (F::kQh >= 0) {
            const __m512i   sixteen = _mm512_set1_epi8(16);
            const __mmask64 bit_lo  = _mm512_test_epi8_mask(_mm512_permutex2var_epi8(v0, k.qh_lo, v1), k.bit_masks);
            const __mmask64 bit_hi  = _mm512_test_epi8_mask(_mm512_permutex2var_epi8(v0, k.qh_hi, v1), k.bit_masks);
            s.lo                    = _mm512_mask_add_epi8(s.lo, bit_lo, s.lo, sixteen);
            s.hi                    = _mm512_mask_add_epi8(s.hi, bit_hi, s.hi, sixteen);
        }
    }
    if constexpr (F::kE8M0) {
        const __m512i e = _mm512_maskz_permutex2var_epi8(0x1111111111111111ull, v0, k.e_bytes, v1);
        s.d = _mm512_scalef_ps(_mm512_set1_ps(1.0f), _mm512_cvtepi32_ps(_mm512_sub_epi32(e, _mm512_set1_epi32(128))));
    } else {
        s.d = halves_to_floats(_mm512_permutex2var_epi8(v0, k.halves, v1));
    }
    if constexpr (F::kHasMin) {
        s.m = halves_to_floats(_mm512_permutex2var_epi8(v0, k.mins, v1));
    }
    return s;
}

// ---- activations --------------------------------------------------------------------------------------------

// One column's chunk of activations in step order: per step, the 4 x 16 levels 0..15 and 16..31 of its blocks,
// the starting int32 lanes (the correction -offset * sum(levels) in lane 4 i, zeros elsewhere), d_a per lane, and
// for q8_1 s in lane 4 i.
struct alignas(64) Prepared {
    int8_t  lo[kGroups][64];
    int8_t  hi[kGroups][64];
    int32_t start[kGroups][16];
    float   d[kGroups][16];
    float   s[kGroups][16];
};

template <class F>
void prepare(const uint8_t * act, int64_t b0, int64_t b1, Prepared & p) {
    constexpr size_t kActBytes = F::kActBytes;
    constexpr size_t kActQs    = F::kActQs;
    const int64_t    n         = b1 - b0;
    const int64_t    padded    = (n + kGroupBlocks - 1) / kGroupBlocks * kGroupBlocks;
    for (int64_t b = 0; b < padded; ++b) {
        const int64_t g = b / kGroupBlocks, i = b % kGroupBlocks;
        if (b >= n) { // the padding of the row's last step: contributes nothing
            std::memset(p.lo[g] + 16 * i, 0, 16);
            std::memset(p.hi[g] + 16 * i, 0, 16);
            for (int l = 0; l < 4; ++l) {
                p.start[g][4 * i + l] = 0;
                p.d[g][4 * i + l]     = 0.0f;
                p.s[g][4 * i + l]     = 0.0f;
            }
            continue;
        }
        const uint8_t * y = act + static_cast<size_t>(b0 + b) * kActBytes;
        std::memcpy(p.lo[g] + 16 * i, y + kActQs, 16);
        std::memcpy(p.hi[g] + 16 * i, y + kActQs + 16, 16);
        int sum = 0;
        for (int j = 0; j < 32; ++j) {
            sum += static_cast<int8_t>(y[kActQs + j]);
        }
        const float d = half(y);
        for (int l = 0; l < 4; ++l) {
            p.start[g][4 * i + l] = l == 0 ? -F::kOffset * sum : 0;
            p.d[g][4 * i + l]     = d;
            p.s[g][4 * i + l]     = l == 0 && F::kHasMin ? half(y + 2) : 0.0f;
        }
    }
}

// ---- kernel -------------------------------------------------------------------------------------------------

// Steps [first, last) of the row chunk at w (its row has `left` bytes from w on) times C prepared columns, added
// to acc / accm; kTail: masked loads, for the steps whose window reaches past the row.
template <class F, int C, bool kTail>
void step_range(const uint8_t * w, int64_t first, int64_t last, int64_t left, const Consts<F> & k,
                const Prepared * const * p, __m512 * acc, __m512 * accm) {
    constexpr int64_t kStepBytes = kGroupBlocks * F::kBytes;
    for (int64_t g = first; g < last; ++g) {
        const uint8_t * wb = w + g * kStepBytes;
        prefetch_lines<kStepBytes>(wb + kPrefetchBytes);
        const Step s = weights<F, kTail>(wb, left - g * kStepBytes, k);
        for (int c = 0; c < C; ++c) {
            __m512i dot = _mm512_load_si512(p[c]->start[g]);
            dot         = _mm512_dpbusd_epi32(dot, s.lo, _mm512_load_si512(p[c]->lo[g]));
            dot         = _mm512_dpbusd_epi32(dot, s.hi, _mm512_load_si512(p[c]->hi[g]));
            acc[c]      = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(s.d, _mm512_load_ps(p[c]->d[g])), acc[c]);
            if constexpr (F::kHasMin) {
                accm[c] = _mm512_fmadd_ps(s.m, _mm512_load_ps(p[c]->s[g]), accm[c]);
            }
        }
    }
}

template <class F, int C>
void kernel_cols(const MatVecArgs & a) {
    const Consts<F>  k;
    const int64_t    nb = a.k / kQK32;
    Prepared         prepared[C]; // 10 KiB per column
    const Prepared * p[C];
    for (int c = 0; c < C; ++c) {
        p[c] = &prepared[c];
    }
    const auto * act = static_cast<const uint8_t *>(a.act);
    for (int64_t b0 = 0; b0 < nb; b0 += kChunkBlocks) {
        const int64_t b1 = b0 + kChunkBlocks < nb ? b0 + kChunkBlocks : nb;
        for (int c = 0; c < C; ++c) {
            prepare<F>(act + static_cast<size_t>(c) * a.act_col, b0, b1, prepared[c]);
        }
        const int64_t steps = (b1 - b0 + kGroupBlocks - 1) / kGroupBlocks;
        const int64_t left  = (nb - b0) * F::kBytes; // bytes of the row from the chunk on
        // steps whose window lies inside the row take plain loads; the last few masked ones
        int64_t fast = (left - window<F>()) / (kGroupBlocks * F::kBytes) + 1;
        fast         = left < window<F>() ? 0 : (fast < steps ? fast : steps);
        for (int64_t r = 0; r < a.rows; ++r) {
            const uint8_t * w = static_cast<const uint8_t *>(a.w) + static_cast<size_t>(r) * a.w_row + b0 * F::kBytes;
            __m512          acc[C], accm[C];
            for (int c = 0; c < C; ++c) {
                acc[c] = accm[c] = _mm512_setzero_ps();
            }
            step_range<F, C, false>(w, 0, fast, left, k, p, acc, accm);
            step_range<F, C, true>(w, fast, steps, left, k, p, acc, accm);
            for (int c = 0; c < C; ++c) {
                float &     o = a.out[r * a.out_row + c * a.out_col];
                const float v = hsum(acc[c]) + (F::kHasMin ? hsum(accm[c]) : 0.0f);
                o             = b0 == 0 ? v : o + v;
            }
        }
    }
}

template <class F>
void kernel(const MatVecArgs & a) {
    for_column_count(a, [&]<int C>() { kernel_cols<F, C>(a); });
}

} // namespace

// Every 32-element format with a GEMM form (its row): their fields say how to read them (Legacy).
MatVecFn legacy_avx512vnni(ggml_type weight) {
    MatVecFn f = nullptr;
    with_type_row(weight, [&]<ggml_type T>() {
        if constexpr (cpu_type_row(T).gemm_group != 0 && kTypeTable[T].blck_size == quant::kQK32) {
            f = kernel<Legacy<T>>;
        }
    });
    return f;
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
