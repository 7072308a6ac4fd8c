#version 450
// Float values quantized into Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 or IQ4_NL blocks as the host's reference quantizers
// do (src/quant; bit-exact: divisions correctly rounded, no fused multiply-adds where the host has none), one
// invocation per block of 32: MODE 0 is CPY (element i of the source in logical order to element i of the
// destination), MODE 1 SET_ROWS (source row r of plane (i2, i3) to destination row idx[r, i2 % ne_i1, i3 % ne_i2]).
#include "common.glsl"
#include "div_rn.glsl"

layout(constant_id = 1) const uint TS   = 0;
layout(constant_id = 2) const uint TQ   = 14; // ops/types.h weight_type_code: Q4_0 .. IQ4_NL
layout(constant_id = 3) const uint MODE = 0;

#define QTYPE_Q4_0   10u
#define QTYPE_Q4_1   11u
#define QTYPE_Q5_0   12u
#define QTYPE_Q5_1   13u
#define QTYPE_Q8_0   14u
#define QTYPE_IQ4_NL 15u

TYPED_BUFFER(0, s, readonly)
layout(binding = 1) readonly buffer I { int idx[]; };
layout(binding = 2) buffer D { uint8_t d8[]; };

layout(push_constant) uniform Params {
    uvec4 ne_s;
    uvec4 nb_s; // elements
    uvec4 ne_d; // CPY: the destination's shape
    uvec4 nb_d; // bytes
    uvec4 nb_i; // SET_ROWS: strides of idx in elements; .w: ne_i1
    uint  off_s, off_i, off_d, n_blocks;
    uint  ne_i2, i64_idx;
} p;

float load_s(uint e) {
    const uvec4 c = unravel(e, p.ne_s);
    return LOAD(s, TS, p.off_s + c.x * p.nb_s.x + c.y * p.nb_s.y + c.z * p.nb_s.z + c.w * p.nb_s.w);
}

void store_f16(uint at, float v) {
    const uint h = f32_to_f16(v);
    d8[at]       = uint8_t(h & 255u);
    d8[at + 1u]  = uint8_t(h >> 8);
}

void store_nibbles(uint at, const uint L[32]) {
    for (uint j = 0; j < 16u; ++j) {
        d8[at + j] = uint8_t((L[j] & 15u) | ((L[j + 16u] & 15u) << 4));
    }
}

// bit 4 of each level, as the little-endian uint32 of Q5_0 / Q5_1
void store_fifth_bits(uint at, const uint L[32]) {
    for (uint k = 0; k < 4u; ++k) {
        uint byte_ = 0;
        for (uint j = 0; j < 8u; ++j) {
            byte_ |= ((L[8u * k + j] >> 4) & 1u) << j;
        }
        d8[at + k] = uint8_t(byte_);
    }
}

// Q8_0: d = amax / 127, q = round(x / d), half away from zero
void quantize_q8_0(const float x[32], uint at) {
    float amax = 0.0;
    for (uint j = 0; j < 32u; ++j) {
        amax = max(amax, abs(x[j]));
    }
    const float d  = div_rn(amax, 127.0);
    const float id = d != 0.0 ? div_rn(1.0, d) : 0.0;
    store_f16(at, d);
    for (uint j = 0; j < 32u; ++j) {
        precise const float v = x[j] * id;
        const float a = abs(v), f = floor(a);
        const float q = clamp(sign(v) * (a - f >= 0.5 ? f + 1.0 : f), -128.0, 127.0);
        d8[at + 2u + j] = uint8_t(uint(int(q)) & 255u);
    }
}

// Q4_0 / Q5_0 (offset 8 / 16): d = max / -offset (max: the value of largest magnitude, the first of equals),
// q = trunc(x / d + offset + 0.5) in [0, 2 * offset - 1]; returns d
float symmetric_levels(const float x[32], float offset, out uint L[32]) {
    float amax = 0.0, mx = 0.0;
    for (uint j = 0; j < 32u; ++j) {
        if (amax < abs(x[j])) {
            amax = abs(x[j]);
            mx   = x[j];
        }
    }
    const float d   = div_rn(mx, -offset);
    const float id  = d != 0.0 ? div_rn(1.0, d) : 0.0;
    const float top = 2.0 * offset - 1.0;
    for (uint j = 0; j < 32u; ++j) {
        precise const float v = x[j] * id + (offset + 0.5);
        L[j] = uint(v > 0.0 ? (v < top ? v : top) : 0.0);
    }
    return d;
}

// Q4_1 / Q5_1 (top 15 / 31): d = (max - min) / top, m = min, q = trunc((x - min) / d + 0.5) in [0, top]
void affine_levels(const float x[32], float top, out uint L[32], out float d, out float m) {
    float lo = 3.402823466e38, hi = -3.402823466e38;
    for (uint j = 0; j < 32u; ++j) {
        lo = x[j] < lo ? x[j] : lo;
        hi = hi < x[j] ? x[j] : hi;
    }
    d              = div_rn(hi - lo, top);
    m              = lo;
    const float id = d != 0.0 ? div_rn(1.0, d) : 0.0;
    for (uint j = 0; j < 32u; ++j) {
        precise const float v = (x[j] - lo) * id + 0.5;
        L[j] = uint(v > 0.0 ? (v < top ? v : top) : 0.0);
    }
}

const int kIq4nlValues[16] = int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

// IQ4_NL, the reference quantizer (src/quant/iq4.cpp without importance weights): the scale mapping the value
// of largest magnitude onto -127 picks the nearest table level of each value (the upper one at a midpoint), then
// the scale is refitted by least squares with weights x^2; returns it
float iq4nl_levels(const float x[32], out uint L[32]) {
    float amax = 0.0, mx = 0.0;
    for (uint j = 0; j < 32u; ++j) {
        L[j] = 0u;
        if (abs(x[j]) > amax) {
            amax = abs(x[j]);
            mx   = x[j];
        }
    }
    if (amax < 1e-15) {
        return 0.0;
    }
    const float id    = div_rn(1.0, div_rn(mx, -127.0));
    precise float sumqx = 0.0, sumq2 = 0.0;
    for (uint j = 0; j < 32u; ++j) {
        precise const float v2 = id * x[j] * 2.0; // exact doubling
        uint l = 0;
        for (uint i = 1; i < 16u; ++i) {
            l += v2 >= float(kIq4nlValues[i - 1u] + kIq4nlValues[i]) ? 1u : 0u;
        }
        L[j] = l;
        precise const float w = x[j] * x[j];
        const float q = float(kIq4nlValues[l]);
        sumqx = sumqx + w * q * x[j];
        sumq2 = sumq2 + w * q * q;
    }
    return sumq2 > 0.0 ? div_rn(sumqx, sumq2) : 0.0;
}

// the 32 values x as a block of TQ starting at byte `at`
void quantize(const float x[32], uint at) {
    uint L[32];
    switch (TQ) {
        case QTYPE_Q8_0: quantize_q8_0(x, at); return;
        case QTYPE_Q4_0:
            store_f16(at, symmetric_levels(x, 8.0, L));
            store_nibbles(at + 2u, L);
            return;
        case QTYPE_Q5_0:
            store_f16(at, symmetric_levels(x, 16.0, L));
            store_fifth_bits(at + 2u, L);
            store_nibbles(at + 6u, L);
            return;
        case QTYPE_Q4_1:
        case QTYPE_Q5_1: {
            float d, m;
            affine_levels(x, TQ == QTYPE_Q4_1 ? 15.0 : 31.0, L, d, m);
            store_f16(at, d);
            store_f16(at + 2u, m);
            if (TQ == QTYPE_Q5_1) {
                store_fifth_bits(at + 4u, L);
            }
            store_nibbles(at + (TQ == QTYPE_Q5_1 ? 8u : 4u), L);
            return;
        }
        default:
            store_f16(at, iq4nl_levels(x, L));
            store_nibbles(at + 2u, L);
            return;
    }
}

uint block_bytes() {
    switch (TQ) {
        case QTYPE_Q8_0: return 34u;
        case QTYPE_Q4_1: return 20u;
        case QTYPE_Q5_0: return 22u;
        case QTYPE_Q5_1: return 24u;
        default:         return 18u; // Q4_0, IQ4_NL
    }
}

void main() {
    const uint b = flat_index();
    if (b >= p.n_blocks) {
        return;
    }
    const uint e = b * 32u;
    float      x[32];
    for (uint j = 0; j < 32u; ++j) {
        x[j] = load_s(e + j);
    }
    const uint bytes = block_bytes();
    uint       at;
    if (MODE == 0) {
        const uvec4 c = unravel(e, p.ne_d);
        at = p.off_d + (c.x / 32u) * bytes + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    } else {
        const uvec4 c   = unravel(e, p.ne_s);
        const uint  ii  = p.off_i + (c.y * p.nb_i.x + (c.z % p.nb_i.w) * p.nb_i.y + (c.w % p.ne_i2) * p.nb_i.z) *
                                     (p.i64_idx != 0 ? 2u : 1u);
        const uint  row = uint(idx[ii]);
        at = p.off_d + (c.x / 32u) * bytes + row * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    }
    quantize(x, at);
}
