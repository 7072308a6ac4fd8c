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

} // namespace switchyard::cpu::quants
