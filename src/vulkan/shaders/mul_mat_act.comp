#version 450
// The activations (B) of a matrix product rounded the way the CPU's dot products see them, into f32 scratch:
// MODE 0 rounds to f16, 1 to bf16 (one invocation per element); 2 quantizes to Q8_0 and 3 to Q8_1 blocks of 32
// (one invocation per block), writing the dequantized values and, for Q8_1, the block's stored sum minus the
// sum of its values (the excess term the Q4_1/Q5_1 products add, times the weights' min); 4 quantizes to Q8_K
// blocks of 256 (one invocation per block), the K-quants' activations, with the operations of the host's
// reference quantizer (quant/kquants_q6_q8.cpp) in the same order, so the levels and scale are bit-identical.
#include "common.glsl"
#include "div_rn.glsl"

layout(constant_id = 1) const uint TB   = 0;
layout(constant_id = 2) const uint MODE = 0;

TYPED_BUFFER(0, b, readonly)
layout(binding = 1) buffer Out { float o[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of b
    uvec4 nb_b; // elements
    uint  off_b, n, excess_base;
} p;

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
