// The float GEMM's bf16 tile on AMX (gemm_float.h): the bf16 panels as they are (a step of the panel, the 16
// rows' element pairs in 64 bytes, is one row of an AMX B tile in its pair layout, so 16 steps are a 1 KiB B tile),
// activations rounded to bf16 in chunks of 32 columns laid out as A tiles: per block of 32 elements, 32 columns x
// 64 bytes. A tile call multiplies up to two panels (32 weight rows) by up to 32 columns with four tdpbf16ps per
// block into four 16 x 16 float accumulators (C[column][row]: a C row is 16 consecutive outputs of one column,
// stored straight into dst). The products are exact and summed in float; subnormal inputs count as zero, as in
// vdpbf16ps and upstream's bf16 dot product.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

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

// The tile configuration (palette 1): tmm0..3 the accumulators (C of A0 x B0, A0 x B1, A1 x B0, A1 x B1),
// tmm4 / tmm5 the columns 0..15 / 16..31, tmm6 / tmm7 the two panels. Unused tiles keep zero rows.
struct alignas(64) TileConfig {
    uint8_t  palette    = 1;
    uint8_t  start_row  = 0;
    uint8_t  reserved[14] = {};
    uint16_t colsb[16]  = {};
    uint8_t  rows[16]   = {};
};
static_assert(sizeof(TileConfig) == 64);

void set_tile(TileConfig & c, int t, int rows) {
    c.rows[t]  = static_cast<uint8_t>(rows);
    c.colsb[t] = 64;
}

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
    TileConfig cfg;
    set_tile(cfg, 0, n0);
    set_tile(cfg, 4, n0);
    set_tile(cfg, 6, 16);
    if constexpr (kTwoPanels) {
        set_tile(cfg, 1, n0);
        set_tile(cfg, 7, 16);
    }
    if constexpr (kTwoCols) {
        set_tile(cfg, 2, n1);
        set_tile(cfg, 5, n1);
        if constexpr (kTwoPanels) {
            set_tile(cfg, 3, n1);
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

} // namespace

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
