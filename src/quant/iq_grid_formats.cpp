// The IQ grid formats (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M): reference dequantizers, giving
// upstream's floats bit for bit, and the Format objects. There is no quantizer here: upstream quantizes these
// formats only with an importance-matrix search over the grid, so from_float_ref and quantize_rows stay null.
// Layouts: iq_blocks.h; grids and the sign rule: iq_grids.h.
//
// The arithmetic follows the format's definition in the order upstream evaluates it (group scale first, then
// times the grid value, then the sign), so the results are identical, not merely close.
#include "quant/iq_grid_walk.h"

#include <bit>

namespace switchyard::quant {

namespace {

// Byte j of a grid entry.
uint8_t grid_byte(uint64_t point, int j) {
    return static_cast<uint8_t>(point >> (8 * j));
}

// The scalar steps of the walks (iq_grid_walk.h).
struct ScalarPut {
    // Negating (rather than multiplying by -1, which may keep a NaN's sign) flips the sign bit of a NaN from a NaN
    // d too, as upstream's optimised build does, so even those blocks agree bit for bit at every optimisation
    // level. The flip is an XOR of the sign bit, not a branch: random signs would mispredict half the time (a
    // branch per element made the grid formats' MUL_MAT about 10 times slower).
    static void signed_values(uint64_t point, int n, unsigned signs, float scale, float * y) {
        for (int j = 0; j < n; ++j) {
            const float v = scale * static_cast<float>(grid_byte(point, j));
            y[j]          = std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ (((signs >> j) & 1u) << 31));
        }
    }
    // IQ1: the grid bytes read as int8.
    static void shifted(uint64_t point, float delta, float dl, float * y) {
        for (int j = 0; j < 8; ++j) {
            y[j] = dl * (static_cast<float>(static_cast<int8_t>(grid_byte(point, j))) + delta);
        }
    }
};

} // namespace

// The d field each block starts with (IQ1_M has none: validate.cpp assembles its scale from the nibbles).
const Format kFormatIQ2_XXS{GGML_TYPE_IQ2_XXS, iq_walk::dequantize_iq2_xxs<ScalarPut>, nullptr, nullptr, false,
                            {{ScaleKind::kHalf, offsetof(BlockIQ2_XXS, d), "d"}, {}}};
const Format kFormatIQ2_XS{GGML_TYPE_IQ2_XS, iq_walk::dequantize_iq2_xs<ScalarPut>, nullptr, nullptr, false,
                           {{ScaleKind::kHalf, offsetof(BlockIQ2_XS, d), "d"}, {}}};
const Format kFormatIQ2_S{GGML_TYPE_IQ2_S, iq_walk::dequantize_iq2_s<ScalarPut>, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ2_S, d), "d"}, {}}};
const Format kFormatIQ3_XXS{GGML_TYPE_IQ3_XXS, iq_walk::dequantize_iq3_xxs<ScalarPut>, nullptr, nullptr, false,
                            {{ScaleKind::kHalf, offsetof(BlockIQ3_XXS, d), "d"}, {}}};
const Format kFormatIQ3_S{GGML_TYPE_IQ3_S, iq_walk::dequantize_iq3_s<ScalarPut>, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ3_S, d), "d"}, {}}};
const Format kFormatIQ1_S{GGML_TYPE_IQ1_S, iq_walk::dequantize_iq1_s<ScalarPut>, nullptr, nullptr, false,
                          {{ScaleKind::kHalf, offsetof(BlockIQ1_S, d), "d"}, {}}};
const Format kFormatIQ1_M{GGML_TYPE_IQ1_M, iq_walk::dequantize_iq1_m<ScalarPut>, nullptr, nullptr, false, {}};

} // namespace switchyard::quant
