// The lookup tables of the IQ grid formats, and the Format objects of the formats that read them.
//
// A grid format stores groups of 8 (or 4) weights as an index into a fixed set of points (the grid) plus sign
// bits and a small per-group scale. The grids are format data: they must equal upstream ggml's entry for entry
// (iq_grids.cpp is generated from upstream's ggml-common.h). Entry n packs one point, element j in byte j.
#pragma once

#include "quant/formats.h"

#include <array>
#include <cstdint>

namespace switchyard::quant {

extern const uint64_t kIq2xxsGrid[256]; // IQ2_XXS: bytes 8, 25, 43
extern const uint64_t kIq2xsGrid[512];  // IQ2_XS: bytes 8, 25, 43
extern const uint64_t kIq2sGrid[1024];  // IQ2_S: bytes 8, 25, 43
extern const uint32_t kIq3xxsGrid[256]; // IQ3_XXS: bytes 4, 12, ..., 52, 62
extern const uint32_t kIq3sGrid[512];   // IQ3_S: odd bytes 1..15
extern const uint64_t kIq1sGrid[2048];  // IQ1_S, IQ1_M: int8 bytes -1, 0, 1

// IQ2_XXS, IQ2_XS and IQ3_XXS store the signs of a group of 8 in 7 bits: the eighth sign is the one that makes
// the number of negative values even (their quantizers flip the smallest weight to make it so). Entry i is the
// full 8-bit mask, bit j set when element j is negative.
inline constexpr std::array<uint8_t, 128> kEvenSigns = [] {
    std::array<uint8_t, 128> t{};
    for (unsigned i = 0; i < 128; ++i) {
        unsigned parity = 0;
        for (unsigned b = i; b != 0; b >>= 1) {
            parity ^= b & 1u;
        }
        t[i] = static_cast<uint8_t>(i | (parity << 7));
    }
    return t;
}();
static_assert(kEvenSigns[1] == 0x81 && kEvenSigns[3] == 0x03 && kEvenSigns[127] == 0xff);

// The offset IQ1_S and IQ1_M add to (or, with the group's sign bit set, subtract from) each grid value.
inline constexpr float kIq1Delta = 0.125f;

} // namespace switchyard::quant
