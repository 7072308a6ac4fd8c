// The float GEMM's bf16 and f16 tiles on AMX (gemm_float.h). bf16: the bf16 panels as they are (a step of the panel, the 16
// rows' element pairs in 64 bytes, is one row of an AMX B tile in its pair layout, so 16 steps are a 1 KiB B tile),
// activations rounded to bf16 in chunks of 32 columns laid out as A tiles: per block of 32 elements, 32 columns x
// 64 bytes. A tile call multiplies up to two panels (32 weight rows) by up to 32 columns with four tdpbf16ps per
// block into four 16 x 16 float accumulators (C[column][row]: a C row is 16 consecutive outputs of one column,
// stored straight into dst). The products are exact and summed in float; subnormal inputs count as zero, as in
// vdpbf16ps and upstream's bf16 dot product.
//
// f16: an f16 value (11 significant bits) is exactly hi + lo, hi its top 8 significant bits and lo the other 3,
// both bf16 (normal in bf16's range, so none counts as zero; gemm_float_split_f16 has the rule for a lo that is
// zero, infinities and NaNs). The weights are packed as a hi and a lo B tile per
// block of 32 elements, the activations (rounded through f16 first, as upstream rounds them) as a hi and a lo A
// tile of 16 columns, and each product is wx = hi*hi + hi*lo + lo*hi + lo*lo: four tdpbf16ps of exact products,
// summed in float, upstream's f16 dot product to float rounding.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/amx_tiles.h"
#include "cpu/quants/gemm_float.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

constexpr int kBlock      = kGemmAmxBlock;    // elements per k block (one 64-byte tile row of bf16)
constexpr int kBlockPairs = kBlock / 2;       // B tile rows per block
constexpr int kTileBytes  = 16 * 64;          // one full tile
constexpr int kChunkBlock = kGemmAmxCols * 64; // bytes of a chunk's block: 32 columns x 64 bytes

// The bf16 tile's tiles (amx_tiles.h): tmm0..3 the accumulators (C of A0 x B0, A0 x B1, A1 x B0, A1 x B1), tmm4 /
// tmm5 the columns 0..15 / 16..31, tmm6 / tmm7 the two panels (the f16 tile's: see tile_f16).

// out[r + c * out_col] for r < rows, c < n from a 16 x 16 accumulator (row c: column c's 16 outputs), which
// stored(address, stride) writes (the tile intrinsics take the tile number as a literal).
template <class Stored>
void store(Stored stored, float * out, int64_t out_col, int rows, int n) {
    if (rows == 16) {
        stored(out, out_col * static_cast<int64_t>(sizeof(float)));
        return;
    }
    alignas(64) float buf[16 * 16];
    stored(buf, 64);
    for (int c = 0; c < n; ++c) {
        std::memcpy(out + c * out_col, buf + c * 16, static_cast<size_t>(rows) * sizeof(float));
    }
}

template <bool kTwoCols, bool kTwoPanels>
void tile(const GemmTileArgs & a) {
    const int  n0 = a.n_cols < 16 ? a.n_cols : 16, n1 = a.n_cols - n0;
    AmxTileConfig cfg;
    cfg.set(0, n0);
    cfg.set(4, n0);
    cfg.set(6, 16);
    if constexpr (kTwoPanels) {
        cfg.set(1, n0);
        cfg.set(7, 16);
    }
    if constexpr (kTwoCols) {
        cfg.set(2, n1);
        cfg.set(5, n1);
        if constexpr (kTwoPanels) {
            cfg.set(3, n1);
        }
    }
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    if constexpr (kTwoPanels) {
        _tile_zero(1);
    }
    if constexpr (kTwoCols) {
        _tile_zero(2);
        if constexpr (kTwoPanels) {
            _tile_zero(3);
        }
    }
    const auto *  x      = static_cast<const uint8_t *>(a.chunk);
    const auto *  p0     = static_cast<const uint8_t *>(a.panel);
    const auto *  p1     = static_cast<const uint8_t *>(a.panel2);
    const int64_t blocks = a.k / kBlock;
    for (int64_t b = 0; b < blocks; ++b, x += kChunkBlock, p0 += kTileBytes) {
        _tile_loadd(4, x, 64);
        _tile_loadd(6, p0, 64);
        _tile_dpbf16ps(0, 4, 6);
        if constexpr (kTwoPanels) {
            _tile_loadd(7, p1, 64);
            p1 += kTileBytes;
            _tile_dpbf16ps(1, 4, 7);
        }
        if constexpr (kTwoCols) {
            _tile_loadd(5, x + kTileBytes, 64);
            _tile_dpbf16ps(2, 5, 6);
            if constexpr (kTwoPanels) {
                _tile_dpbf16ps(3, 5, 7);
            }
        }
    }
    store([](void * at, int64_t stride) { _tile_stored(0, at, stride); }, a.out, a.out_col, a.rows, n0);
    if constexpr (kTwoPanels) {
        store([](void * at, int64_t stride) { _tile_stored(1, at, stride); }, a.out + kGemmRows, a.out_col, a.rows2, n0);
    }
    if constexpr (kTwoCols) {
        float * out1 = a.out + 16 * a.out_col;
        store([](void * at, int64_t stride) { _tile_stored(2, at, stride); }, out1, a.out_col, a.rows, n1);
        if constexpr (kTwoPanels) {
            store([](void * at, int64_t stride) { _tile_stored(3, at, stride); }, out1 + kGemmRows, a.out_col, a.rows2, n1);
        }
    }
    _tile_release();
}

static_assert(kBlockPairs == 16, "a block's pairs fill a B tile's 16 rows");

// ---- f16 ----------------------------------------------------------------------------------------------------

// The bf16 hi and lo parts of 16 floats holding f16 values (gemm_float.h: gemm_float_split_f16 is the rule and
// the portable form), as bf16 bits in the low halves of the 32-bit lanes.
inline void split(__m512 v, __m512i & hi, __m512i & lo) {
    constexpr __mmask16 kAll  = 0xffff; // (the zero-masking shifts: the plain ones trip GCC 12's -Wmaybe-uninitialized)
    const __m512i       bits  = _mm512_castps_si512(v);
    const __m512i       abs   = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
    const __m512i       top   = _mm512_and_si512(bits, _mm512_set1_epi32(static_cast<int>(0xffff0000u)));
    const __mmask16     inf   = _mm512_cmpeq_epi32_mask(abs, _mm512_set1_epi32(0x7f800000));
    const __mmask16     nan   = _mm512_cmpgt_epi32_mask(abs, _mm512_set1_epi32(0x7f800000));
    const __mmask16     zero  = _mm512_cmpeq_epi32_mask(abs, _mm512_setzero_si512());
    hi = _mm512_maskz_srli_epi32(kAll, _mm512_mask_or_epi32(top, nan, top, _mm512_set1_epi32(0x00400000)), 16);
    const __m512 rest = _mm512_maskz_sub_ps(static_cast<__mmask16>(~(inf | nan)), v, _mm512_castsi512_ps(top));
    lo = _mm512_maskz_srli_epi32(kAll, _mm512_castps_si512(rest), 16);
    const __mmask16 lo_zero = _mm512_cmpeq_epi32_mask(lo, _mm512_setzero_si512());
    const __mmask16 tiny    = static_cast<__mmask16>((lo_zero & ~zero & ~nan) | inf);
    const __m512i   signed_tiny =
        _mm512_or_si512(_mm512_and_si512(_mm512_maskz_srli_epi32(kAll, bits, 16), _mm512_set1_epi32(0x8000)),
                        _mm512_set1_epi32(0x0080));
    lo = _mm512_mask_mov_epi32(lo, tiny, signed_tiny);
}

// f16 panel (gemm_float.h): per block of 32 elements the hi B tile then the lo B tile, each 16 pair-rows of the
// 16 weight rows' (element 2s, element 2s + 1) bf16 pairs.
void pack_f16(const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const __mmask16 mask    = static_cast<__mmask16>((1u << rows) - 1u);
    const __m512i   rows_at = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                 _mm512_set1_epi32(static_cast<int>(w_row)));
    const auto *    base    = static_cast<const char *>(w);
    auto *          out     = static_cast<uint8_t *>(panel);
    constexpr __mmask16 kAll = 0xffff;
    for (int64_t s = 0; s < k / 2; ++s) {
        const __m512i pair = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, rows_at, base + s * 4, 1);
        const __m512  even = _mm512_maskz_cvtph_ps(kAll, _mm512_maskz_cvtepi32_epi16(kAll, pair));
        const __m512  odd  = _mm512_maskz_cvtph_ps(kAll, _mm512_maskz_cvtepi32_epi16(kAll, _mm512_maskz_srli_epi32(kAll, pair, 16)));
        __m512i       eh, el, oh, ol;
        split(even, eh, el);
        split(odd, oh, ol);
        uint8_t * block = out + (s / kBlockPairs) * 2 * kTileBytes + (s % kBlockPairs) * 64;
        _mm512_storeu_si512(block, _mm512_or_si512(eh, _mm512_maskz_slli_epi32(kAll, oh, 16)));
        _mm512_storeu_si512(block + kTileBytes, _mm512_or_si512(el, _mm512_maskz_slli_epi32(kAll, ol, 16)));
    }
}

template <bool kTwoPanels>
void tile_f16(const GemmTileArgs & a) {
    AmxTileConfig cfg;
    cfg.set(0, a.n_cols); // C: panel 0
    cfg.set(4, a.n_cols); // A hi
    cfg.set(5, a.n_cols); // A lo
    cfg.set(6, 16);       // B hi, panel 0
    cfg.set(7, 16);       // B lo, panel 0
    if constexpr (kTwoPanels) {
        cfg.set(1, a.n_cols); // C: panel 1
        cfg.set(2, 16);       // B hi, panel 1
        cfg.set(3, 16);       // B lo, panel 1
    }
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    if constexpr (kTwoPanels) {
        _tile_zero(1);
    }
    const auto *  x      = static_cast<const uint8_t *>(a.chunk);
    const auto *  p0     = static_cast<const uint8_t *>(a.panel);
    const auto *  p1     = static_cast<const uint8_t *>(a.panel2);
    const int64_t blocks = a.k / kBlock;
    for (int64_t b = 0; b < blocks; ++b, x += 2 * kTileBytes, p0 += 2 * kTileBytes) {
        _tile_loadd(4, x, 64);
        _tile_loadd(6, p0, 64);
        _tile_loadd(5, x + kTileBytes, 64);
        _tile_loadd(7, p0 + kTileBytes, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(0, 4, 7);
        _tile_dpbf16ps(0, 5, 6);
        _tile_dpbf16ps(0, 5, 7);
        if constexpr (kTwoPanels) {
            _tile_loadd(2, p1, 64);
            _tile_loadd(3, p1 + kTileBytes, 64);
            p1 += 2 * kTileBytes;
            _tile_dpbf16ps(1, 4, 2);
            _tile_dpbf16ps(1, 4, 3);
            _tile_dpbf16ps(1, 5, 2);
            _tile_dpbf16ps(1, 5, 3);
        }
    }
    store([](void * at, int64_t stride) { _tile_stored(0, at, stride); }, a.out, a.out_col, a.rows, a.n_cols);
    if constexpr (kTwoPanels) {
        store([](void * at, int64_t stride) { _tile_stored(1, at, stride); }, a.out + kGemmRows, a.out_col, a.rows2, a.n_cols);
    }
    _tile_release();
}

} // namespace

void gemm_float_pack_amx_f16(const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    pack_f16(w, w_row, rows, k, panel);
}

void gemm_float_tile_amx_f16(const GemmTileArgs & a) {
    a.panel2 != nullptr ? tile_f16<true>(a) : tile_f16<false>(a);
}

void gemm_float_tile_amx(const GemmTileArgs & a) {
    const bool two_cols = a.n_cols > 16, two_panels = a.panel2 != nullptr;
    if (two_cols) {
        two_panels ? tile<true, true>(a) : tile<true, false>(a);
    } else {
        two_panels ? tile<false, true>(a) : tile<false, false>(a);
    }
}

} // namespace switchyard::cpu::quants

#endif // __x86_64__
