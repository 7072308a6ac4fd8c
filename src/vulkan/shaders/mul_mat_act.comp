#version 450
// The activations (B) of a matrix product rounded the way the CPU's dot products see them, into f32 scratch:
// MODE 0 rounds to f16, 1 to bf16 (one invocation per element); 2 quantizes to Q8_0 and 3 to Q8_1 blocks of 32
// (one invocation per block), writing the dequantized values and, for Q8_1, the block's stored sum minus the
// sum of its values (the excess term the Q4_1/Q5_1 products add, times the weights' min); 4 quantizes to Q8_K
// blocks of 256 (one invocation per block), the K-quants' activations, with the operations of the host's
// reference quantizer (quant/kquants_q6_q8.cpp) in the same order, so the levels and scale are bit-identical.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TB   = 0;
layout(constant_id = 2) const uint MODE = 0;

TYPED_BUFFER(0, b, readonly)
layout(binding = 1) buffer Out { float o[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of b
    uvec4 nb_b; // elements
    uint  off_b, n, excess_base;
} p;

// a / b correctly rounded to nearest even, as the host's division: by long division of the significands in
// integers, since the device's division may be ulps off and its fma need not be fused. Zeros, infinities and NaN
// take the device's division (exact for them).
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

float load_b(uint i) {
    const uvec4 c = unravel(i, p.ne);
    return LOAD(b, TB, p.off_b + c.x * p.nb_b.x + c.y * p.nb_b.y + c.z * p.nb_b.z + c.w * p.nb_b.w);
}

// max: the value of largest magnitude, the first on ties; iscale = -127 / max, levels round(iscale * x) clamped
// to [-128, 127], d = 1 / iscale; all zero when max is 0
void quantize_q8_k(uint first) {
    float amax = 0.0, vmax = 0.0;
    for (uint j = 0; j < 256u; ++j) {
        const float x = load_b(first + j);
        if (abs(x) > amax) {
            amax = abs(x);
            vmax = x;
        }
    }
    if (amax == 0.0) {
        for (uint j = 0; j < 256u; ++j) {
            o[first + j] = 0.0;
        }
        return;
    }
    const float iscale = div_rn(-127.0, vmax);
    const float d      = div_rn(1.0, iscale);
    for (uint j = 0; j < 256u; ++j) {
        const float q = round_nearest(iscale * load_b(first + j));
        o[first + j]  = d * (q > -128.0 ? (q < 127.0 ? q : 127.0) : -128.0);
    }
}

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    if (MODE == 0) {
        o[i] = f16_bits_to_f32(f32_to_f16(load_b(i)));
        return;
    }
    if (MODE == 1) {
        o[i] = uintBitsToFloat(f32_to_bf16(load_b(i)) << 16);
        return;
    }
    if (MODE == 4) {
        quantize_q8_k(i * 256u); // blocks run along rows (ne0 is a multiple of 256)
        return;
    }
    const uint first = i * 32; // blocks run along rows (ne0 is a multiple of 32)
    float      amax  = 0.0;
    for (uint j = 0; j < 32; ++j) {
        amax = max(amax, abs(load_b(first + j)));
    }
    const float d   = div_rn(amax, 127.0);
    const float id  = amax != 0.0 ? div_rn(127.0, amax) : 0.0;
    const float dh  = f16_bits_to_f32(f32_to_f16(d));
    int         sum = 0;
    for (uint j = 0; j < 32; ++j) {
        const float q = roundEven(load_b(first + j) * id);
        sum += int(q);
        o[first + j] = dh * q;
    }
    if (MODE == 3) {
        const float s = f16_bits_to_f32(f32_to_f16(d * float(sum)));
        o[p.excess_base + i] = s - dh * float(sum);
    }
}
