// Scalar fp16 and bf16 conversions, exact: round to nearest even, NaN and Inf kept, subnormals handled.
// NaNs come out quiet with their payload's top bits kept, as the x86 conversion instructions do it
// (vcvtph2ps, vcvtps2ph, vcvtneps2bf16), so the scalar code and the fast paths agree bit for bit.
// Row converters with F16C / AVX-512 BF16 fast paths chosen at run time live in fp16.cpp.
#pragma once

#include <cstdint>
#include <cstring>

namespace switchyard {

inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    return u;
}

inline float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}

inline float fp16_to_fp32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp  = (h >> 10) & 0x1fu;
    uint32_t       mant = h & 0x3ffu;
    if (exp == 0x1f) { // Inf, or NaN made quiet (payload kept)
        return bits_float(sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u));
    }
    if (exp == 0) {
        if (mant == 0) {
            return bits_float(sign);
        }
        // subnormal: value = mant * 2^-24
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        mant &= 0x3ffu;
        return bits_float(sign | (static_cast<uint32_t>(112 - e) << 23) | (mant << 13));
    }
    return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t fp32_to_fp16(float f) {
    const uint32_t x    = float_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) { // Inf or NaN (keep NaN quiet and non-zero)
        const uint32_t mant = absx & 0x7fffffu;
        return static_cast<uint16_t>(sign | 0x7c00u | (mant ? (0x200u | (mant >> 13)) : 0u));
    }
    if (absx >= 0x477ff000u) { // rounds to >= 65520: overflow to Inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (absx < 0x38800000u) { // below the smallest normal half (2^-14): subnormal or zero
        if (absx < 0x33000000u) { // < 2^-25 rounds to zero
            return static_cast<uint16_t>(sign);
        }
        const uint32_t e     = absx >> 23;
        const uint32_t m     = (absx & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e; // 14..24: value = m * 2^(e-150), half ulp = 2^-24
        uint32_t       q     = m >> shift;
        const uint32_t rem   = m & ((1u << shift) - 1);
        const uint32_t half  = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) {
            ++q;
        }
        return static_cast<uint16_t>(sign | q);
    }
    // normal: rebias exponent, round mantissa to 10 bits (carry may bump the exponent, which is correct)
    uint32_t       h   = ((absx >> 13) - (112u << 10));
    const uint32_t rem = absx & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        ++h;
    }
    return static_cast<uint16_t>(sign | h);
}

inline float bf16_to_fp32(uint16_t b) {
    return bits_float(static_cast<uint32_t>(b) << 16);
}

inline uint16_t fp32_to_bf16(float f) {
    const uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) { // NaN: force quiet
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    }
    return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Row converters (n elements). The fp16 ones and fp32_to_bf16_row use F16C / AVX-512 BF16 when the CPU has
// them; every path gives exactly the scalar conversions above. Thread-safe, no allocation.
void fp16_to_fp32_row(const uint16_t * x, float * y, int64_t n);
void fp32_to_fp16_row(const float * x, uint16_t * y, int64_t n);
void bf16_to_fp32_row(const uint16_t * x, float * y, int64_t n);
void fp32_to_bf16_row(const float * x, uint16_t * y, int64_t n);
void fp32_to_bf16_row_scalar(const float * x, uint16_t * y, int64_t n);

} // namespace switchyard
