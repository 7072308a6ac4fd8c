// a / b correctly rounded to nearest even, as the host's division, for the quantizing shaders (mul_mat_act.comp,
// quantize.comp), whose scales must be bit-identical to the host quantizers': by long division of the
// significands in integers, since the device's division may be ulps off and its fma need not be fused. Zeros,
// infinities and NaN take the device's division (exact for them).
float div_rn(float a, float b) {
    const uint sign = (floatBitsToUint(a) ^ floatBitsToUint(b)) & 0x80000000u;
    const uint xa = floatBitsToUint(a) & 0x7fffffffu, xb = floatBitsToUint(b) & 0x7fffffffu;
    if (xa == 0u || xb == 0u || xa >= 0x7f800000u || xb >= 0x7f800000u) {
        return a / b;
    }
    int  ea = int(xa >> 23), eb = int(xb >> 23);
    uint ma = xa & 0x7fffffu, mb = xb & 0x7fffffu;
    if (ea == 0) { // subnormal: normalise
        const int s = 23 - findMSB(ma);
        ma <<= s;
        ea = 1 - s;
    } else {
        ma |= 0x800000u;
    }
    if (eb == 0) {
        const int s = 23 - findMSB(mb);
        mb <<= s;
        eb = 1 - s;
    } else {
        mb |= 0x800000u;
    }
    int e = ea - eb + 127; // the result's biased exponent, once ma / mb is in [1, 2)
    if (ma < mb) {
        ma <<= 1;
        e -= 1;
    }
    uint q = 0u, r = ma; // 25 quotient bits: 24 significand bits and the rounding bit; r != 0 is the sticky bit
    for (int i = 0; i < 25; ++i) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1u;
        }
        r <<= 1;
    }
    if (e >= 1) {
        uint m = q >> 1;
        if ((q & 1u) != 0u && (r != 0u || (m & 1u) != 0u)) {
            ++m;
        }
        if (m == 0x1000000u) {
            m >>= 1;
            ++e;
        }
        return uintBitsToFloat(e >= 255 ? sign | 0x7f800000u : sign | (uint(e) << 23) | (m & 0x7fffffu));
    }
    const int shift = 2 - e; // a subnormal result: q * 2^(e - 2) units of the smallest subnormal
    if (shift >= 26) {
        return uintBitsToFloat(sign);
    }
    uint       m      = q >> shift;
    const bool sticky = r != 0u || (q & ((1u << (shift - 1)) - 1u)) != 0u;
    if (((q >> (shift - 1)) & 1u) != 0u && (sticky || (m & 1u) != 0u)) {
        ++m;
    }
    return uintBitsToFloat(sign | m);
}

// the host's round_nearest (quant/search.h): clamped to +-(2^22 - 1), NaN to the low end, then rounded to nearest
// even, which is what its adding 1.5 * 2^23 does for every value in that range
float round_nearest(float v) {
    v = v > -4194303.0 ? v : -4194303.0;
    v = v < 4194303.0 ? v : 4194303.0;
    return roundEven(v);
}
