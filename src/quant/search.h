// Scale searches shared by the quantizers: given a group of values x (and optionally a weight per value), find
// the scale (and min) and the integer levels L that make the weighted squared error small. These are the
// searches the K-quant formats were designed around (upstream's make_qx_quants, make_q3_quants,
// make_qkx2/qkx3_quants, make_qp_quants): candidate scales around the obvious one, each followed by the
// weighted least-squares fit of scale (and min) to the levels it produced, keeping the best.
//
// All functions are pure (no state), take n <= 256, and never fail: an all-zero group gives scale 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace switchyard::quant {

// Groups whose largest magnitude is below this are treated as all zero.
constexpr float kGroupMaxEps = 1e-15f;

// Round to the nearest integer, ties to even (the rounding of the formats' reference quantizers). Adding
// 1.5 * 2^23 leaves the rounded integer in the low mantissa bits; inputs are first clamped to +-(2^22 - 1),
// where that holds, so out-of-range or NaN inputs give a bounded result instead of undefined behaviour.
inline int round_nearest(float v) {
    v = v > -4194303.0f ? v : -4194303.0f; // NaN lands here too
    v = v < 4194303.0f ? v : 4194303.0f;
    const float shifted = v + 12582912.0f;
    int32_t     bits;
    std::memcpy(&bits, &shifted, sizeof(bits));
    return (bits & 0x007fffff) - 0x00400000;
}

// v clamped to [lo, hi] with NaN mapped to lo: a float that can be converted to int without undefined
// behaviour whatever the input (the reference quantizers must survive NaN / Inf in user data).
inline float clamp_finite(float v, float lo, float hi) {
    return v > lo ? (v < hi ? v : hi) : lo;
}

// Symmetric levels: x ~ scale * l with l in [-nmax, nmax - 1]; L[i] = l + nmax. Weights default to x^2.
// Tries 19 scales around -nmax / max (max = the value of largest magnitude), keeps the one whose least-squares
// scale explains most of the weighted energy. Returns the scale (sign included).
float fit_symmetric(int n, int nmax, const float * x, const float * weights, int8_t * L);

// Symmetric 3-bit-style levels (l in [-nmax, nmax - 1], L[i] = l + nmax) with weights x^2: start from
// -nmax / max, then change one level at a time while that improves the weighted fit (up to 5 sweeps).
float fit_symmetric_refine(int n, int nmax, const float * x, int8_t * L);

// Affine levels: x ~ scale * l - the_min with l in [0, nmax] and the_min >= 0 (the offset is never positive).
// Tries nstep + 1 scales (nmax + rmin + k * rdelta) / (max - min), each followed by the weighted least-squares
// fit of scale and offset; the error is weighted squared (or absolute when use_mad) difference.
struct AffineSearch {
    float rmin;
    float rdelta;
    int   nstep;
    bool  use_mad;
};
float fit_affine(int n, int nmax, const float * x, const float * weights, uint8_t * L, float & the_min,
                 const AffineSearch & search);

// Non-negative values (sub-block scales or mins) on levels l in [0, nmax]: x ~ scale * l. Tries 9 scales
// around nmax / max, then changes one level at a time while the weighted fit improves (up to 5 sweeps).
float fit_unsigned(int n, int nmax, const float * x, const float * weights, uint8_t * L);

} // namespace switchyard::quant
