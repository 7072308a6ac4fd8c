// The AMX tile configuration the GEMM tiles load (palette 1: up to 8 tiles of up to 16 rows x 64 bytes). Include
// only from files built with the AMX flags (*_amx.cpp).
#pragma once

#include <cstdint>

namespace switchyard::cpu::quants {

struct alignas(64) AmxTileConfig {
    uint8_t  palette      = 1;
    uint8_t  start_row    = 0;
    uint8_t  reserved[14] = {};
    uint16_t colsb[16]    = {};
    uint8_t  rows[16]     = {};

    // tile t: `rows` rows of `colsb` bytes (unset tiles keep zero rows)
    void set(int t, int n_rows, int n_colsb = 64) {
        rows[t]  = static_cast<uint8_t>(n_rows);
        colsb[t] = static_cast<uint16_t>(n_colsb);
    }
};
static_assert(sizeof(AmxTileConfig) == 64, "ldtilecfg reads 64 bytes");

// Runs steps 0 .. n - 1 with the tile unit and AVX-512 side by side: step i's sums are stored (store(i)), the
// products of step i + 1 are issued (issue(i + 1)), and then the sums of step i - 1, stored one step earlier so
// that their loads never wait on a tile store, are scaled (scale(i - 1)) while the tile unit works. store and
// scale alternate between two buffers by the step's parity.
template <class Issue, class Store, class Scale>
inline void run_tile_pipeline(int64_t n, Issue && issue, Store && store, Scale && scale) {
    if (n == 0) {
        return;
    }
    issue(0);
    for (int64_t i = 0; i < n; ++i) {
        store(i);
        if (i + 1 < n) {
            issue(i + 1);
        }
        if (i >= 1) {
            scale(i - 1);
        }
    }
    scale(n - 1);
}

} // namespace switchyard::cpu::quants
